package main

import (
	"os"
	"strings"
	"testing"

	"flamekit/internal/testkit/testcapture"
)

// TestFrameEndingInNumber: a frame that ends in a blank and a number (the
// perf-map symbol "Evil 5", in the burst capture) keeps its name in a
// stream whose metadata says classic (issue 34 item 6: difffolded renamed
// it "Evil"): the classic lines compare as the timed ones do, byte for
// byte, and the output names "Evil 5" and reads back as the same
// differential lines. Without a header, the line is guessed differential,
// as flamegraph.pl reads it, and said.
func TestFrameEndingInNumber(t *testing.T) {
	e := testcapture.EvilFiles(t)
	want, stderr, code := run(t, "", e.Timed, e.Timed)
	if code != 0 || !strings.Contains(want, "start_thread;run;"+testcapture.EvilFrame+" 1979381376 1979381376\n") {
		t.Fatalf("exit %d: %s\n%.500s", code, stderr, want)
	}
	for _, args := range [][]string{{e.Classic, e.Classic}, {e.Timed, e.Classic}, {e.Classic, e.Timed}} {
		got, stderr, code := run(t, "", args...)
		if code != 0 || got != want || stderr != "" {
			t.Errorf("%v: exit %d, %s\n%.500s", args, code, stderr, got)
		}
	}
	// difffolded's output reads back as differential lines, "Evil 5"
	// whole: comparing it with itself gives it back.
	back := writeTemp(t, "diff.folded", want)
	if got, _, _ := run(t, "", back, back); got != want {
		t.Errorf("difffolded's output does not read back as itself:\n%.500s", got)
	}
	got, stderr, code := run(t, "", e.Bare, e.Bare)
	if code != 0 || !strings.Contains(got, "start_thread;run;Evil 1979381376 1979381376\n") ||
		stderr != "difffolded: "+e.Bare+": 2 lines are already differential (\"stack count1 count2\"); used their second count\n"+
			"difffolded: "+e.Bare+": 2 lines are already differential (\"stack count1 count2\"); used their second count\n" {
		t.Errorf("without a header: exit %d, %s\n%.500s", code, stderr, got)
	}
}

func writeTemp(t *testing.T, name, text string) string {
	t.Helper()
	p := t.TempDir() + "/" + name
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
