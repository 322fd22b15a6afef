package perfscript

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"flamekit/internal/testkit/cputime"
)

// benchInput repeats the system-wide and C++ captures to about 32 MB.
func benchInput(b *testing.B) []byte {
	var one []byte
	for _, n := range []string{"syswide", "cpp-templates", "java", "kernel"} {
		path := filepath.Join("../../../testdata/perf", n+".txt.gz")
		one = append(one, readFile(b, path)...)
	}
	return bytes.Repeat(one, 32<<20/len(one)+1)
}

func benchCollapse(b *testing.B, opt Options, workers int) {
	data := benchInput(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		collapseText(b, data, opt, workers, 0)
	}
}

func BenchmarkClassic(b *testing.B)           { benchCollapse(b, Options{NoTime: true}, 0) }
func BenchmarkClassicSequential(b *testing.B) { benchCollapse(b, Options{NoTime: true}, 1) }
func BenchmarkTimed(b *testing.B)             { benchCollapse(b, Options{}, 0) }
func BenchmarkTimedSequential(b *testing.B)   { benchCollapse(b, Options{}, 1) }
func BenchmarkClassicAll(b *testing.B) {
	benchCollapse(b, Options{NoTime: true, Kernel: true, JIT: true, TID: true}, 0)
}

// BenchmarkText* run on the perf script text named by FLAMEKIT_BENCH_TEXT
// (for example 100 MB of a system-wide capture, as scripts/bench builds
// it, or scripts/bench-shape's F.txt), written to io.Discard, with one and
// two workers: the figures of issue 13 (classic at least as fast as
// timed, -j 2 at least 1.6 x -j 1) and of issue 33 (text collapse at
// least 20 times stackcollapse-perf.pl). They report the processor time
// (cpu-ns/op) beside the wall time; FLAMEKIT_BENCH_CHUNK sets the chunk
// size (bytes).
func BenchmarkTextTimed1(b *testing.B)   { benchText(b, Options{}, 1) }
func BenchmarkTextTimed2(b *testing.B)   { benchText(b, Options{}, 2) }
func BenchmarkTextClassic1(b *testing.B) { benchText(b, Options{NoTime: true}, 1) }
func BenchmarkTextClassic2(b *testing.B) { benchText(b, Options{NoTime: true}, 2) }

var benchChunk, _ = strconv.Atoi(os.Getenv("FLAMEKIT_BENCH_CHUNK"))

func benchText(b *testing.B, opt Options, workers int) {
	path := os.Getenv("FLAMEKIT_BENCH_TEXT")
	if path == "" {
		b.Skip("set FLAMEKIT_BENCH_TEXT to a perf script text file")
	}
	data := readFile(b, path)
	b.SetBytes(int64(len(data)))
	cpu0 := cputime.Process()
	for b.Loop() {
		c := &Collapser{Options: opt, Workers: workers, ChunkSize: benchChunk}
		in := Input{Name: "bench", Open: func() (io.ReadCloser, error) {
			return io.NopCloser(bytes.NewReader(data)), nil
		}}
		if _, err := c.Run(io.Discard, []Input{in}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cputime.Process()-cpu0)/float64(b.N), "cpu-ns/op")
}
