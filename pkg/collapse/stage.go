package collapse

import (
	"io"
	"strconv"

	"flamekit/pkg/folded"
	"flamekit/pkg/sample"
)

// Summary is what a Stage read and wrote.
type Summary struct {
	Samples int64   // samples written (or summed)
	Weight  float64 // sum of their weights, in the output's unit
	Timed   bool    // timed output was written
}

// Stage is the collapse stage of one run: the decisions taken from the
// first samples, the stages that need input order, and the output. See
// the package documentation for its two uses.
type Stage struct {
	// Warnf prints a message on standard error (may be nil).
	Warnf func(format string, args ...any)
	// Notef prints Perl's "Filtering for events of type: X" line as is
	// (may be nil).
	Notef func(format string, args ...any)

	w   io.Writer
	opt Options
	inl *inliner

	// Reader side (Prescan, NewBatch).
	d         decisions
	timedSet  bool
	needFirst bool // Prescan has not seen the current input's first sample

	// Merge side.
	workers  []*Worker
	in       *input
	seq      *Worker // for Add
	seqBatch *Batch
	seqFirst bool // Add has not seen the current input's first sample
	samples  int64
	weight   int64
	noted    bool
	buf      []byte
	err      error
}

// input is the merge side's view of one input.
type input struct {
	capture *sample.Capture
	source  string
	started bool // the opening metadata line was written
	span    folded.Span
	samples int64
	event   string // for the closing metadata line
}

// New returns a Stage writing to w with the options opt.
func New(w io.Writer, opt Options) *Stage {
	st := &Stage{w: w, opt: opt, needFirst: true}
	if opt.EventFilter != "" {
		st.d.filter, st.d.filterKnown = []byte(opt.EventFilter), true
	} else {
		st.d.defaulted = true
	}
	if opt.Inline {
		st.inl = newInliner(opt.Context, st.warn)
	}
	return st
}

func (st *Stage) warn(format string, args ...any) {
	if st.Warnf != nil {
		st.Warnf(format, args...)
	}
}

// Worker returns a new Worker of the stage, for one goroutine.
func (st *Stage) Worker() *Worker {
	w := &Worker{st: st, fold: folder{opt: &st.opt, inl: st.inl}, agg: newAggregator()}
	st.workers = append(st.workers, w)
	return w
}

// Prescan shows the stage a sample, in input order, before the Batch that
// will hold it is made (NewBatch): the first samples decide the default
// event (the first one seen, as in stackcollapse-perf.pl) and whether the
// output is timed (it is when the first sample has a time and
// Options.NoTime is false). It returns true while it needs more samples.
// Call StartPrescan before the first sample of each input.
func (st *Stage) Prescan(s *sample.Sample) bool {
	d := &st.d
	if st.needFirst {
		st.needFirst = false
		d.event = string(s.Event)
	}
	if !st.timedSet {
		st.timedSet = true
		d.timed = s.HasTime && !st.opt.NoTime
	}
	if !d.filterKnown && s.Event != nil && len(s.Payload) == 0 {
		d.filter, d.filterKnown = append([]byte(nil), s.Event...), true
	}
	if d.filterKnown {
		d.event = string(d.filter)
	}
	return st.PrescanWanted()
}

// PrescanWanted reports whether Prescan still wants samples.
func (st *Stage) PrescanWanted() bool {
	return st.needFirst || !st.timedSet || !st.d.filterKnown
}

// StartPrescan tells the reader side that the next sample given to
// Prescan is the first of a new input.
func (st *Stage) StartPrescan() {
	st.needFirst = true
	if st.d.filterKnown {
		st.d.event = string(st.d.filter)
	} else {
		st.d.event = ""
	}
}

// NewBatch returns an empty Batch carrying the decisions taken so far.
func (st *Stage) NewBatch() *Batch {
	b := &Batch{}
	b.reset(st.d)
	return b
}

// ResetBatch empties b for reuse, as NewBatch would return it.
func (st *Stage) ResetBatch(b *Batch) { b.reset(st.d) }

// Begin starts a new input on the merge side: the capture's facts (may
// be nil) and the input's name for the "source" metadata ("" for standard
// input). Batches merged until End belong to it.
func (st *Stage) Begin(c *sample.Capture, source string) {
	if c == nil {
		c = &sample.Capture{}
	}
	st.in = &input{capture: c, source: source}
	st.seqFirst = true
}

// Merge writes a Batch, in input order.
func (st *Stage) Merge(b *Batch) error {
	if st.in == nil {
		st.Begin(nil, "")
	}
	in := st.in
	if b.d.timed && !in.started {
		in.started = true
		st.buf = folded.AppendMeta(st.buf[:0], in.capture.Meta(b.d.event, in.source))
		st.write(st.buf)
	}
	in.event = b.d.event
	st.write(b.out)
	st.samples += b.samples
	st.weight = addSat(st.weight, b.weight)
	in.samples += b.samples
	in.span.Merge(b.span)
	if b.filterMsg != nil && !st.noted {
		st.noted = true
		if st.Notef != nil {
			st.Notef("Filtering for events of type: %s\n", b.filterMsg)
		}
	}
	return st.err
}

// End ends the current input: it writes the closing metadata line of timed
// output.
func (st *Stage) End() error {
	if st.seqBatch != nil {
		st.Merge(st.seqBatch)
		st.ResetBatch(st.seqBatch)
	}
	in := st.in
	if in == nil {
		return st.err
	}
	if in.started {
		m := &folded.Meta{}
		m.Set(folded.KeyEvent, in.event)
		in.span.SetMeta(m)
		m.Set(folded.KeySamples, strconv.FormatInt(in.samples, 10))
		m.Set(folded.KeySource, in.source)
		st.buf = folded.AppendMeta(st.buf[:0], m)
		st.write(st.buf)
	}
	st.in = nil
	return st.err
}

// Add folds one sample, for readers that deliver samples one at a time in
// input order: it does what Prescan, a Worker and Merge do in the parallel
// use. Call Begin before the first sample of each input and End after its
// last.
func (st *Stage) Add(s *sample.Sample) error {
	if st.seq == nil {
		st.seq = st.Worker()
	}
	if st.seqFirst {
		st.seqFirst = false
		st.StartPrescan()
	}
	if st.PrescanWanted() {
		st.Prescan(s)
		switch {
		case st.seqBatch == nil:
			st.seqBatch = st.NewBatch()
		case !st.seqBatch.d.same(&st.d):
			// The decisions changed: what was folded so far goes first.
			if !st.seqBatch.empty() {
				st.Merge(st.seqBatch)
			}
			st.ResetBatch(st.seqBatch)
		}
	}
	st.seq.Fold(st.seqBatch, s)
	if len(st.seqBatch.out) >= 256<<10 {
		st.Merge(st.seqBatch)
		st.ResetBatch(st.seqBatch)
	}
	return st.err
}

// Close writes the classic output (when the output is not timed) and
// returns what the stage read and wrote. It reports the first write error.
func (st *Stage) Close() (Summary, error) {
	if st.in != nil {
		st.End()
	}
	sum := Summary{Samples: st.samples, Weight: float64(st.weight), Timed: st.d.timed}
	if st.err == nil && !st.d.timed && len(st.workers) > 0 {
		aggs := make([]*aggregator, len(st.workers))
		for i, w := range st.workers {
			w.agg.sort() // a no-op when Worker.Done did it
			aggs[i] = w.agg
		}
		if err := writeMerged(st.w, aggs); err != nil {
			st.err = err
		}
	}
	return sum, st.err
}

// Err returns the first write error, if any.
func (st *Stage) Err() error { return st.err }

func (st *Stage) write(b []byte) {
	if st.err != nil || len(b) == 0 {
		return
	}
	if _, err := st.w.Write(b); err != nil {
		st.err = err
	}
}
