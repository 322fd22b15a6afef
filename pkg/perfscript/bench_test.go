package perfscript

import (
	"bytes"
	"path/filepath"
	"testing"
)

// benchInput repeats the system-wide and C++ captures to about 32 MB.
func benchInput(b *testing.B) []byte {
	var one []byte
	for _, n := range []string{"syswide", "cpp-templates", "java", "kernel"} {
		path := filepath.Join("../../testdata/perf", n+".txt.gz")
		one = append(one, readFile(b, path)...)
	}
	return bytes.Repeat(one, 32<<20/len(one)+1)
}

func benchCollapse(b *testing.B, opt Options, workers int) {
	data := benchInput(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		collapse(b, data, opt, workers, 0)
	}
}

func BenchmarkClassic(b *testing.B)           { benchCollapse(b, Options{NoTime: true}, 0) }
func BenchmarkClassicSequential(b *testing.B) { benchCollapse(b, Options{NoTime: true}, 1) }
func BenchmarkTimed(b *testing.B)             { benchCollapse(b, Options{}, 0) }
func BenchmarkTimedSequential(b *testing.B)   { benchCollapse(b, Options{}, 1) }
func BenchmarkClassicAll(b *testing.B) {
	benchCollapse(b, Options{NoTime: true, Kernel: true, JIT: true, TID: true}, 0)
}
