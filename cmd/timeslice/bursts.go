package main

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"time"

	"flamekit/internal/cli"
	"flamekit/pkg/bursts"
	"flamekit/pkg/folded"
	"flamekit/pkg/heatmap"
	"flamekit/pkg/idle"
	"flamekit/pkg/timeslice"
)

// busy is the sink of --heatmap and --bursts: it counts samples in the
// heat map (when there is one) and the busy ones in the bursts' series.
// Dropped receives the idle samples --no-idle drops.
type busy struct {
	hm     *heatmap.Map
	series *bursts.Series
	sketch *bursts.Sketch // standard input: it cannot be read twice
	idle   idle.Filter
	noIdle bool // the Slicer drops idle samples (and gives them to Dropped)
}

func newBusy(origin folded.Time, rows int, heat, stdin bool, noIdle bool, m bursts.Measure) *busy {
	b := &busy{series: bursts.NewSeries(origin, 0), noIdle: noIdle}
	if heat {
		b.hm = heatmap.New(rows, origin)
	}
	if stdin {
		b.sketch = bursts.NewSketch(origin, 0, m)
	}
	return b
}

// Sample takes a sample the Slicer kept.
func (b *busy) Sample(rec *folded.Record) error {
	if rec.Kind != folded.Timed {
		return nil
	}
	if b.hm != nil {
		b.hm.Add(rec.Time)
	}
	if !b.noIdle && b.idle.Is(rec.Stack) {
		b.series.Cover(rec.Time)
		return nil
	}
	b.series.Add(rec.Time, rec.Count)
	if b.sketch != nil {
		b.sketch.Add(rec)
	}
	return nil
}

// dropped takes an idle sample --no-idle dropped.
func (b *busy) dropped(rec *folded.Record) error {
	if b.hm != nil {
		b.hm.Cover(rec.Time)
	}
	b.series.Cover(rec.Time)
	return nil
}

// found is a burst and its top processes and stacks.
type found struct {
	bursts.Burst
	procs, top []bursts.Share
	approx     bool // from the one-pass sketch, of whole seconds
}

// topStacks is the number of stacks named per burst.
const topStacks = 3

// find finds the bursts and their top stacks: exactly, by reading the
// windows of the bursts again from the files that hold them (the same
// reading timeslice --from --to does), or from the sketch when an input
// was standard input.
func (c *command) find(b *busy, inputs timeslice.Inputs, s *timeslice.Slicer) (bursts.Result, []found, error) {
	res := b.series.Find(bursts.Options{Measure: c.measure(), Threshold: c.Threshold, Max: c.Top})
	out := make([]found, len(res.Bursts))
	for i, br := range res.Bursts {
		out[i].Burst = br
	}
	if len(res.Bursts) == 0 {
		return res, out, nil
	}
	if b.sketch != nil {
		for i := range out {
			all := b.sketch.Top(out[i].From, out[i].To, -1, res.Measure)
			out[i].procs = bursts.ByProcess(all, topStacks)
			out[i].top = all[:min(len(all), topStacks)]
			out[i].approx = true
		}
		return res, out, nil
	}
	tally := bursts.NewTally(res.Bursts, res.Measure)
	for i, br := range res.Bursts {
		win := &timeslice.Window{From: br.From, To: br.To, HasFrom: true, HasTo: true}
		var names []string
		for _, in := range inputs {
			if first, last, ok := spanOf(in, s); !ok || first < br.To && last >= br.From {
				names = append(names, in.Name)
			}
		}
		again, err := timeslice.ProbeAll(names, nil)
		if err != nil {
			return res, nil, err
		}
		one := &timeslice.Slicer{Opts: timeslice.Options{Window: win, NoIdle: true, NeedTime: true},
			Sink: timeslice.SinkFunc(func(rec *folded.Record) error {
				if rec.Kind == folded.Timed {
					tally.Add(rec)
				}
				return nil
			})}
		for _, in := range again.Select(win) {
			if err := one.Read(in); err != nil {
				again.Close()
				return res, nil, err
			}
		}
		again.Close()
		all := tally.Top(i, -1)
		out[i].procs = bursts.ByProcess(all, topStacks)
		out[i].top = all[:min(len(all), topStacks)]
	}
	return res, out, nil
}

func (c *command) measure() bursts.Measure {
	switch c.Measure {
	case "samples":
		return bursts.Samples
	case "weight":
		return bursts.Weight
	}
	return bursts.Auto
}

// spanOf returns the span of the samples read from in, or its declared
// span.
func spanOf(in *timeslice.Input, s *timeslice.Slicer) (first, last folded.Time, ok bool) {
	if s != nil {
		if f, l, ok := s.Seen(in); ok {
			return f, l, true
		}
	}
	first, last, _, ok = in.Span()
	return first, last, ok
}

// sources returns the inputs as the handed-back commands name them:
// absolute paths, quoted for the shell, or "-" for standard input.
func sources(used []*timeslice.Input, s *timeslice.Slicer) []heatmap.Source {
	var out []heatmap.Source
	for _, in := range used {
		src := heatmap.Source{Arg: "-"}
		if in.Name != "-" {
			p, err := filepath.Abs(in.Name)
			if err != nil {
				p = in.Name
			}
			src.Arg = heatmap.ShellQuote(p)
		}
		src.First, src.Last, src.HasSpan = spanOf(in, s)
		out = append(out, src)
	}
	return out
}

// burstCommand returns the timeslice command that cuts a burst from the
// inputs that hold it.
func burstCommand(f *found, srcs []heatmap.Source) string {
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
	return fmt.Sprintf("timeslice --from @%v --to @%v --no-idle %s", f.From, f.To, strings.Join(names, " "))
}

// unit names the measure per second.
func unit(m bursts.Measure) string {
	if m == bursts.Weight {
		return "weight/s"
	}
	return "samples/s"
}

func formatRate(v float64) string {
	switch {
	case math.Abs(v) >= 100:
		return fmt.Sprintf("%.0f", v)
	case math.Abs(v) >= 10:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.2f", v)
}

// shortStack abbreviates a stack to its root (the process) and leaf.
func shortStack(s string) string {
	i, j := strings.IndexByte(s, ';'), strings.LastIndexByte(s, ';')
	if i < 0 || i == j {
		return s
	}
	return s[:i] + ";…" + s[j:]
}

// stackList names the top processes and stacks with their shares.
func stackList(f *found) string {
	list := func(shares []bursts.Share, short bool) string {
		var parts []string
		for _, sh := range shares {
			name := sh.Stack
			if short {
				name = shortStack(name)
			}
			parts = append(parts, fmt.Sprintf("%.0f%% %s", 100*sh.Share, name))
		}
		return strings.Join(parts, ", ")
	}
	if len(f.top) == 0 {
		return "-"
	}
	s := list(f.procs, false) + "; stacks " + list(f.top, true)
	if f.approx {
		s = "≈ " + s
	}
	return s
}

// score says how far a burst stands out.
func score(f *found, res *bursts.Result) string {
	ratio := f.Ratio(res.Median)
	times := "∞×"
	if !math.IsInf(ratio, 0) {
		times = fmt.Sprintf("%.0f×", ratio)
	}
	return fmt.Sprintf("z %.1f: %s %s, %s the median second", f.Score, formatRate(f.Rate), unit(res.Measure), times)
}

// when says where a burst is on every clock known.
func when(f *found, clock *timeslice.Clock) string {
	s := fmt.Sprintf("@%v to @%v", f.From, f.To)
	if clock.HasOrigin {
		s += fmt.Sprintf(" = %ss to %ss after the first sample", seconds(f.From-clock.Origin), seconds(f.To-clock.Origin))
	}
	if len(clock.Refs) > 0 {
		ref := clock.RefAt(f.From)
		const layout = "2006-01-02T15:04:05.0"
		s += fmt.Sprintf(" = %s to %s", ref.ToWall(f.From).In(time.Local).Format(layout), ref.ToWall(f.To).In(time.Local).Format("15:04:05.0"))
		if !ref.Exact {
			s += " (estimated)"
		}
	}
	return s
}

// seconds formats a duration in seconds, to the millisecond, without
// needless zeros.
func seconds(d folded.Time) string {
	s := fmt.Sprintf("%.3f", float64(d)/1e9)
	return strings.TrimSuffix(strings.TrimRight(s, "0"), ".")
}

// printBursts writes one line per burst, best first, and the baseline on
// stderr.
func (c *command) printBursts(env *cli.Env, res bursts.Result, fs []found, clock *timeslice.Clock, srcs []heatmap.Source) error {
	if !c.Quiet {
		env.Warnf("bursts: %s per second against the median second of %d: median %s, scale %s (the larger of 1.4826×MAD and counting noise); %d seconds at z ≥ %g; best first, z = robust z-score of the window's rate",
			res.Measure, res.Seconds, formatRate(res.Median), formatRate(res.Scale), res.Hot, res.Threshold)
	}
	if len(fs) == 0 {
		env.Warnf("no burst: no second stands out (z ≥ %g)", res.Threshold)
		return nil
	}
	for i := range fs {
		f := &fs[i]
		if _, err := fmt.Fprintf(env.Stdout, "%d  %s  %s  top: %s  |  %s\n", i+1, score(f, &res), when(f, clock), stackList(f), burstCommand(f, srcs)); err != nil {
			return err
		}
	}
	return nil
}

// marks turns the bursts into marks of the heat map, labelled shortly:
// the map shows the rest on hover and selection.
func marks(res bursts.Result, fs []found, clock *timeslice.Clock) []heatmap.Mark {
	var ms []heatmap.Mark
	for i := range fs {
		f := &fs[i]
		where := fmt.Sprintf("@%v to @%v", f.From, f.To)
		if clock.HasOrigin {
			where = fmt.Sprintf("seconds %s to %s", seconds(f.From-clock.Origin), seconds(f.To-clock.Origin))
		}
		ms = append(ms, heatmap.Mark{From: f.From, To: f.To,
			Label: fmt.Sprintf("%s, %s; top: %s", where, score(f, &res), stackList(f))})
	}
	return ms
}
