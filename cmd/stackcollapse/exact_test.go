package main

import (
	"strings"
	"testing"
)

// TestCountsBeyond2e53 folds bpftrace dumps and folded stacks whose counts
// no float64 holds (bpftrace's u64 counts: 2^64-1 is an underflowed one):
// each is refused, naming the file and line, and counted; the others,
// 2^53 included, and their sums up to 2^53 are written exactly (beyond:
// see TestClassicSumBeyondRange).
func TestCountsBeyond2e53(t *testing.T) {
	tests := []struct {
		name, in, want, msg string
	}{
		{"bpftrace", "Attaching 1 probe...\n\n@[\n    f+1\n    main+2\n]: 2\n@[\n    g+1\n    main+2\n]: 18446744073709551615\n" +
			"@[\n    h+1\n    main+2\n]: 9007199254740990\n@[\n    h+1\n    main+2\n]: 2\n",
			"main;f 2\nmain;h 9007199254740992\n",
			"<stdin>:7: count 18446744073709551615 is beyond 2^53 and cannot be summed exactly"},
		{"folded", "a;c 5\na;b 99999999999999999999999\na;c 9007199254740992\n",
			"a;c 5\na;c 9007199254740992\n", // folded input passes through, line by line
			"<stdin>:2: count 99999999999999999999999 is beyond 2^53 and cannot be summed exactly"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := run(t, []byte(tt.in))
			if code != 0 {
				t.Fatalf("exit status %d: %s", code, errs)
			}
			if out != tt.want {
				t.Errorf("output %q, want %q", out, tt.want)
			}
			if !strings.Contains(errs, "skipped 1 malformed line (first: "+tt.msg) {
				t.Errorf("stderr %q lacks %q", errs, tt.msg)
			}
		})
	}
}
