package timeslice

import (
	"math"
	"slices"
	"strings"

	"flamekit/pkg/filter/idle"
	"flamekit/pkg/filter/selection"
	"flamekit/pkg/filter/window"
	"flamekit/pkg/folded"
	"flamekit/pkg/timeline"
	"flamekit/pkg/timeline/gaps"
	"flamekit/pkg/tool/slicecmd"
	"flamekit/pkg/view/bursts"
	"flamekit/pkg/view/explorer"
	"flamekit/pkg/view/heatmap"
)

// busy is the sink of --heatmap and --bursts: it counts samples in the
// heat map (when there is one) and the busy ones in the bursts' series,
// both counting seconds from the origin it takes when the first sample
// comes: the capture's first sample as known before reading (from the
// heads of files, or a first reading), or that sample when it is earlier.
// dropped receives the idle samples --no-idle drops. The explorer page's
// busy (derived) keeps only the origin and the times seen: its bursts'
// series is derived from the page's timeline (bursts.SeriesOf).
type busy struct {
	rows int
	heat bool
	// weights: the heat map sums the samples' counts (off-CPU time) in
	// unit, rather than counting samples.
	weights bool
	unit    string
	noIdle  bool // the Slicer drops idle samples (and gives them to dropped)
	guess   folded.Time
	known   bool // guess is set
	derived bool // no series: the page derives it from its timeline

	started bool
	origin  folded.Time
	hm      *heatmap.Map
	series  *bursts.Series
	idle    idle.Filter
	seen    *gaps.Finder // every sample's time, for the parts not recorded
	// shareOf tells the samples the share map counts too (nil: none).
	shareOf func(stack []byte) bool
	share   *heatmap.Map
}

// shareMap returns the map of the samples shareOf counts (an empty one
// when none came).
func (b *busy) shareMap() *heatmap.Map {
	if b.share == nil {
		b.share = heatmap.New(b.rows, b.heatmap().Origin())
	}
	return b.share
}

// newBusy returns the sink; guess is the first sample as known before
// reading (known), from the inputs' heads or an earlier reading.
func newBusy(rows int, heat, noIdle bool, guess folded.Time, known bool) *busy {
	return &busy{rows: rows, heat: heat, noIdle: noIdle, guess: guess, known: known}
}

func (b *busy) start(t folded.Time) {
	if b.started {
		return
	}
	b.origin = t
	if b.known && b.guess < t {
		b.origin = b.guess
	}
	b.started = true
	switch {
	case b.derived:
	case b.heat: // the marks name processes: no stacks kept
		b.series = bursts.NewProcessSeries(b.origin, 0)
	default:
		b.series = bursts.NewSeries(b.origin, 0)
	}
	b.seen = gaps.NewFinder()
	if b.heat {
		b.hm = heatmap.New(b.rows, b.origin)
	}
}

// Sample takes a sample the Slicer kept.
func (b *busy) Sample(rec *folded.Record) error {
	if rec.Kind != folded.Timed {
		return nil
	}
	b.start(rec.Time)
	b.seen.Add(rec.Time)
	if b.hm != nil {
		n := uint64(1)
		if b.weights {
			n = uint64(math.Round(max(rec.Count, 0)))
		}
		b.hm.AddN(rec.Time, n)
		if b.shareOf != nil && b.shareOf(rec.Stack) {
			b.shareMap().AddN(rec.Time, n)
		}
	}
	if b.series == nil {
		return nil
	}
	if !b.noIdle && b.idle.Is(rec.Stack) {
		b.series.Cover(rec.Time)
		return nil
	}
	b.series.AddRecord(rec)
	return nil
}

// dropped takes an idle sample --no-idle dropped.
func (b *busy) dropped(rec *folded.Record) error {
	b.start(rec.Time)
	b.seen.Add(rec.Time)
	if b.hm != nil {
		b.hm.Cover(rec.Time)
	}
	if b.series != nil {
		b.series.Cover(rec.Time)
	}
	return nil
}

// heatmap returns the heat map (an empty one when no sample came).
func (b *busy) heatmap() *heatmap.Map {
	if b.hm == nil {
		b.hm = heatmap.New(b.rows, b.guess)
	}
	return b.hm
}

// unrecorded returns the parts of the inputs' time that were not recorded,
// and the rule that found them (see package gaps): time between the spans
// their captures' metadata declare and, for system-wide timer captures,
// stretches without any sample.
func (b *busy) unrecorded(inputs window.Inputs) ([]gaps.Span, gaps.Rule) {
	var metas []folded.Meta
	for _, in := range inputs {
		metas = append(metas, in.Metas...)
	}
	rule := gaps.RuleFor(metas, b.seen)
	out := gaps.Between(gaps.Spans(metas), rule.Min)
	if rule.Samples && b.seen != nil {
		out = append(out, b.seen.Gaps(rule.Min)...)
	}
	return gaps.Merge(out), rule
}

// found is a burst and its top processes and stacks.
type found struct {
	bursts.Burst
	procs, top []bursts.Share
}

// topStacks is the number of stacks named per burst.
const topStacks = 3

// find finds the bursts of series (nil: no sample came) and their top
// processes and stacks, exactly: from the entries of tl in the bursts'
// windows when the run built a timeline that keeps the samples' stacks
// (the explorer page's, of which the series is made; nil: none), from
// the series itself for the heat map's marks (a series of processes:
// the marks name no stacks), else by
// reading the inputs that hold a burst a second time (streams from the
// copy Survey kept), every sample of a burst's window that the run's
// selection keeps (--cpu, --pid, --tid, --comm) counted per stack. Memory
// is the distinct stacks of the windows.
func (c *run) find(series *bursts.Series, inputs window.Inputs, unrecorded []gaps.Span, tl *timeline.Timeline) (bursts.Result, []found, error) {
	if series == nil {
		return bursts.Result{}, nil, nil
	}
	if err := series.Err(); err != nil {
		return bursts.Result{}, nil, err
	}
	res := series.Find(bursts.Options{Measure: c.Measure, Threshold: c.Threshold, Max: c.Top, Unrecorded: unrecorded})
	if len(res.Bursts) == 0 {
		return res, nil, nil
	}
	var tally *bursts.Tally
	ok := false
	if tl != nil {
		tally, ok = bursts.TallyOf(tl, res.Bursts, res.Measure, busyEntries(tl))
	} else if c.Heatmap != NoHeatmap {
		// The marks name processes, which the series keeps.
		tally, ok = series.Tally(res.Bursts, res.Measure)
	}
	if !ok {
		var err error
		if tally, err = reread(res, inputs, c.Select); err != nil {
			return res, nil, err
		}
	}
	out := make([]found, len(res.Bursts))
	srcs := sources(inputs)
	for i, br := range res.Bursts {
		all := tally.Top(i, -1)
		f := found{Burst: br, procs: bursts.ByProcess(all, topStacks), top: all[:min(len(all), topStacks)]}
		f.Command = burstCommand(&f, srcs, c.Select, nil)
		f.Rises = slices.Clone(f.Rises)
		for k := range f.Rises {
			f.Rises[k].Command = burstCommand(&f, srcs, c.Select, &f.Rises[k])
		}
		res.Bursts[i] = f.Burst
		out[i] = f
	}
	return res, out, nil
}

// busyEntries returns what accepts the entries of tl whose stacks are not
// idle (explorer.IdleStacks, as the page decides).
func busyEntries(tl *timeline.Timeline) func(*timeline.Entry) bool {
	idle := explorer.IdleStacks(tl)
	return func(e *timeline.Entry) bool { return !idle[e.Stack] }
}

// reread tallies the stacks of the bursts' windows by reading the inputs
// that hold them again, keeping the samples sel selects (nil: all) as the
// first reading did.
func reread(res bursts.Result, inputs window.Inputs, sel *selection.Selection) (*bursts.Tally, error) {
	tally := bursts.NewTally(res.Bursts, res.Measure)
	again := &window.Slicer{Opts: window.Options{NoIdle: true, NeedTime: true, Select: sel},
		Sink: window.SinkFunc(func(rec *folded.Record) error {
			tally.Add(rec)
			return nil
		})}
	for _, in := range inputs {
		holds := false
		for _, br := range res.Bursts {
			holds = holds || in.Seen.OK && in.Seen.First < br.To && in.Seen.Last >= br.From
		}
		if !holds {
			continue
		}
		// Reading again finds the same metadata and span; only the count
		// of samples kept is the second reading's.
		kept := in.Kept
		err := again.Read(in)
		in.Kept = kept
		if err != nil {
			return nil, err
		}
	}
	return tally, nil
}

// sources returns the inputs as the handed-back commands name them:
// absolute paths, quoted for the shell, or "-" for standard input, with
// the span of their samples.
func sources(inputs window.Inputs) []heatmap.Source {
	var out []heatmap.Source
	for _, in := range inputs {
		if in.Read && !in.Seen.OK {
			continue // no timed sample: no window needs it
		}
		src := heatmap.Source{Arg: slicecmd.Input(in.Name)}
		src.First, src.Last, src.HasSpan = in.Seen.First, in.Seen.Last, in.Seen.OK
		out = append(out, src)
	}
	return out
}

// burstCommand returns the timeslice command that cuts a burst from the
// inputs that hold it, with the selection the burst was found under (sel:
// --cpu, --pid, --tid, --comm) and, for a key that rose in it (nil: none),
// what keeps that key's samples: --comm or --tid, or stackfilter --focus
// for a function.
func burstCommand(f *found, srcs []heatmap.Source, sel *selection.Selection, r *bursts.Rise) string {
	var names, all []string
	for _, src := range srcs {
		all = append(all, src.Arg)
		if !src.HasSpan || src.First < f.To && src.Last >= f.From {
			names = append(names, src.Arg)
		}
	}
	if len(names) == 0 {
		names = all
	}
	args := " --no-idle"
	for _, a := range sel.Flags() {
		args += " " + slicecmd.Quote(a)
	}
	if r != nil {
		return slicecmd.Key(f.From, f.To, args, slicecmd.KeyKind(r.Kind), r.Name, r.TID, strings.Join(names, " "))
	}
	return slicecmd.Range(f.From, f.To, args+" "+strings.Join(names, " "))
}
