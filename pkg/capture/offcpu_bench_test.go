package capture

import (
	"io"
	"os"
	"testing"

	"flamekit/pkg/collapse"
	"flamekit/pkg/source"
	"flamekit/pkg/symbols"
)

// BenchmarkFoldOffCPU folds the perf.data file named by
// $FLAMEKIT_OFFCPU_BENCH (a large sched_switch capture with call chains,
// not committed: perf record -e sched:sched_switch -e sched:sched_waking
// -a -g -- perf bench sched pipe) with --off-cpu, and with --wakers: the
// cost of reading tracepoint fields per sample.
func BenchmarkFoldOffCPU(b *testing.B) {
	path := os.Getenv("FLAMEKIT_OFFCPU_BENCH")
	if path == "" {
		b.Skip("set FLAMEKIT_OFFCPU_BENCH to a perf.data file of sched_switch samples")
	}
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		opt  collapse.Options
	}{{"offcpu", collapse.Options{OffCPU: true}}, {"wakers", collapse.Options{OffCPU: true, Wakers: true}}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(st.Size())
			for b.Loop() {
				in, err := source.Open(path, source.Options{})
				if err != nil {
					b.Fatal(err)
				}
				f := &Folder{Driver: collapse.Driver{Options: c.opt}, Resolver: symbols.NewResolver(symbols.Options{})}
				if _, err := f.Run(io.Discard, []collapse.Input{f.Data(in, path)}); err != nil {
					b.Fatal(err)
				}
				in.Close()
			}
		})
	}
}
