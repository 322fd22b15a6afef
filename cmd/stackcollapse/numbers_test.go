package main

import (
	"fmt"
	"strings"
	"testing"
)

// TestPeriodsBeyondRange: perf prints a period of 2^64-1 for a broken
// counter; it used to become 9223372036854775807 (from text) or -1 (from
// perf.data), which no reader accepts or which subtracts. Such a sample is
// left out and counted, timed or not; the others are kept.
func TestPeriodsBeyondRange(t *testing.T) {
	sample := "prog 123 [000] 100.%06d: %s cpu-clock:ppp: \n\t4005d6 leaf+0x0 (/bin/prog)\n\t4005f0 main+0x0 (/bin/prog)\n\n"
	in := fmt.Sprintf(sample, 0, "18446744073709551615") + fmt.Sprintf(sample, 1, "1000")
	for _, args := range [][]string{nil, {"--no-time"}} {
		code, out, stderr := run(t, []byte(in), args...)
		if code != 0 || strings.Contains(out, "18446744073709551615") || strings.Contains(out, "9223372036854775807") ||
			!strings.Contains(out, "prog;main;leaf 1000") ||
			!strings.Contains(stderr, "left out 1 samples whose weight (perf's period, or --weight) is beyond 2^53") {
			t.Errorf("%v: exit %d, output %q: %s", args, code, out, stderr)
		}
	}
}

// TestClassicSumBeyondRange: classic sums beyond 2^53, which no reader
// accepts, are refused (exit status 1), not written; a frame that ends in
// " <digits>" is escaped in classic output.
func TestClassicSumBeyondRange(t *testing.T) {
	sample := "prog 123 [000] 100.%06d: %d cpu-clock:ppp: \n\t4005d6 %s+0x0 (/bin/prog)\n\n"
	var in strings.Builder
	for i := range 3 {
		fmt.Fprintf(&in, sample, i, int64(1)<<53-5, "leaf")
	}
	code, out, stderr := run(t, []byte(in.String()), "--no-time")
	if code != 1 || strings.Contains(out, "prog;leaf") || !strings.Contains(stderr, `the counts of "prog;leaf" sum to 27021597764222961, beyond 2^53`) {
		t.Errorf("exit %d, output %q: %s", code, out, stderr)
	}
	code, out, stderr = run(t, []byte(fmt.Sprintf(sample, 1, 5, "Evil 5")), "--no-time")
	if code != 0 || out != "prog;Evil_5 5\n" {
		t.Errorf("exit %d, output %q: %s", code, out, stderr)
	}
}

// TestHashComm: a process that renames itself "#evil": perf script prints
// its samples' headers where its comments are, and they are skipped, as
// stackcollapse-perf.pl skips them, but counted and said.
func TestHashComm(t *testing.T) {
	sample := "%s 123 [000] 100.%06d: 5 cpu-clock:ppp: \n\t4005d6 leaf+0x0 (/bin/prog)\n\n"
	in := "# ========\n# captured on    : Sat Nov 28 02:15:50 2026\n# ========\n#\n" +
		fmt.Sprintf(sample, "#evil", 1) + fmt.Sprintf(sample, "#evil", 2) + fmt.Sprintf(sample, "good", 3)
	code, out, stderr := run(t, []byte(in))
	if code != 0 || !strings.Contains(out, "good;leaf 5 @100.000003") || strings.Contains(out, "evil") ||
		!strings.Contains(stderr, "skipped 2 malformed lines") || !strings.Contains(stderr, "process whose name starts with '#'") {
		t.Errorf("exit %d, output %q: %s", code, out, stderr)
	}
}
