package timeslice

import (
	"fmt"
	"io"
	"slices"

	"flamekit/pkg/folded"
	"flamekit/pkg/idle"
)

// DefaultSlack is how far out of order samples may be within one input
// while reading still starts just before the window and stops just after
// it. perf script prints samples in time order; a larger backward step
// makes the input be read whole.
const DefaultSlack = folded.Time(1e9)

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
	// Dropped, when set, receives the timed samples NoIdle drops (the
	// heat map widens its span to them).
	Dropped Sink
	// NeedTime refuses classic and differential lines (counted in
	// Stats.Untimed) instead of passing them to the Sink.
	NeedTime bool
	// Slack is the disorder tolerated while seeking; 0 means DefaultSlack.
	Slack folded.Time
}

// Skipped counts lines passed over, with where the first one was.
type Skipped struct {
	Count int64
	First string // "file:line: reason"
}

// add counts one more skipped line and reports whether it is the first,
// which the caller then describes in First. Only the first is kept, so
// the others are not formatted: a classic input given where times are
// needed skips every line.
func (s *Skipped) add() bool {
	s.Count++
	return s.Count == 1
}

// Stats says what a Slicer read and kept.
type Stats struct {
	Inputs    int   // inputs read
	Samples   int64 // sample lines read
	Kept      int64 // samples given to the Sink
	Idle      int64 // samples in the window dropped as idle
	Untimed   Skipped
	Malformed Skipped
	// BytesRead counts the uncompressed bytes read, including heads and
	// probes.
	BytesRead int64
	// Disordered lists the inputs found out of time order, which were
	// read whole.
	Disordered []string
	// Seeked lists the inputs where reading started at an offset found by
	// binary search, and Stopped those where it stopped after the window.
	Seeked, Stopped []string
}

// Slicer reads inputs and gives the samples in the window to a Sink.
type Slicer struct {
	Opts  Options
	Sink  Sink
	Stats Stats
	rec   folded.Record // reused for every line
	idle  idle.Filter   // --no-idle verdicts, per distinct stack
}

// span is the span of the samples read from an input, for messages.
type span struct {
	first, last folded.Time
	ok          bool
}

func (s *span) add(t folded.Time) {
	if !s.ok || t < s.first {
		s.first = t
	}
	if !s.ok || t > s.last {
		s.last = t
	}
	s.ok = true
}

func (s *Slicer) slack() folded.Time {
	if s.Opts.Slack > 0 {
		return s.Opts.Slack
	}
	return DefaultSlack
}

// order watches the times of one read for disorder and decides when the
// rest of the input cannot hold samples of the window.
type order struct {
	max        folded.Time
	seen       bool
	disordered bool
}

// Read reads one probed input and closes it.
func (s *Slicer) Read(in *Input) (err error) {
	defer func() {
		if cerr := in.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("%s: %w", in.Display, cerr)
		}
	}()
	s.Stats.Inputs++
	s.Stats.BytesRead += in.headRead
	switch in.mode {
	case modeStream:
		var o order
		// The lines consumed by Probe.
		for _, p := range in.pending {
			at := *in.lr
			at.line = p.n
			if _, err := s.line(in, &at, p.text, &o, false); err != nil {
				return err
			}
		}
		in.pending = nil
		return s.scan(in, in.lr, &o, true)
	case modeReopen:
		rc, err := folded.Open(in.Name)
		if err != nil {
			return err
		}
		in.closer = rc
		lr := newLineReader(rc, 256<<10, 0)
		var o order
		return s.scan(in, lr, &o, true)
	case modeSeek:
		return s.readSeek(in)
	}
	return nil
}

// scan reads lines until the end of the input or, when allowed and the
// input is in order, until the window is over.
func (s *Slicer) scan(in *Input, lr *lineReader, o *order, canStop bool) error {
	defer func() { s.Stats.BytesRead += lr.read }()
	for {
		line, err := lr.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			// A truncated gzip stream is already named so by
			// folded.Decompress (modeSeek inputs are not gzipped).
			return fmt.Errorf("%s: %w", lr.where(in.Display), err)
		}
		stop, err := s.line(in, lr, line, o, canStop)
		if err != nil {
			return err
		}
		if stop {
			s.Stats.Stopped = append(s.Stats.Stopped, in.Display)
			if in.Name == "-" {
				// Standard input is a pipe: drain it unparsed, or the
				// writer (stackcollapse) dies of SIGPIPE and a pipeline
				// run with pipefail fails although nothing went wrong.
				io.Copy(io.Discard, lr.br)
			}
			return nil
		}
	}
}

// line handles one line; it reports whether reading can stop.
func (s *Slicer) line(in *Input, lr *lineReader, line []byte, o *order, canStop bool) (bool, error) {
	if folded.IsMeta(line) || isComment(line) {
		return false, nil
	}
	rec := &s.rec
	if err := folded.ParseLine(line, rec); err != nil {
		if err == folded.ErrBlank {
			return false, nil
		}
		if s.Stats.Malformed.add() {
			s.Stats.Malformed.First = fmt.Sprintf("%s: %v: %s", lr.where(in.Display), err, folded.QuoteLine(line))
		}
		return false, nil
	}
	if rec.Kind != folded.Timed {
		if s.Opts.NeedTime {
			if s.Stats.Untimed.add() {
				s.Stats.Untimed.First = fmt.Sprintf("%s: untimed %v line %s", lr.where(in.Display), rec.Kind, folded.QuoteLine(line))
			}
			return false, nil
		}
		return false, s.keep(rec)
	}
	s.Stats.Samples++
	in.seen.add(rec.Time)
	t := rec.Time
	if o.seen && t < o.max-s.slack() {
		o.disordered = true
	}
	if !o.seen || t > o.max {
		o.max = t
	}
	o.seen = true
	w := s.Opts.Window
	if w == nil || w.Contains(t) {
		return false, s.keep(rec)
	}
	return canStop && w.HasTo && !o.disordered && t >= w.To+s.slack(), nil
}

func (s *Slicer) keep(rec *folded.Record) error {
	if s.Opts.NoIdle && s.idle.Is(rec.Stack) {
		s.Stats.Idle++
		if s.Opts.Dropped != nil && rec.Kind == folded.Timed {
			return s.Opts.Dropped.Sample(rec)
		}
		return nil
	}
	if rec.Kind == folded.Timed {
		s.Stats.Kept++
	}
	return s.Sink.Sample(rec)
}

// readSeek reads an uncompressed file. With a window, it first checks
// the file is in time order at its head, its tail and a few points between
// (a file made by cat later.folded earlier.folded is not); then, when the
// window starts well after the first sample, it finds where to start by a
// binary search on byte offsets, and it stops reading once past the
// window. Disorder seen on the way makes it read the rest, and then the
// part it had skipped; a file found out of order is read whole.
func (s *Slicer) readSeek(in *Input) error {
	w := s.Opts.Window
	var start int64
	canStop := w != nil && w.HasTo
	if w != nil && (w.HasFrom || w.HasTo) && !in.Empty {
		probes, ok, err := s.survey(in)
		if err != nil {
			return err
		}
		if !ok {
			s.Stats.Disordered = append(s.Stats.Disordered, in.Display)
			canStop = false
		} else if w.HasFrom && in.HasFirstSeen && in.FirstSeen < w.From-s.slack() {
			off, ok, err := s.search(in, w.From-s.slack(), probes)
			if err != nil {
				return err
			}
			if ok {
				start = off
			} else {
				s.Stats.Disordered = append(s.Stats.Disordered, in.Display)
				canStop = false
			}
		}
	}
	if start <= in.headEnd {
		start = 0 // the head is small: read it, and keep line numbers
	}
	if start > 0 {
		s.Stats.Seeked = append(s.Stats.Seeked, in.Display)
	}
	lr := newLineReader(io.NewSectionReader(in.ra, start, in.size-start), 256<<10, start)
	var o order
	if err := s.scan(in, lr, &o, canStop); err != nil {
		return err
	}
	if o.disordered && canStop && !slices.Contains(s.Stats.Disordered, in.Display) {
		s.Stats.Disordered = append(s.Stats.Disordered, in.Display)
	}
	if o.disordered && start > 0 {
		// Out of order: what came before the starting point may hold
		// samples of the window too.
		lr := newLineReader(io.NewSectionReader(in.ra, 0, start), 256<<10, 0)
		var o order
		return s.scan(in, lr, &o, false)
	}
	return nil
}

type probe struct {
	off int64
	t   folded.Time
}

// surveyPoints is the number of evenly spaced probes that check the order
// of an uncompressed file before it is searched.
const surveyPoints = 16

// survey probes the head, the tail and surveyPoints points between; ok is
// false when their times are out of order (beyond the slack).
func (s *Slicer) survey(in *Input) ([]probe, bool, error) {
	if !in.HasLastSeen {
		if err := in.readTail(); err != nil {
			return nil, false, err
		}
		s.Stats.BytesRead += in.headRead
		in.headRead = 0
	}
	var probes []probe
	if in.HasFirstSeen {
		probes = append(probes, probe{in.headEnd, in.FirstSeen})
	}
	span := in.size - in.headEnd
	for i := int64(1); i <= surveyPoints && span > 0; i++ {
		p, found, err := s.probeAt(in, in.headEnd+span*i/(surveyPoints+1), in.size)
		if err != nil {
			return nil, false, err
		}
		if found && p.off > probes[len(probes)-1].off {
			probes = append(probes, p)
		}
	}
	if in.HasLastSeen {
		probes = append(probes, probe{in.size, in.LastSeen})
	}
	for i := 1; i < len(probes); i++ {
		if probes[i].t < probes[i-1].t-s.slack() {
			return probes, false, nil
		}
	}
	return probes, true, nil
}

// search finds the offset of a sample line earlier than target, as late
// as a binary search on byte offsets finds it (within 256 KiB), starting
// from the survey's probes (in offset order). ok is false when the probes
// show the file is out of order.
func (s *Slicer) search(in *Input, target folded.Time, probes []probe) (off int64, ok bool, err error) {
	const near = 256 << 10
	lo, hi := in.headEnd, in.size
	for _, p := range probes {
		if p.t < target {
			lo = max(lo, p.off)
		} else if p.off > lo {
			hi = min(hi, p.off)
		}
	}
	for hi-lo > near {
		mid := lo + (hi-lo)/2
		p, found, err := s.probeAt(in, mid, hi)
		if err != nil {
			return 0, false, err
		}
		if !found {
			hi = mid
			continue
		}
		for _, q := range probes {
			if q.off < p.off && q.t > p.t+s.slack() || q.off > p.off && q.t < p.t-s.slack() {
				return 0, false, nil
			}
		}
		probes = append(probes, p)
		if p.t < target {
			lo = p.off
		} else {
			hi = p.off
		}
	}
	return lo, true, nil
}

// probeAt returns the first timed line that starts after offset at (the
// line containing at is skipped) and before hi.
func (s *Slicer) probeAt(in *Input, at, hi int64) (probe, bool, error) {
	lr := newLineReader(io.NewSectionReader(in.ra, at, in.size-at), 16<<10, at)
	defer func() { s.Stats.BytesRead += lr.read }()
	if _, err := lr.next(); err != nil { // the partial line
		if err == io.EOF {
			return probe{}, false, nil
		}
		return probe{}, false, fmt.Errorf("%s: %w", in.Display, err)
	}
	for {
		line, err := lr.next()
		if err == io.EOF {
			return probe{}, false, nil
		}
		if err != nil {
			return probe{}, false, fmt.Errorf("%s: %w", in.Display, err)
		}
		if lr.lineOff >= hi {
			return probe{}, false, nil
		}
		var rec folded.Record
		if folded.IsMeta(line) || isComment(line) || folded.ParseLine(line, &rec) != nil || rec.Kind != folded.Timed {
			continue
		}
		return probe{lr.lineOff, rec.Time}, true, nil
	}
}

// Seen returns the span of the samples read from in.
func (s *Slicer) Seen(in *Input) (first, last folded.Time, ok bool) {
	if in.seen.ok {
		return in.seen.first, in.seen.last, true
	}
	return 0, 0, false
}
