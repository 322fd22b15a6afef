package main

import (
	"regexp"
	"strings"
	"testing"

	"flamekit/internal/testkit/testcapture"
)

// TestFrameEndingInNumber: a frame that ends in a blank and a number (the
// perf-map symbol "Evil 5", in the burst capture) is a frame in a stream
// whose metadata says classic (issue 34 item 6: flamegraph drew it as a
// differential "Evil" of +0.05%): the graph of the classic lines is the
// graph of the timed ones, byte for byte. Without a header, the line is
// guessed differential, as flamegraph.pl reads it.
func TestFrameEndingInNumber(t *testing.T) {
	e := testcapture.EvilFiles(t)
	code, want, stderr := run(t, e.Timed)
	evil := regexp.MustCompile(`<title>Evil 5 \(1,979,381,376 samples, [0-9.]+%\)</title>`)
	if code != 0 || !evil.MatchString(want) {
		t.Fatalf("exit %d, no %q frame: %s", code, testcapture.EvilFrame, stderr)
	}
	code, got, stderr := run(t, e.Classic)
	if code != 0 || got != want || stderr != "" {
		t.Errorf("the classic lines draw another graph (exit %d): %s", code, stderr)
	}
	code, got, _ = run(t, e.Bare)
	if code != 0 || strings.Contains(got, "<title>Evil 5 ") || !regexp.MustCompile(`<title>Evil \(1,979,381,376 samples, [0-9.]+%; \+[0-9.]+%\)</title>`).MatchString(got) {
		t.Errorf("without a header: exit %d, want the differential guess", code)
	}
}
