package collapse_test

import (
	"io"
	"os"
	"testing"
	"time"

	"flamekit/internal/testkit/cputime"
	"flamekit/pkg/fold/capture"
	"flamekit/pkg/fold/collapse"
	"flamekit/pkg/source"
)

// BenchmarkClassicTail times the tail of stackcollapse --no-time alone:
// the classic sums of the perf.data file or perf script text named by
// $FLAMEKIT_COLLAPSE_BENCH (a large system-wide capture, not committed)
// are folded once, then sorted and written to io.Discard once per
// iteration.
func BenchmarkClassicTail(b *testing.B) {
	path := os.Getenv("FLAMEKIT_COLLAPSE_BENCH")
	if path == "" {
		b.Skip("set FLAMEKIT_COLLAPSE_BENCH to a perf.data file or perf script text to time the classic output's sort and write")
	}
	in, err := source.Open(path, source.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer in.Close()
	f := &capture.Folder{}
	input := f.Text(in.Display, path, in.Open)
	if in.Kind.IsPerfData() {
		input = f.Data(in, path)
	}
	tail, err := collapse.FoldClassic(&f.Driver, []collapse.Input{input})
	if err != nil {
		b.Fatal(err)
	}
	var cpu time.Duration // of the process, while writing
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		tail.Reset()
		before := cputime.Process()
		b.StartTimer()
		if err := tail.Write(io.Discard); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		cpu += cputime.Process() - before
	}
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
}
