package window

import (
	"errors"

	"flamekit/pkg/filter/idle"
	"flamekit/pkg/filter/selection"
	"flamekit/pkg/folded"
)

// Sink receives the samples a Slicer keeps.
type Sink interface {
	Sample(rec *folded.Record) error
}

// SinkFunc adapts a function to a Sink.
type SinkFunc func(rec *folded.Record) error

// Sample calls f.
func (f SinkFunc) Sample(rec *folded.Record) error { return f(rec) }

// Options control what a Slicer keeps.
type Options struct {
	// Window selects the samples; nil keeps them all.
	Window *Window
	// NoIdle drops the samples of idle CPUs (see package idle).
	NoIdle bool
	// Dropped, when set, receives the timed samples of the window that
	// are not kept: those NoIdle drops and those Select does not select
	// (or cannot judge). They are time the capture recorded: a heat map
	// or the bursts widen their span to them and do not count their
	// seconds as not recorded.
	Dropped Sink
	// NeedTime skips classic and differential lines (counted in
	// Stats.Untimed) instead of passing them to the Sink.
	NeedTime bool
	// Select keeps only the samples it selects (--cpu, --pid, --tid,
	// --comm); nil keeps them all. Samples it cannot judge are counted in
	// Stats.NoField.
	Select *selection.Selection
}

// errUntimed is the reason given for the lines a Slicer skips because they
// have no time (Options.NeedTime).
var errUntimed = errors.New("line without a time: timeslice needs timed folded input (\"stack count @seconds\"); run stackcollapse without --no-time")

// Stats says what a Slicer read and kept.
type Stats struct {
	Inputs  int   // inputs read
	Used    int   // inputs that gave the Sink at least one timed sample
	Samples int64 // timed sample lines read
	Kept    int64 // timed samples given to the Sink
	Idle    int64 // samples in the window dropped as idle
	// Unselected counts the samples in the window that Options.Select
	// did not select; NoField those it could not judge, their lines
	// lacking the cpu=, pid= or tid= field it asks about.
	Unselected, NoField int64
	// Untimed counts the classic and differential lines skipped because
	// times are needed; Malformed the lines that are not folded lines.
	Untimed, Malformed folded.Skips
}

// Slicer reads inputs whole and gives the samples in the window to a Sink.
// Every line of every input is read: no guess about the order of samples
// not yet read decides what is kept, so captures concatenated in any order
// give the same samples as the same captures read one by one.
type Slicer struct {
	Opts  Options
	Sink  Sink
	Stats Stats
	idle  idle.Filter // --no-idle verdicts, per distinct stack
}

// Read reads one input whole. What it finds (metadata lines, the span of
// the samples) is recorded on the input.
func (s *Slicer) Read(in *Input) error {
	kept := s.Stats.Kept
	w := s.Opts.Window
	opened := func() {
		in.reset()
		s.Stats.Inputs++
		kept = s.Stats.Kept
	}
	// Kept counts the samples of all inputs; in.Kept this one's.
	sc := in.scan(scanOptions{}, opened, func(rec *folded.Record, line int, text []byte) error {
		if rec.Kind != folded.Timed {
			t := lineText(rec, text)
			in.Untimed.Note(in.Display, line, t, errUntimed)
			if s.Opts.NeedTime {
				s.Stats.Untimed.Note(in.Display, line, t, errUntimed)
				return nil
			}
			return s.keep(rec)
		}
		in.Seen.Add(rec.Time)
		in.Samples++
		s.Stats.Samples++
		if w == nil || w.Contains(rec.Time) {
			return s.keep(rec)
		}
		return nil
	})
	switch {
	case !sc.opened:
		return sc.err
	case sc.stopped != nil:
		return sc.stopped
	}
	err := sc.err
	s.Stats.Malformed.Merge(sc.skips)
	in.Metas = sc.metas
	in.Read = true
	if in.Kept = s.Stats.Kept - kept; in.Kept > 0 {
		s.Stats.Used++
	}
	return err
}

func (s *Slicer) keep(rec *folded.Record) error {
	switch s.Opts.Select.Match(rec) {
	case selection.Drop:
		s.Stats.Unselected++
		return s.drop(rec)
	case selection.Unknown:
		s.Stats.NoField++
		return s.drop(rec)
	}
	if s.Opts.NoIdle && s.idle.Is(rec.Stack) {
		s.Stats.Idle++
		return s.drop(rec)
	}
	if rec.Kind == folded.Timed {
		s.Stats.Kept++
	}
	return s.Sink.Sample(rec)
}

// drop gives a sample that is not kept to Options.Dropped, if timed.
func (s *Slicer) drop(rec *folded.Record) error {
	if s.Opts.Dropped != nil && rec.Kind == folded.Timed {
		return s.Opts.Dropped.Sample(rec)
	}
	return nil
}
