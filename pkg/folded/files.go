package folded

import (
	"fmt"
	"io"
)

// Files reads the records of several inputs in order, as one stream, each
// input with its own line numbers. No names means standard input.
//
// Deprecated: commands read their inputs with source.Files, over inputs
// opened (and recognised) by package source; Files reads named folded
// files, for tests and examples.
//
//	fs := folded.NewFiles(args, true)
//	for fs.Next() { rec := fs.Record(); ... }
//	err := fs.Err()
type Files struct {
	// Stdin is read for the name "-". The caller gives it (a command
	// passes its standard input); when it is nil, "-" is an error.
	Stdin io.Reader

	names   []string
	lenient bool
	i       int
	cur     *Reader
	closer  io.Closer
	err     error
	skips   Skips
}

// NewFiles returns a Files over names ("-" is standard input); lenient is
// given to each Reader.
func NewFiles(names []string, lenient bool) *Files {
	if len(names) == 0 {
		names = []string{"-"}
	}
	return &Files{names: names, lenient: lenient}
}

// Next advances to the next record of the current input, opening the next
// input when one ends.
func (f *Files) Next() bool {
	for f.err == nil {
		if f.cur == nil {
			if f.i >= len(f.names) {
				return false
			}
			name := f.names[f.i]
			f.i++
			rc, err := f.open(name)
			if err != nil {
				f.err = err
				return false
			}
			f.closer = rc
			f.cur = NewReader(rc, DisplayName(name))
			f.cur.Lenient = f.lenient
		}
		if f.cur.Next() {
			return true
		}
		f.err = f.cur.Err()
		f.skips.Merge(f.cur.Skips())
		if cerr := f.closer.Close(); f.err == nil && cerr != nil {
			f.err = fmt.Errorf("%s: %w", f.cur.Name(), cerr)
		}
		f.cur = nil
	}
	return false
}

// Record returns the current record; see Reader.Record.
func (f *Files) Record() *Record { return f.cur.Record() }

// Name returns the display name of the current input.
func (f *Files) Name() string {
	if f.cur == nil {
		return ""
	}
	return f.cur.Name()
}

// Line returns the current line number within the current input.
func (f *Files) Line() int {
	if f.cur == nil {
		return 0
	}
	return f.cur.Line()
}

// Err returns the first error met.
func (f *Files) Err() error { return f.err }

// Skips returns the skipped lines of all inputs finished so far.
func (f *Files) Skips() Skips {
	s := f.skips
	if f.cur != nil {
		s.Merge(f.cur.Skips())
	}
	return s
}

// open opens an input by name: "-" is Stdin.
func (f *Files) open(name string) (io.ReadCloser, error) {
	if name != "-" {
		return Open(name)
	}
	if f.Stdin == nil {
		return nil, ErrNoStdin
	}
	return Decompress(io.NopCloser(f.Stdin))
}
