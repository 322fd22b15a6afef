package source

import (
	"fmt"
	"io"

	"flamekit/pkg/folded"
)

// Files reads the folded records of several inputs in order, as one
// stream, each input with its own line numbers: what flamegraph and
// difffolded read.
//
//	fs := source.NewFiles(ins, true)
//	fs.Fold = fold // inputs of other kinds as folded text (see package capture)
//	for fs.Next() { rec := fs.Record(); ... }
//	err := fs.Err()
type Files struct {
	// Fold returns the folded text of an input; nil reads the input's
	// content as folded text (Input.Open).
	Fold func(*Input) (io.ReadCloser, error)

	inputs  Inputs
	lenient bool
	i       int
	cur     *folded.Reader
	closer  io.Closer
	err     error
	skips   folded.Skips
}

// NewFiles returns a Files over ins; lenient is given to each
// folded.Reader (malformed lines are counted, not fatal).
func NewFiles(ins Inputs, lenient bool) *Files {
	return &Files{inputs: ins, lenient: lenient}
}

// Next advances to the next record of the current input, opening the next
// input when one ends.
func (f *Files) Next() bool {
	for f.err == nil {
		if f.cur == nil {
			if f.i >= len(f.inputs) {
				return false
			}
			in := f.inputs[f.i]
			f.i++
			open := f.Fold
			if open == nil {
				open = (*Input).Open
			}
			rc, err := open(in)
			if err != nil {
				f.err = err
				return false
			}
			f.closer = rc
			f.cur = folded.NewReader(rc, in.Display)
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

// Close closes the input being read, when Next was not called until it
// returned false.
func (f *Files) Close() error {
	if f.cur == nil {
		return nil
	}
	f.cur = nil
	return f.closer.Close()
}

// Record returns the current record; see folded.Reader.Record.
func (f *Files) Record() *folded.Record { return f.cur.Record() }

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
func (f *Files) Skips() folded.Skips {
	s := f.skips
	if f.cur != nil {
		s.Merge(f.cur.Skips())
	}
	return s
}
