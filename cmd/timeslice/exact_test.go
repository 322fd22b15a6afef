package main

import (
	"strings"
	"testing"
)

// TestCountsBeyond2e53: timeslice sums counts up to 2^53 exactly and
// refuses, naming file and line, a count beyond (a sum beyond: see
// TestSumBeyondRange).
func TestCountsBeyond2e53(t *testing.T) {
	in := "a;b 9007199254740990 @1.0\na;b 1 @1.5\na;b 1 @2.0\na;c 99999999999999999999999 @2.5\na;c 7 @3\n"
	code, out, errs := run(t, in, "--from", "@0", "--to", "@10")
	if code != 0 {
		t.Fatalf("exit status %d: %s", code, errs)
	}
	if want := "a;b 9007199254740992\na;c 7\n"; out != want {
		t.Errorf("output %q, want %q", out, want)
	}
	if want := "<stdin>:4: count 99999999999999999999999 is beyond 2^53 and cannot be summed exactly"; !strings.Contains(errs, want) {
		t.Errorf("stderr %q lacks %q", errs, want)
	}
}
