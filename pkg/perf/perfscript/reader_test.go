package perfscript

import (
	"path/filepath"
	"testing"

	"flamekit/internal/testkit/golden"
)

// TestCutDoesNotMatter: one worker reading each capture in one chunk writes
// what two workers write on chunks of 64 kB, and of 256 kB after smaller
// first ones (rampSize), on every real capture.
func TestCutDoesNotMatter(t *testing.T) {
	captures, _ := filepath.Glob("../../../testdata/perf/*.txt.gz")
	if len(captures) == 0 {
		t.Fatal("no captures in testdata/perf")
	}
	opts := []Options{{}, {NoTime: true, TID: true, Kernel: true}, {NoIdle: true, EventFilter: "sched_switch"}}
	for _, path := range captures {
		data := readFile(t, path)
		all := opts
		if name := filepath.Base(path); name == "offcpu.txt.gz" || name == "hotcold.txt.gz" {
			all = []Options{{OffCPU: true}, {OffCPU: true, NoTime: true, Wakers: true}, {HotCold: true}, {OffCPU: true, ClipOpen: true, States: "all"}}
		}
		for _, opt := range all {
			want := collapseText(t, data, opt, 1, 1<<30)
			for _, chunk := range []int{64 << 10, 256 << 10} {
				checkCut(t, path, opt, want, collapseText(t, data, opt, 2, chunk))
			}
		}
	}
}

func checkCut(t *testing.T, path string, opt Options, want, got result) {
	t.Helper()
	if (got.err == nil) != (want.err == nil) {
		t.Fatalf("%s %+v: error %v, in one chunk %v", path, opt, got.err, want.err)
	}
	if got.out != want.out {
		t.Fatalf("%s %+v: cut in chunks differs from one chunk:\n%s", path, opt, golden.Diff([]byte(want.out), []byte(got.out)))
	}
	if got.sum.Weight != want.sum.Weight || got.sum.Samples != want.sum.Samples || got.sum.Skipped.Count != want.sum.Skipped.Count {
		t.Errorf("%s %+v: summary %+v, in one chunk %+v", path, opt, got.sum, want.sum)
	}
}

// TestRampSize: the first chunks are smaller, never below 64 kB nor above
// the chunk size asked for.
func TestRampSize(t *testing.T) {
	for _, tc := range []struct{ size, n, want int }{
		{2 << 20, 0, 256 << 10}, {2 << 20, 1, 512 << 10}, {2 << 20, 2, 1 << 20}, {2 << 20, 3, 2 << 20}, {2 << 20, 9, 2 << 20},
		{256 << 10, 0, 64 << 10}, {256 << 10, 1, 64 << 10}, {256 << 10, 2, 128 << 10},
		{1000, 0, 1000}, {1000, 5, 1000},
	} {
		if got := rampSize(tc.size, tc.n); got != tc.want {
			t.Errorf("rampSize(%d, %d) = %d, want %d", tc.size, tc.n, got, tc.want)
		}
	}
}
