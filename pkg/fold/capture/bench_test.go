package capture

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"runtime"
	"testing"

	"flamekit/pkg/fold/collapse"
	"flamekit/pkg/folded"
	"flamekit/pkg/perf/symbols"
	"flamekit/pkg/source"
)

// BenchmarkFoldData folds the perf.data file named by
// $FLAMEKIT_PERFDATA_BENCH (a large system-wide capture, not committed)
// with the machine's symbols, the output to io.Discard: the whole cost of
// stackcollapse FILE.data, timed and classic.
func BenchmarkFoldData(b *testing.B) {
	path, size := benchFile(b, "FLAMEKIT_PERFDATA_BENCH", "a perf.data file")
	for _, c := range []struct {
		name string
		opt  collapse.Options
	}{{"timed", collapse.Options{}}, {"classic", collapse.Options{NoTime: true}}} {
		for _, workers := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/j%d", c.name, workers), func(b *testing.B) {
				defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(workers))
				benchFold(b, path, size, c.opt)
			})
		}
	}
}

// benchFile returns the file the environment variable env names, and its
// size; the benchmark is skipped, saying it wants what, when env is unset.
func benchFile(b *testing.B, env, what string) (string, int64) {
	path := os.Getenv(env)
	if path == "" {
		b.Skip("set " + env + " to " + what)
	}
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	return path, st.Size()
}

// benchFold folds the perf.data file at path with opt, as stackcollapse
// does, the output to io.Discard, once per iteration.
func benchFold(b *testing.B, path string, size int64, opt collapse.Options) {
	b.SetBytes(size)
	for b.Loop() {
		in, err := source.Open(path, source.Options{})
		if err != nil {
			b.Fatal(err)
		}
		f := &Folder{Driver: collapse.Driver{Options: opt}, Resolver: symbols.NewResolver(symbols.Options{})}
		if _, err := f.Run(io.Discard, []collapse.Input{f.Data(in, path)}); err != nil {
			b.Fatal(err)
		}
		in.Close()
	}
}

// countRecords is a collapse.Records that counts what it is given.
type countRecords struct{ n int64 }

func (c *countRecords) Meta(*folded.Meta) error                  { return nil }
func (c *countRecords) Record(*folded.Record, int, []byte) error { c.n++; return nil }
func (c *countRecords) Malformed(int, []byte, error) error       { return nil }

// BenchmarkRecords reads the perf.data file named by
// $FLAMEKIT_PERFDATA_BENCH as timeslice does, its records counted: as
// records (Records) and as folded text read back (Folded and a
// folded.Reader, the text round trip timeslice made before).
func BenchmarkRecords(b *testing.B) {
	path, size := benchFile(b, "FLAMEKIT_PERFDATA_BENCH", "a perf.data file")
	in, err := source.Open(path, source.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer in.Close()
	b.Run("records", func(b *testing.B) {
		b.SetBytes(size)
		for b.Loop() {
			var c countRecords
			if err := Records(in, Options{}, &c); err != nil || c.n == 0 {
				b.Fatal(err, c.n)
			}
		}
	})
	b.Run("text", func(b *testing.B) {
		b.SetBytes(size)
		for b.Loop() {
			var buf bytes.Buffer
			f := &Folder{}
			if _, err := f.Run(&buf, []collapse.Input{f.Data(in, path)}); err != nil {
				b.Fatal(err)
			}
			rd := folded.NewReader(&buf, path)
			rd.Lenient = true
			n := 0
			for rd.Next() {
				n++
			}
			if rd.Err() != nil || n == 0 {
				b.Fatal(rd.Err(), n)
			}
		}
	})
}
