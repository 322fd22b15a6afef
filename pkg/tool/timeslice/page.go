package timeslice

import (
	"fmt"
	"runtime"
	"strings"

	"flamekit/pkg/filter/window"
	"flamekit/pkg/folded"
	"flamekit/pkg/timeline"
	"flamekit/pkg/tool"
	"flamekit/pkg/tool/slicecmd"
	"flamekit/pkg/view/bursts"
	"flamekit/pkg/view/explorer"
)

// page is the sink of --heatmap=html: every sample goes to the timeline
// the page is made of, whose cells start where the heat map's do (busy's
// origin, known at the first sample), and its time to busy's record of
// the times seen (for the parts not recorded). The bursts' series is
// derived from the timeline once read (bursts.SeriesOf): one model (but
// for --rows that are not a multiple of 10, whose cells make no 100 ms
// bins: busy then feeds a series too). Idle samples are kept: the page
// leaves them out or not.
type page struct {
	busy *busy
	rows int
	b    *timeline.Builder
	cur  int      // the input being read
	made int      // inputs declared to the builder
	ins  []string // their names
	// budget is the most entries the builder holds (the page's).
	budget int
}

// input says that the samples that follow are input i's.
func (p *page) input(i int) {
	p.cur = i
	p.declare()
}

func (p *page) declare() {
	for p.b != nil && p.made <= p.cur {
		p.b.Input(p.ins[p.made], "", 0)
		p.made++
	}
}

// dropped takes a sample the selection (--cpu, --pid, --tid, --comm)
// left out: its time was recorded, so the page's span and its record of
// the times seen include it, though no cell counts it.
func (p *page) dropped(rec *folded.Record) error {
	if err := p.busy.dropped(rec); err != nil {
		return err
	}
	p.builder()
	return p.b.Cover(rec.Time)
}

// builder makes the page's timeline builder once the origin is known.
func (p *page) builder() {
	if p.b == nil {
		p.b = newPageBuilder(p.rows, p.busy.origin, true, p.budget)
		p.declare()
	}
}

// newPageBuilder returns the builder of the page's timeline: its cells
// from origin, the samples' times for the flame chart while they are few,
// and at most the page's budget of entries whatever the samples (see
// timeline.Reduced).
func newPageBuilder(rows int, origin folded.Time, has bool, budget int) *timeline.Builder {
	return timeline.NewBuilder(timeline.Options{Rows: rows, Origin: origin, HasOrigin: has,
		Times: explorer.MaxTimes, Budget: budget})
}

// Sample takes a sample the Slicer kept.
func (p *page) Sample(rec *folded.Record) error {
	if err := p.busy.Sample(rec); err != nil || rec.Kind != folded.Timed {
		return err
	}
	p.builder()
	return p.b.Add(rec)
}

// pageOutput reads the samples into a timeline and, once every input has
// been read, finds the bursts and writes the page.
func (c *run) pageOutput(env *tool.Env, s *window.Slicer, inputs window.Inputs, win *window.Window) func(*window.Clock) error {
	before := inputs.Clock()
	b := newBusy(c.Rows, false, false, before.Origin, before.HasOrigin)
	// The bursts' series is the timeline's when its cells make bins of
	// 100 ms (--rows 10, 20, 50, 100 …); other rows feed one beside it,
	// so that bursts are placed to 100 ms whatever the heat map's rows.
	b.derived = c.Rows%bursts.DefaultBins == 0
	b.weights, b.unit = c.heatWeights(inputs) // off-CPU time: cells sum µs
	c.busy = b
	p := &page{busy: b, rows: c.Rows, budget: explorer.DefaultBudget}
	if c.pageBudget > 0 {
		p.budget = c.pageBudget
	}
	for _, in := range inputs {
		p.ins = append(p.ins, in.Display)
	}
	c.page = p
	s.Opts.NoIdle = false // the page leaves idle samples out, or not
	s.Sink = p
	s.Opts.Dropped = window.SinkFunc(p.dropped)
	return func(clock *window.Clock) error {
		if p.b == nil {
			p.b = newPageBuilder(c.Rows, clock.Origin, clock.HasOrigin, p.budget)
		}
		p.cur = len(inputs) - 1
		p.declare()
		files := make([]string, len(inputs))
		for i, in := range inputs {
			p.b.SetMetas(i, in.Metas)
			files[i] = slicecmd.Input(in.Name)
		}
		tl := p.b.Build()
		p.b = nil
		// The builder's chunks of entries were copied into tl's and are
		// garbage: collect them now, so that what follows (the bursts,
		// the page) reuses their memory instead of growing the heap
		// towards twice the peak of the copy (the collector's goal).
		runtime.GC()
		if c.NoIdle {
			// the page leaves idle samples out as it opens: the summary
			// counts them as --heatmap (svg) drops them
			s.Stats.Idle = idleSamples(tl)
			s.Stats.Kept -= s.Stats.Idle
		}
		// The bursts' series and stacks are the page's timeline's, its
		// busy samples by process: no second model, no second reading.
		series := b.series
		var notes []string
		if b.started && b.derived {
			var ok bool
			if series, ok = bursts.SeriesOf(tl, busyEntries(tl)); !ok {
				if tl.Reduced == nil {
					return fmt.Errorf("timeslice: the page's timeline of %d cells a second makes no bins of 100 ms", tl.Rows)
				}
				// the budget widened the cells past the bursts' bins
				notes = append(notes, "Bursts were not searched: this page's cells are wider than their bins of 100 ms. timeslice --bursts over the same files finds them.")
			}
		}
		unrec, _ := b.unrecorded(inputs) // time not recorded is not quiet
		res, fs, err := c.find(series, inputs, unrec, tl)
		if err != nil {
			return err
		}
		info := c.heatInfo(inputs, win, clock, sources(inputs))
		o := explorer.Options{
			Title: "Profile explorer: " + strings.TrimPrefix(info.Title, "Heat map of "),
			Notes: append(info.Notes, notes...), Files: files, Select: c.Select.Flags(), NoIdle: c.NoIdle, Unit: info.Unit, Weights: info.Unit != "",
			Marks: marks(res, fs, clock), Wall: info.Wall, WallEstimated: info.WallEstimated, Picture: info,
		}
		if m, ok, _ := inputs.Measure(); ok {
			o.CountUnit = m.Unit
		}
		st, err := explorer.Write(env.Stdout, tl, o)
		if err == nil && !c.Quiet {
			env.Warnf("explorer page: %d samples, %d stacks, %d cells × keys, %.1f MB", tl.Samples, st.Stacks, st.Entries, float64(st.PageBytes)/1e6)
			if r := tl.Reduced; r != nil && r.Cap > 0 {
				env.Warnf("explorer page: aggregated to fit its budget: cells of %s keeping their %d heaviest stacks, %d samples summed per process as [other stacks]; cut a window (--from, --to) for every stack", cellWidth(tl), r.Cap, r.Other)
			}
		}
		return err
	}
}

// idleSamples counts the samples of tl's idle stacks (explorer.IdleStacks,
// as the page decides).
func idleSamples(tl *timeline.Timeline) int64 {
	idle := explorer.IdleStacks(tl)
	var n int64
	for i := range tl.Entries {
		if e := &tl.Entries[i]; idle[e.Stack] {
			n += int64(e.Samples)
		}
	}
	return n
}

// cellWidth names the width of tl's cells: "20 ms", "1 s", "10 s".
func cellWidth(tl *timeline.Timeline) string {
	if tl.Seconds > 1 || tl.Rows == 1 {
		return fmt.Sprintf("%d s", max(tl.Seconds, 1))
	}
	return fmt.Sprintf("%g ms", 1000/float64(tl.Rows))
}
