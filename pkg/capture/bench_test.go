package capture

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"testing"

	"flamekit/pkg/collapse"
	"flamekit/pkg/source"
	"flamekit/pkg/symbols"
)

// BenchmarkFoldData folds the perf.data file named by
// $FLAMEKIT_PERFDATA_BENCH (a large system-wide capture, not committed)
// with the machine's symbols, the output to io.Discard: the whole cost of
// stackcollapse FILE.data, timed and classic.
func BenchmarkFoldData(b *testing.B) {
	path := os.Getenv("FLAMEKIT_PERFDATA_BENCH")
	if path == "" {
		b.Skip("set FLAMEKIT_PERFDATA_BENCH to a perf.data file")
	}
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		opt  collapse.Options
	}{{"timed", collapse.Options{}}, {"classic", collapse.Options{NoTime: true}}} {
		for _, workers := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/j%d", c.name, workers), func(b *testing.B) {
				b.SetBytes(st.Size())
				defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(workers))
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
}
