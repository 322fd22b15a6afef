package capture

import (
	"errors"
	"fmt"
	"io"

	"flamekit/pkg/fold/collapse"
	"flamekit/pkg/folded"
	"flamekit/pkg/interop/bpftrace"
	"flamekit/pkg/interop/pprof"
	"flamekit/pkg/source"
)

// RecordFunc receives the records of an input, in order. rec and its Stack
// are valid until it returns; line is the record's line number in the
// folded text stackcollapse would write for the input; text is that line
// when it was read as text, and nil for records that were never formatted
// (the timed records of a perf capture, converted profiles). Returning
// ErrStop ends the reading without an error; another error ends it, and Scan
// returns that error as it is.
type RecordFunc func(rec *folded.Record, line int, text []byte) error

// ErrStop ends a Scan early without an error (see RecordFunc).
var ErrStop = errors.New("stop reading")

// Scanned is what a Scan read of an input besides its records: the
// metadata lines, and the lines a lenient folded.Reader skips, up to where
// the reading ended.
type Scanned struct {
	Metas []folded.Meta
	Skips folded.Skips
}

// ScanOptions say how much of an input a Scan reads.
type ScanOptions struct {
	// Head reads folded text with a small buffer: the caller wants its
	// first lines only.
	Head bool
	// Drain reads what follows the folded text of a stream to its end,
	// so that a copy made as it is read is whole.
	Drain bool
	// Opened, when not nil, is called once the input is open, before its
	// first record: an error before it is the input's opening's.
	Opened func()
	// Meta, when not nil, receives each metadata line where it stands
	// among the records (before the record that follows it); an error
	// ends the reading as one of the RecordFunc does.
	Meta func(m *folded.Meta) error
}

// A reader is what the table of formats knows of reading one kind of input
// as folded records, and of writing it as folded text.
type reader struct {
	// timed: its records carry each sample's time (perf captures, and
	// folded text that may).
	timed bool
	// text: its records are read from its own text, as it is.
	text bool
	// perf: a perf capture, folded by the fold driver each time it is
	// read; data: a perf.data file (Folder.Data), else perf script text
	// (Folder.Text).
	perf, data bool
	// collapse is how stackcollapse writes it.
	collapse Collapse
	// scan reads in, giving its records to fn.
	scan func(in *source.Input, o Options, so ScanOptions, fn RecordFunc) (Scanned, error)
}

// Collapse is how stackcollapse writes an input as folded text, as the
// table of formats says for its kind.
type Collapse uint8

// The ways stackcollapse writes an input.
const (
	// FoldPerf: folded by the fold driver (Folder.Input) together with
	// the run's other such inputs, as one stream. Text of no known kind
	// is read so, as perf script text, which reports its lines.
	FoldPerf Collapse = iota
	// CopyStacks: folded stacks, copied through as they are.
	CopyStacks
	// SumDump: a dump of stacks and counts, summed and sorted on its
	// own (Bpftrace).
	SumDump
	// ConvertProfile: a profile, converted whole (Pprof); the inputs of
	// one run are all profiles, or none.
	ConvertProfile
)

// readers is the one table of how each kind of input becomes folded
// records (and folded text): every tool reads its inputs through Scan,
// which looks the kind up here, and asks the questions that depend on the
// format of the functions below, which answer from here, so that every
// tool reads every format and none switches on the kind. A kind that
// package source recognises and that is not here cannot be folded. It is
// filled by init: its scan functions ask it questions too.
var readers map[source.Kind]reader

func init() {
	readers = map[source.Kind]reader{
		source.Folded:       {timed: true, text: true, collapse: CopyStacks, scan: scanText},
		source.Empty:        {text: true, scan: scanText},
		source.Unknown:      {text: true, scan: scanUnknown},
		source.PerfData:     {timed: true, perf: true, data: true, scan: scanPerf},
		source.PerfDataPipe: {timed: true, perf: true, data: true, scan: scanPerf},
		source.PerfScript:   {timed: true, perf: true, scan: scanPerf},
		source.Pprof:        {timed: true, collapse: ConvertProfile, scan: scanPprof},
		source.Bpftrace:     {collapse: SumDump, scan: scanBpftrace},
	}
}

// Scan reads the input in as the folded records stackcollapse makes of it,
// giving each to fn, and returns the metadata lines and skipped lines it
// read. Folded stacks are read as they are (leniently: malformed lines are
// counted in Skips); perf captures are folded by the one fold driver
// straight into records, never formatted (o.Collapse.NoTime: summed,
// classic records); pprof profiles and bpftrace dumps are converted. Text
// of no known kind is read as folded text, its lines counted as
// malformed; binary data of no known kind is an error that says what it
// looks like. The fold's messages go to o.Warnf once the input has been
// read whole.
func Scan(in *source.Input, o Options, so ScanOptions, fn RecordFunc) (Scanned, error) {
	r, ok := readers[in.Kind]
	if !ok {
		return Scanned{}, fmt.Errorf("%s: %s cannot be folded", in.Display, in.Kind)
	}
	return r.scan(in, o, so, fn)
}

// Timed reports whether the records of in may carry times (so that a
// window can be cut from them): perf captures, folded stacks, pprof
// profiles with timestamps; not bpftrace dumps or empty input.
func Timed(in *source.Input) bool { return readers[in.Kind].timed }

// TextSize returns the size in bytes of the inputs of ins that are
// folded stacks (CopyStacks), a hint of how many distinct stacks they
// hold.
func TextSize(ins source.Inputs) int64 {
	var n int64
	for _, in := range ins {
		if CollapseOf(in) == CopyStacks {
			n += in.Size()
		}
	}
	return n
}

// IsPerf reports whether in is a perf capture: a perf.data file or perf
// script text, folded by the fold driver each time it is read.
func IsPerf(in *source.Input) bool { return readers[in.Kind].perf }

// CollapseOf returns how stackcollapse writes in as folded text.
func CollapseOf(in *source.Input) Collapse { return readers[in.Kind].collapse }

// Input returns the input of the fold driver that folds in: a perf.data
// file read as one (Data), anything else as perf script text (Text).
func (f *Folder) Input(in *source.Input) collapse.Input {
	if readers[in.Kind].data {
		return f.Data(in, SourceName(in))
	}
	return f.Text(in.Display, SourceName(in), in.Open)
}

func opened(so ScanOptions) {
	if so.Opened != nil {
		so.Opened()
	}
}

// scanUnknown reads text of no known kind as folded text (each line is
// then counted as malformed), and refuses binary data.
func scanUnknown(in *source.Input, o Options, so ScanOptions, fn RecordFunc) (Scanned, error) {
	if !in.Text {
		return Scanned{}, in.Check()
	}
	return scanText(in, o, so, fn)
}

// scanText reads folded text.
func scanText(in *source.Input, _ Options, so ScanOptions, fn RecordFunc) (Scanned, error) {
	open, size := in.Open, 256<<10
	if so.Head {
		open, size = in.OpenLight, 16<<10
	}
	rc, err := open()
	if err != nil {
		return Scanned{}, err
	}
	opened(so)
	rd := folded.NewReaderSize(rc, in.Display, size)
	rd.Lenient = true
	metas := 0
	newMetas := func() error {
		if so.Meta == nil {
			return nil
		}
		all := rd.Meta()
		for ; metas < len(all); metas++ {
			if err := so.Meta(&all[metas]); err != nil {
				return err
			}
		}
		return nil
	}
	for rd.Next() {
		err := newMetas()
		if err == nil {
			err = fn(rd.Record(), rd.Line(), rd.Text())
		}
		if err != nil {
			rc.Close()
			s := Scanned{Metas: rd.Meta(), Skips: rd.Skips()}
			if err == ErrStop {
				return s, nil
			}
			return s, err
		}
	}
	err = rd.Err()
	if err == nil {
		if err = newMetas(); err != nil {
			rc.Close()
			return Scanned{Metas: rd.Meta(), Skips: rd.Skips()}, err
		}
	}
	if err == nil && so.Drain {
		// Read what a reader stopping at the end of the folded text
		// left, so that the copy is whole.
		if _, derr := io.Copy(io.Discard, rc); derr != nil {
			err = fmt.Errorf("%s: %w", in.Display, derr)
		}
	}
	if cerr := rc.Close(); err == nil {
		err = cerr
	}
	return Scanned{Metas: rd.Meta(), Skips: rd.Skips()}, err
}

// scanPerf folds a perf capture straight into records (see Records).
func scanPerf(in *source.Input, o Options, so ScanOptions, fn RecordFunc) (Scanned, error) {
	opened(so)
	o.head = so.Head
	r := &recordScan{name: in.Display, fn: fn, meta: so.Meta}
	err := Records(in, o, r)
	s := Scanned{Metas: r.metas, Skips: r.skips}
	switch {
	case r.stopped == ErrStop:
		return s, nil
	case r.stopped != nil:
		return s, r.stopped
	case err != nil && !errors.Is(err, ErrNotPerfScript):
		// As a folded.Reader reports the error of the text it reads.
		err = fmt.Errorf("%s: line %d: %w", in.Display, r.line+1, err)
	}
	return s, err
}

// recordScan is the collapse.Records of a scan: what a lenient
// folded.Reader keeps of the text (metadata lines, skipped lines), and the
// records for the RecordFunc.
type recordScan struct {
	name    string
	fn      RecordFunc
	meta    func(*folded.Meta) error
	line    int
	metas   []folded.Meta
	skips   folded.Skips
	stopped error
}

func (r *recordScan) Meta(m *folded.Meta) error {
	r.line = m.Line
	r.metas = append(r.metas, *m)
	if r.meta != nil {
		if err := r.meta(m); err != nil {
			r.stopped = err
			return err
		}
	}
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

// scanPprof converts a pprof profile (see Pprof).
func scanPprof(in *source.Input, o Options, so ScanOptions, fn RecordFunc) (Scanned, error) {
	opened(so)
	var h held
	sink := &convertSink{fn: fn, meta: so.Meta}
	err := Pprof(in, o.SampleType, sink, h.keep)
	return sink.done(err, &h, o.Warnf)
}

// scanBpftrace converts a bpftrace map dump (see Bpftrace): its stacks
// summed, in bytewise order.
func scanBpftrace(in *source.Input, o Options, so ScanOptions, fn RecordFunc) (Scanned, error) {
	opened(so)
	var h held
	var prof folded.Profile
	err := bpftraceFold(in, o.Bpftrace, func(rec *folded.Record) error {
		prof.Add(rec)
		return nil
	}, h.keep)
	sink := &convertSink{fn: fn, meta: so.Meta}
	if err == nil {
		for _, e := range prof.Sorted() {
			rec := folded.Record{Stack: []byte(e.Stack), Count: e.Count, Before: e.Before}
			if e.Diff {
				rec.Kind = folded.Diff
			}
			if err = sink.Write(&rec); err != nil {
				break
			}
		}
	}
	return sink.done(err, &h, o.Warnf)
}

// convertSink gives the records of a converter to a RecordFunc, numbered
// as the lines of their folded text would be.
type convertSink struct {
	fn      RecordFunc
	meta    func(*folded.Meta) error
	line    int
	metas   []folded.Meta
	stopped error
}

func (s *convertSink) WriteMeta(m *folded.Meta) error {
	s.line++
	mm := *m
	mm.Line = s.line
	s.metas = append(s.metas, mm)
	if s.meta != nil {
		if err := s.meta(&mm); err != nil {
			s.stopped = err
			return err
		}
	}
	return nil
}

func (s *convertSink) Write(rec *folded.Record) error {
	s.line++
	if err := s.fn(rec, s.line, nil); err != nil {
		s.stopped = err
		return err
	}
	return nil
}

// done ends a conversion: its messages said when it was read whole.
func (s *convertSink) done(err error, h *held, warnf func(string, ...any)) (Scanned, error) {
	sc := Scanned{Metas: s.metas}
	switch {
	case s.stopped == ErrStop:
		return sc, nil
	case s.stopped != nil:
		return sc, s.stopped
	case err == nil:
		h.say(warnf)
	}
	return sc, err
}

// bpftraceFold gives the stacks of the bpftrace map dump in to add, as
// they are read (see Bpftrace).
func bpftraceFold(in *source.Input, opt bpftrace.Options, add func(*folded.Record) error, warnf func(string, ...any)) error {
	rc, err := in.Open()
	if err != nil {
		return err
	}
	defer rc.Close()
	sum, err := bpftrace.Fold(rc, in.Display, opt, add)
	if err != nil {
		return err
	}
	return bpftraceSummary(in, opt, sum, warnf)
}

var _ pprof.Sink = (*convertSink)(nil)
var _ collapse.Records = (*recordScan)(nil)
