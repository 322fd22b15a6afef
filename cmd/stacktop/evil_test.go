package main

import (
	"strings"
	"testing"

	"flamekit/internal/testkit/testcapture"
)

// TestFrameEndingInNumber: a frame that ends in a blank and a number (the
// perf-map symbol "Evil 5", in the burst capture) is a frame in a stream
// whose metadata says classic, not a differential count (issue 34 item
// 6: stacktop switched to Δ mode): the table of the classic lines is the
// table of the timed ones, byte for byte, with an "Evil 5" row, in every
// format. Without a header, the line is guessed differential, as
// flamegraph.pl reads it (and difffolded writes it).
func TestFrameEndingInNumber(t *testing.T) {
	e := testcapture.EvilFiles(t)
	for _, format := range []string{"text", "csv", "json"} {
		want, stderr, code := run(t, "", "--format", format, "-n", "0", e.Timed)
		if code != 0 || !strings.Contains(want, testcapture.EvilFrame) || strings.Contains(want, "Δ") {
			t.Fatalf("%s: exit %d, no %q row: %s\n%.500s", format, code, testcapture.EvilFrame, stderr, want)
		}
		got, stderr, code := run(t, "", "--format", format, "-n", "0", e.Classic)
		if code != 0 || got != want {
			t.Errorf("%s: the classic lines give another table (exit %d, %s):\n%.800s\nwant:\n%.800s", format, code, stderr, got, want)
		}
	}
	got, _, code := run(t, "", e.Bare)
	if code != 0 || !strings.Contains(got, "Δflat") || !strings.Contains(got, "  Evil\n") {
		t.Errorf("without a header: exit %d, want the Δ table of a differential guess:\n%s", code, got)
	}
}
