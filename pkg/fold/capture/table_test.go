package capture

import (
	"testing"

	"flamekit/pkg/source"
)

// Every kind package source tells has its row in the table of readers,
// and the row answers what the tools ask of the kind.
func TestReadersTable(t *testing.T) {
	kinds := []source.Kind{source.Unknown, source.Empty}
	for _, f := range source.Formats() {
		kinds = append(kinds, f.Kind)
	}
	want := map[source.Kind]struct {
		timed, perf bool
		collapse    Collapse
	}{
		source.Unknown:      {false, false, FoldPerf},
		source.Empty:        {false, false, FoldPerf},
		source.PerfData:     {true, true, FoldPerf},
		source.PerfDataPipe: {true, true, FoldPerf},
		source.PerfScript:   {true, true, FoldPerf},
		source.Pprof:        {true, false, ConvertProfile},
		source.Bpftrace:     {false, false, SumDump},
		source.Folded:       {true, false, CopyStacks},
	}
	for _, k := range kinds {
		if _, ok := readers[k]; !ok {
			t.Errorf("%v: no row in the table of readers", k)
			continue
		}
		w, ok := want[k]
		if !ok {
			t.Errorf("%v: add the kind to this test", k)
			continue
		}
		in := &source.Input{Kind: k}
		if Timed(in) != w.timed || IsPerf(in) != w.perf || CollapseOf(in) != w.collapse {
			t.Errorf("%v: timed %v, perf %v, collapse %v; want %+v", k, Timed(in), IsPerf(in), CollapseOf(in), w)
		}
		if readers[k].data != k.IsPerfData() {
			t.Errorf("%v: data %v, but source says perf.data %v", k, readers[k].data, k.IsPerfData())
		}
	}
}
