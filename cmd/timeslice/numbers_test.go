package main

import (
	"fmt"
	"strings"
	"testing"
)

// TestSumBeyondRange: 1030 samples of 2^53-1 and one of 7 sum to
// 9277415232383220737, beyond 2^53 (and int64): no reader accepts it and
// a float64 would round it (to 9277415232383221760, as written before,
// without a word): it is refused, exit status 1, naming the stack.
func TestSumBeyondRange(t *testing.T) {
	var in strings.Builder
	for i := range 1030 {
		fmt.Fprintf(&in, "a;b %d @%d.5\n", int64(1)<<53-1, i)
	}
	in.WriteString("a;b 7 @2000.5\nc 1 @2001\n")
	code, out, stderr := run(t, in.String())
	if code != 1 || strings.Contains(out, "a;b") || !strings.Contains(stderr, `the counts of "a;b" sum to about 9277415232383221760, beyond 2^53`) {
		t.Errorf("exit %d, output %q: %s", code, out, stderr)
	}
	// At 2^53 exactly, the sum is written, exactly.
	code, out, stderr = run(t, fmt.Sprintf("a;b %d @1\na;b 1 @2\n", int64(1)<<53-1))
	if code != 0 || out != "a;b 9007199254740992\n" {
		t.Errorf("2^53: exit %d, output %q: %s", code, out, stderr)
	}
}
