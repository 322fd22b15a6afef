package main

import (
	"strings"
	"testing"
)

// TestCountsBeyond2e53: a count no float64 holds is refused, naming its
// file and line, and the graph is drawn from the rest with the counts
// exact; a sum past 2^53 is drawn with a warning that its labels are
// rounded.
func TestCountsBeyond2e53(t *testing.T) {
	in := write(t, "big.folded", "a;b 99999999999999999999999\na;c 9007199254740992\na;d 5\n")
	code, out, errs := run(t, in)
	if code != 0 {
		t.Fatalf("exit status %d: %s", code, errs)
	}
	want := "Ignored 1 lines with invalid format (first: " + in + ":1: count 99999999999999999999999 is beyond 2^53 and cannot be summed exactly"
	if !strings.Contains(errs, want) {
		t.Errorf("stderr %q, want %q", errs, want)
	}
	if strings.Contains(out, "99,999,999,999,999,99") {
		t.Errorf("the refused count is drawn")
	}
	if !strings.Contains(out, "<title>c (9,007,199,254,740,992 samples") {
		t.Errorf("no 2^53 samples for frame c")
	}
	if !strings.Contains(errs, "beyond 2^53: the widths are right, but the counts shown are rounded") {
		t.Errorf("no warning for a total of 2^53+5: %q", errs)
	}

	code, out, errs = run(t, write(t, "small.folded", "a;c 9007199254740991\na;d 1\n"))
	if code != 0 || strings.Contains(errs, "2^53") || !strings.Contains(out, "<title>all (9,007,199,254,740,992 samples") {
		t.Errorf("a total of 2^53: exit %d, stderr %q", code, errs)
	}
}
