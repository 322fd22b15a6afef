package collapse

import (
	"bytes"

	"flamekit/pkg/folded"
	"flamekit/pkg/idle"
	"flamekit/pkg/sample"
)

// decisions are what the stage decided from the first samples of the
// input (see Stage.Prescan). A Batch carries a copy, so that a Worker folds
// with the decisions of its place in the input.
type decisions struct {
	timed       bool   // timed output (the first sample had a time)
	filter      []byte // the event kept; valid when filterKnown
	filterKnown bool
	defaulted   bool   // filter is the first event seen, not Options.EventFilter
	event       string // event named by the metadata of the current input
}

// same reports whether d and o would fold a sample alike.
func (d *decisions) same(o *decisions) bool {
	return d.timed == o.timed && d.filterKnown == o.filterKnown && string(d.filter) == string(o.filter) &&
		d.defaulted == o.defaulted && d.event == o.event
}

// Batch is what a Worker made of consecutive samples, on its way to
// Stage.Merge. Get one from Stage.NewBatch.
type Batch struct {
	d         decisions
	out       []byte // timed lines, in input order
	samples   int64  // samples kept
	weight    int64  // sum of their weights
	span      folded.Span
	filterMsg []byte // the first event dropped by the defaulted filter
}

// empty reports whether nothing was added to b.
func (b *Batch) empty() bool {
	return len(b.out) == 0 && b.samples == 0 && b.filterMsg == nil
}

// reset empties b for reuse with decisions d.
func (b *Batch) reset(d decisions) {
	*b = Batch{d: d, out: b.out[:0]}
}

// Worker applies the rules that need nothing but the sample itself: the
// naming rules, the event filter, weights and the idle filter. Each
// goroutine that folds samples owns one (Stage.Worker); its classic sums
// are merged once, by Stage.Close.
type Worker struct {
	st    *Stage
	fold  folder
	agg   *aggregator
	idle  idle.Filter
	stack []byte
}

// Fold applies the per-sample rules to s and adds the result to b.
func (w *Worker) Fold(b *Batch, s *sample.Sample) {
	d := &b.d
	period := int64(1)
	if len(s.Payload) == 0 {
		// stackcollapse-perf.pl sees the event and the period only when
		// the header line ends with "event:", which a tracepoint's
		// payload prevents: it never filters those.
		if s.Event != nil && d.filterKnown && !bytes.Equal(s.Event, d.filter) {
			if d.defaulted && b.filterMsg == nil {
				b.filterMsg = append([]byte(nil), s.Event...)
			}
			return
		}
		if s.HasPeriod && s.Period != 0 {
			period = s.Period
		}
	}
	st := w.fold.fold(w.stack[:0], s)
	w.stack = st
	if w.st.opt.NoIdle && w.idle.Is(st) {
		return
	}
	b.samples++
	b.weight = addSat(b.weight, period)
	if !d.timed {
		w.agg.add(st, period)
		return
	}
	rec := folded.Record{Stack: st, Count: float64(period), Kind: folded.Classic}
	if s.HasTime {
		rec.Kind, rec.Time = folded.Timed, s.Time
		if s.Time != 0 { // side-band records are stamped 0.000000
			b.span.Add(s.Time)
		}
	}
	b.out = folded.AppendRecord(b.out, &rec)
}

// Done tells the stage that the worker will fold no more samples. A
// goroutine that calls it when it runs out of work sorts the worker's
// classic sums in parallel with the other workers, rather than leaving it
// to Stage.Close.
func (w *Worker) Done() {
	w.agg.sort()
}

// SrclineCount returns how many source lines of `perf script -F+srcline`
// follow the frame line fr (see the function SrclineCount), knowing
// whether --inline expands it.
func (w *Worker) SrclineCount(fr *sample.Frame) int {
	inlined := false
	if w.fold.opt.Inline && w.fold.inl != nil && inlineEligible(fr.DSO) {
		res := w.fold.inl.resolve(fr.Addr, fr.Symbol, fr.DSO)
		inlined = res != "" && res != "??" && res != "??:??:0"
	}
	return SrclineCount(fr, inlined)
}
