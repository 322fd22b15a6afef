package window

import (
	"errors"

	"flamekit/pkg/fold/capture"
	"flamekit/pkg/folded"
)

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
	// err is the reading's error, or closing's.
	err error
}

// scanOptions say how much of an input a scan reads.
type scanOptions struct {
	head  bool // its first lines: read the text with a small buffer
	drain bool // a stream: read what follows the folded text, for its copy
}

// scan reads the input through capture.Scan, giving each record to fn;
// opened, when not nil, is called once the input is open, before the
// first record.
func (in *Input) scan(o scanOptions, opened func(), fn recordFunc) scanned {
	if in.err != nil {
		return scanned{err: in.err}
	}
	var s scanned
	var stopped error
	so := capture.ScanOptions{Head: o.head, Drain: o.drain, Opened: func() {
		s.opened = true
		if opened != nil {
			opened()
		}
	}}
	sc, err := capture.Scan(in.src, in.fold, so, func(rec *folded.Record, line int, text []byte) error {
		if err := fn(rec, line, text); err != nil {
			if err == errStop {
				return capture.ErrStop
			}
			stopped = err
			return err
		}
		return nil
	})
	s.metas, s.skips = sc.Metas, sc.Skips
	if stopped != nil {
		s.stopped = stopped
	} else {
		s.err = err
	}
	return s
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
