// Package testcapture gives the tests of every package the real perf
// captures committed under testdata/perf (perf script --header text,
// gzipped), folded by stackcollapse's own library: one place that knows
// where they are and how a test folds them, instead of a helper in each
// package's tests.
package testcapture

import (
	"bytes"
	"io"
	"iter"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"flamekit/pkg/fold/collapse"
	"flamekit/pkg/folded"
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
	b := FoldWith(t, name, collapse.Options{})
	folds.Store(name, b)
	return b
}

// FoldWith is Fold with options opts, not shared.
func FoldWith(t testing.TB, name string, opts collapse.Options) []byte {
	t.Helper()
	path := Path(name)
	f, err := FoldFile(path, "testdata/perf/"+name+".txt.gz", opts, nil)
	if err != nil {
		t.Fatalf("folding %s: %v", path, err)
	}
	return f.Text
}

// Folding is what FoldFile and FoldText give: the folded text, the
// driver's summary and the lines that were not perf script's.
type Folding struct {
	Text    []byte
	Summary collapse.Summary
	Skips   folded.Skips
}

// FoldFile folds the perf script text at path (gzip or zstd or not) as
// stackcollapse does: the one fold driver (package collapse), one worker,
// with package perfscript's Text as its producer, which is what
// capture.Folder.Text gives the driver for perf script text. source is
// the "source" metadata value; warnf (nil: none) gets the fold's
// messages.
func FoldFile(path, source string, opts collapse.Options, warnf func(string, ...any)) (Folding, error) {
	return fold(path, source, func() (io.ReadCloser, error) { return decompress.Open(path) }, opts, warnf)
}

// FoldText is FoldFile of perf script text in memory, named name in
// messages.
func FoldText(name string, text []byte, opts collapse.Options, warnf func(string, ...any)) (Folding, error) {
	return fold(name, "", func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(text)), nil }, opts, warnf)
}

func fold(name, source string, open func() (io.ReadCloser, error), opts collapse.Options, warnf func(string, ...any)) (Folding, error) {
	var text *perfscript.Text
	d := collapse.Driver{Options: opts, Workers: 1, Warnf: warnf}
	var out bytes.Buffer
	sum, err := d.Run(&out, []collapse.Input{{Name: name, Source: source, Open: func() (collapse.Producer, error) {
		rc, err := open()
		if err != nil {
			return nil, err
		}
		text = perfscript.NewText(rc, name, opts.Srcline)
		return text, nil
	}}})
	var skips folded.Skips
	if text != nil {
		skips = text.Skips()
	}
	if skips.Count > 0 && warnf != nil {
		warnf("%s", skips)
	}
	return Folding{Text: out.Bytes(), Summary: sum, Skips: skips}, err
}

// Records returns the records of the named folded files (gzip or zstd
// read transparently, package source) as one sequence. The test fails on
// a file that cannot be read and on a malformed line.
func Records(t testing.TB, names ...string) iter.Seq[*folded.Record] {
	t.Helper()
	return func(yield func(*folded.Record) bool) {
		for _, name := range names {
			in, err := source.Open(name, source.Options{})
			if err != nil {
				t.Fatal(err)
			}
			rc, err := in.Open()
			if err != nil {
				t.Fatal(err)
			}
			rd := folded.NewReader(rc, name)
			for rd.Next() {
				if !yield(rd.Record()) {
					rc.Close()
					return
				}
			}
			rc.Close()
			if err := rd.Err(); err != nil {
				t.Fatal(err)
			}
		}
	}
}
