package perfscript

import (
	"path/filepath"
	"testing"

	"flamekit/internal/testkit/golden"
)

// TestCutDoesNotMatter: one worker reading each capture in one chunk writes
// what two workers write on chunks of 64 kB, on every real capture.
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
			got := collapseText(t, data, opt, 2, 64<<10)
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
	}
}
