package window

import (
	"errors"
	"fmt"
	"io"

	"flamekit/pkg/fold/collapse"
	"flamekit/pkg/folded"
	"flamekit/pkg/source"
)

// Fold reads a perf capture (a perf.data file, perf script text) as the
// records of the timed folded stacks stackcollapse writes for it, given to
// out in order, without that text (capture.Records does it); the records
// are what a lenient folded.Reader would read from the text.
type Fold func(src *source.Input, out collapse.Records) error

// FromCapture returns the input of the perf capture src, read through
// fold each time it is read (see Fold).
func FromCapture(src *source.Input, fold Fold) *Input {
	return &Input{Name: src.Name, Display: src.Display, src: src, records: fold}
}

// recordFunc receives the records of an input, in order: rec and its
// Stack are valid until it returns; line is the record's line number in
// the folded text, text the line (not set for the timed records of a
// capture, which are never formatted). Returning errStop ends the reading
// without an error; another error ends it with that error.
type recordFunc func(rec *folded.Record, line int, text []byte) error

// errStop ends a reading early (see recordFunc).
var errStop = errors.New("stop reading")

// scanned is what a scan of an input found.
type scanned struct {
	// metas and skips are the metadata lines read and the malformed
	// lines skipped, up to where the reading ended.
	metas []folded.Meta
	skips folded.Skips
	// opened is false when the input could not be opened (err says
	// why): nothing was read.
	opened bool
	// stopped is the error a recordFunc returned (not errStop).
	stopped error
	// err is the reading's error; closeErr the error of closing it.
	err, closeErr error
}

// scanOptions say how much of an input a scan reads.
type scanOptions struct {
	head  bool // its first lines: read the text with a small buffer
	drain bool // a stream: read what follows the folded text, for its copy
}

// scan reads the input, giving each record to fn; opened, when not nil,
// is called once the input is open, before the first record.
func (in *Input) scan(o scanOptions, opened func(), fn recordFunc) scanned {
	if in.records != nil && in.err == nil {
		return in.scanRecords(opened, fn)
	}
	open, size := in.open, 256<<10
	if o.head {
		open, size = in.openHead, 16<<10
	}
	rc, err := open()
	if err != nil {
		return scanned{err: err}
	}
	if opened != nil {
		opened()
	}
	rd := folded.NewReaderSize(rc, in.Display, size)
	rd.Lenient = true
	for rd.Next() {
		if err := fn(rd.Record(), rd.Line(), rd.Text()); err != nil {
			rc.Close()
			if err == errStop {
				return scanned{metas: rd.Meta(), skips: rd.Skips(), opened: true}
			}
			return scanned{opened: true, stopped: err}
		}
	}
	s := scanned{opened: true, err: rd.Err()}
	if s.err == nil && o.drain {
		// Read what a reader stopping at the end of the folded text
		// left, so that the copy is whole.
		if _, err := io.Copy(io.Discard, rc); err != nil {
			s.err = fmt.Errorf("%s: %w", in.Display, err)
		}
	}
	s.closeErr = rc.Close()
	s.metas, s.skips = rd.Meta(), rd.Skips()
	return s
}

// scanRecords reads a perf capture through its Fold.
func (in *Input) scanRecords(opened func(), fn recordFunc) scanned {
	if opened != nil {
		opened()
	}
	r := &recordScan{name: in.Display, fn: fn}
	err := in.records(in.src, r)
	switch {
	case r.stopped == errStop:
		return scanned{metas: r.metas, skips: r.skips, opened: true}
	case r.stopped != nil:
		return scanned{opened: true, stopped: r.stopped}
	case err != nil:
		// As a folded.Reader reports the error of the text it reads.
		err = fmt.Errorf("%s: line %d: %w", in.Display, r.line+1, err)
	}
	return scanned{metas: r.metas, skips: r.skips, opened: true, err: err}
}

// recordScan is the collapse.Records of a scan: what a lenient
// folded.Reader keeps of the text (metadata lines, skipped lines), and the
// records for the recordFunc.
type recordScan struct {
	name    string
	fn      recordFunc
	line    int
	metas   []folded.Meta
	skips   folded.Skips
	stopped error
}

func (r *recordScan) Meta(m *folded.Meta) error {
	r.line = m.Line
	r.metas = append(r.metas, *m)
	return nil
}

func (r *recordScan) Record(rec *folded.Record, line int, text []byte) error {
	r.line = line
	if err := r.fn(rec, line, text); err != nil {
		r.stopped = err
		return err
	}
	return nil
}

func (r *recordScan) Malformed(line int, text []byte, err error) error {
	r.line = line
	r.skips.Note(r.name, line, text, err)
	return nil
}

// lineText returns the text of a record's line: text when the reading
// gave it, else the record written as a folded line.
func lineText(rec *folded.Record, text []byte) []byte {
	if text != nil {
		return text
	}
	b := folded.AppendRecord(nil, rec)
	return b[:len(b)-1]
}
