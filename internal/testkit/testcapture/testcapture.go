// Package testcapture gives the tests of every package the real perf
// captures committed under testdata/perf (perf script --header text,
// gzipped), folded by stackcollapse's own library: one place that knows
// where they are and how a test folds them, instead of a helper in each
// package's tests.
package testcapture

import (
	"bytes"
	"io"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"flamekit/pkg/perf/perfscript"
	"flamekit/pkg/source"
	"flamekit/pkg/source/decompress"
)

// Dir returns the path of the repository's testdata/perf directory.
func Dir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "testdata", "perf")
}

// Path returns the path of the capture testdata/perf/NAME.txt.gz.
func Path(name string) string { return filepath.Join(Dir(), name+".txt.gz") }

var folds sync.Map // capture name -> []byte

// Fold returns stackcollapse's output for capture name with the default
// options (timed lines with cpu= and tid=, one per sample), folded with
// one worker. Its "source" metadata line names testdata/perf/NAME.txt.gz. The result is
// shared between tests: it must not be written.
func Fold(t testing.TB, name string) []byte {
	t.Helper()
	if b, ok := folds.Load(name); ok {
		return b.([]byte)
	}
	b := FoldWith(t, name, perfscript.Options{})
	folds.Store(name, b)
	return b
}

// FoldWith is Fold with options opts, not shared.
func FoldWith(t testing.TB, name string, opts perfscript.Options) []byte {
	t.Helper()
	path := Path(name)
	c := perfscript.Collapser{Options: opts, Workers: 1}
	var out bytes.Buffer
	if _, err := c.Run(&out, []perfscript.Input{{
		Name: path, Source: "testdata/perf/" + name + ".txt.gz",
		Open: func() (io.ReadCloser, error) { return decompress.Open(path) },
	}}); err != nil {
		t.Fatalf("folding %s: %v", path, err)
	}
	return out.Bytes()
}

// Files opens the named folded files through the input layer (package
// source: gzip or zstd read transparently) and returns their records as
// one stream; lenient is source.NewFiles's. The test fails if a file
// cannot be opened.
func Files(t testing.TB, names []string, lenient bool) *source.Files {
	t.Helper()
	ins, err := source.OpenAll(names, source.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ins.Close() })
	return source.NewFiles(ins, lenient)
}
