package perfdata

import (
	"os"
	"testing"

	"flamekit/internal/testkit/golden"
	"flamekit/pkg/perf/symbols"
)

// benchRead reads every sample of path, b.N times, and reports samples
// per second and allocations per sample.
func benchRead(b *testing.B, path string, sy func() Symbolizer) {
	b.Helper()
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	b.ReportAllocs()
	var samples, frames int64
	for b.Loop() {
		var s Symbolizer
		if sy != nil {
			s = sy()
		}
		r, err := Open(path, Options{Symbolizer: s, AllowForeign: true})
		if err != nil {
			b.Fatal(err)
		}
		for r.Next() {
			samples++
			frames += int64(len(r.Sample().Frames))
		}
		if err := r.Err(); err != nil {
			b.Fatal(err)
		}
		r.Close()
	}
	b.ReportMetric(float64(samples)/b.Elapsed().Seconds(), "samples/s")
	b.ReportMetric(float64(frames)/float64(max(samples, 1)), "frames/sample")
}

func benchCapture(b *testing.B) string {
	script, err := golden.Read("testdata/syswide.script.gz")
	if err != nil {
		b.Fatal(err)
	}
	return extract(b, "syswide", script)
}

// BenchmarkRecords reads the system-wide capture without symbols: the
// file, the ordered-events queue, threads and maps.
func BenchmarkRecords(b *testing.B) {
	benchRead(b, benchCapture(b), nil)
}

// BenchmarkSymbols reads it with the symbols, a shared Resolver (its
// tables loaded once, each Reader's per-address cache cold).
func BenchmarkSymbols(b *testing.B) {
	res := committedResolver(b)
	benchRead(b, benchCapture(b), func() Symbolizer { return res })
}

// BenchmarkFile reads the perf.data file named by $FLAMEKIT_PERFDATA_BENCH
// (a large capture, not committed) with the machine's symbols, a new
// Resolver each time (the whole cost of a run).
func BenchmarkFile(b *testing.B) {
	path := os.Getenv("FLAMEKIT_PERFDATA_BENCH")
	if path == "" {
		b.Skip("set FLAMEKIT_PERFDATA_BENCH to a perf.data file")
	}
	b.Run("records", func(b *testing.B) { benchRead(b, path, nil) })
	b.Run("symbols", func(b *testing.B) {
		benchRead(b, path, func() Symbolizer { return symbols.NewResolver(symbols.Options{}) })
	})
}

// BenchmarkChains resolves the deferred frames (FrameCache.Chain) of every
// sample of the perf.data file named by $FLAMEKIT_PERFDATA_BENCH, kept
// once before the timing, on one goroutine with a new FrameCache each time
// (the locations found anew; their symbols are not looked up).
func BenchmarkChains(b *testing.B) {
	path := os.Getenv("FLAMEKIT_PERFDATA_BENCH")
	if path == "" {
		b.Skip("set FLAMEKIT_PERFDATA_BENCH to a perf.data file")
	}
	r, err := Open(path, Options{AllowForeign: true, Symbolizer: symbols.NewResolver(symbols.Options{})})
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	r.DeferFrames()
	var batches []*Samples
	b.ReportAllocs()
	s := new(Samples)
	for r.Next() {
		if r.PrintsFrames() {
			r.Keep(s)
		}
		if s.Len() == 2048 {
			batches = append(batches, s)
			s = new(Samples)
		}
	}
	if err := r.Err(); err != nil {
		b.Fatal(err)
	}
	batches = append(batches, s)
	frames := 0
	for b.Loop() {
		r.shared = nil
		fc := r.NewFrameCache()
		frames = 0
		for _, s := range batches {
			for i := range s.Len() {
				frames += len(fc.Chain(s, i))
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(frames), "ns/frame")
}

// BenchmarkDWARF reads the system-wide --call-graph dwarf capture,
// unwinding its user stacks with the committed objects' CFI (each
// Reader's tables cold: every object's CFI is read again), without
// symbols.
func BenchmarkDWARF(b *testing.B) {
	script, err := golden.Read("testdata/dwsys.script.gz")
	if err != nil {
		b.Fatal(err)
	}
	path := extract(b, "dwsys", script)
	objects := &committedObjects{}
	benchRead(b, path, func() Symbolizer { return objectsOnly{objects} })
}

// BenchmarkDWARFReadAhead reads it as a large file is read: the data
// section read ahead in blocks (of 64 KiB: the capture is 1 MB), the
// samples queued in the blocks they were read in.
func BenchmarkDWARFReadAhead(b *testing.B) {
	script, err := golden.Read("testdata/dwsys.script.gz")
	if err != nil {
		b.Fatal(err)
	}
	path := extract(b, "dwsys", script)
	objects := &committedObjects{}
	withReadAhead(b, 64<<10)
	benchRead(b, path, func() Symbolizer { return objectsOnly{objects} })
}

// objectsOnly is a Symbolizer that finds no symbol, only the committed
// objects' CFI.
type objectsOnly struct{ *committedObjects }

func (objectsOnly) Kernel(string, uint64) (symbols.Symbol, bool) { return symbols.Symbol{}, false }
func (objectsOnly) Module(string, string, uint64) (symbols.Symbol, bool) {
	return symbols.Symbol{}, false
}
func (objectsOnly) DSO(string, string, uint64) (symbols.Symbol, bool) { return symbols.Symbol{}, false }
func (objectsOnly) DSOTable(string, string) *symbols.Table            { return nil }
func (objectsOnly) PerfMap(int, uint64, uint64) (symbols.Symbol, bool) {
	return symbols.Symbol{}, false
}
func (objectsOnly) JITReuses(int) []uint64                         { return nil }
func (objectsOnly) KernelSymbols(string) *symbols.Kernel           { return nil }
func (objectsOnly) KernelSymbolAddr(string, string) (uint64, bool) { return 0, false }
func (objectsOnly) Missing() []symbols.Missing                     { return nil }
