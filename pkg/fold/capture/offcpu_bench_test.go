package capture

import (
	"testing"

	"flamekit/pkg/fold/collapse"
)

// BenchmarkFoldOffCPU folds the perf.data file named by
// $FLAMEKIT_OFFCPU_BENCH (a large sched_switch capture with call chains,
// not committed: perf record -e sched:sched_switch -e sched:sched_waking
// -a -g -- perf bench sched pipe) with --off-cpu, and with --wakers: the
// cost of reading tracepoint fields per sample.
func BenchmarkFoldOffCPU(b *testing.B) {
	path, size := benchFile(b, "FLAMEKIT_OFFCPU_BENCH", "a perf.data file of sched_switch samples")
	for _, c := range []struct {
		name string
		opt  collapse.Options
	}{{"offcpu", collapse.Options{OffCPU: true}}, {"wakers", collapse.Options{OffCPU: true, Wakers: true}}} {
		b.Run(c.name, func(b *testing.B) { benchFold(b, path, size, c.opt) })
	}
}
