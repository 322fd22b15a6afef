package perfscript

import (
	"bytes"
	"fmt"
	"path/filepath"
	"testing"

	"flamekit/pkg/collapse"
)

// TestReaderThroughStage: the sequential entry point (Reader samples fed
// to collapse.Stage.Add, as the perf.data reader will feed it) writes what
// the parallel Collapser writes, on every real capture.
func TestReaderThroughStage(t *testing.T) {
	captures, _ := filepath.Glob("../../testdata/perf/*.txt.gz")
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
			want := collapseText(t, data, opt, 2, 64<<10)
			var out, stderr bytes.Buffer
			st, err := collapse.New(&out, opt)
			if err != nil {
				t.Fatal(err)
			}
			st.Warnf = func(f string, a ...any) { fmt.Fprintf(&stderr, "stackcollapse: "+f+"\n", a...) }
			rd := NewReader(bytes.NewReader(data), "input")
			first := true
			for rd.Next() {
				if first {
					// The capture is complete once the first sample is read.
					st.Begin(rd.Capture(), "")
					first = false
				}
				if err := st.Add(rd.Sample()); err != nil {
					t.Fatal(err)
				}
			}
			if err := rd.Err(); err != nil {
				t.Fatal(err)
			}
			st.End()
			sum, err := st.Close()
			if (err == nil) != (want.err == nil) {
				t.Fatalf("%s %+v: error %v, Collapser's %v", path, opt, err, want.err)
			}
			if out.String() != want.out {
				t.Fatalf("%s %+v: Reader + Stage.Add differs from the Collapser:\n%s", path, opt, firstDiff(want.out, out.String()))
			}
			if sum.Weight != want.sum.Weight || sum.Samples != want.sum.Samples {
				t.Errorf("%s %+v: summary %+v, Collapser's %+v", path, opt, sum, want.sum.Summary)
			}
			if rd.Skips().Count != want.sum.Skipped.Count {
				t.Errorf("%s: %d lines skipped, Collapser %d", path, rd.Skips().Count, want.sum.Skipped.Count)
			}
		}
	}
}
