package timeslice

import (
	"fmt"
	"math"
	"strings"
	"time"

	"flamekit/pkg/filter/window"
	"flamekit/pkg/folded"
	"flamekit/pkg/timeline/gaps"
	"flamekit/pkg/tool"
	"flamekit/pkg/view/bursts"
	"flamekit/pkg/view/heatmap"
)

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
	return list(f.procs, false) + "; stacks " + list(f.top, true)
}

// score says how a burst stands out: by rate (its z-score, rate and ratio
// to the median second), by composition (its z-score and the process
// whose share stands out), or both.
func score(f *found, res *bursts.Result) string {
	var parts []string
	if f.Kind&bursts.Rate != 0 {
		ratio := f.Ratio(res.Median)
		times := "∞×"
		if !math.IsInf(ratio, 0) {
			times = fmt.Sprintf("%.0f×", ratio)
		}
		parts = append(parts, fmt.Sprintf("rate: z %.1f: %s %s, %s the median second", f.RateScore, formatRate(f.Rate), unit(res.Measure), times))
	}
	if f.Kind&bursts.Composition != 0 {
		parts = append(parts, fmt.Sprintf("composition: z %.1f: %s %s of the window, typically %s", f.CompScore, f.Process, percent(f.Share), percent(f.Typical)))
	}
	return strings.Join(parts, "; ")
}

// percent formats a share with the digits a small one needs.
func percent(v float64) string {
	p := 100 * v
	switch {
	case p == 0 || p >= 10:
		return fmt.Sprintf("%.0f%%", p)
	case p >= 1:
		return fmt.Sprintf("%.1f%%", p)
	case p >= 0.01:
		return fmt.Sprintf("%.2f%%", p)
	}
	return fmt.Sprintf("%.0e%%", p)
}

// when says where a burst is on every clock known.
func when(f *found, clock *window.Clock) string {
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
func (c *run) printBursts(env *tool.Env, res bursts.Result, fs []found, clock *window.Clock, srcs []heatmap.Source, unrec []gaps.Span, rule gaps.Rule) error {
	if !c.Quiet {
		left := ""
		if res.Unrecorded > 0 {
			left = fmt.Sprintf(" recorded (%d more not recorded, left out)", res.Unrecorded)
		}
		env.Warnf("bursts: rate: %s per second against the median second of %d%s: median %s, scale %s (the larger of 1.4826×MAD and counting noise); %d seconds at z ≥ %g",
			res.Measure, res.Seconds, left, formatRate(res.Median), formatRate(res.Scale), res.Hot, res.Threshold)
		if cb := &res.Comp; cb.Seconds > 0 {
			env.Warnf("bursts: composition: each second's distance from the rest of the capture over %d processes (total variation × n/(n+%s), n its %s) against the median second of %d: median %.3f, scale %.3f (1.4826×MAD above the median, at least %g and one sample of the median second); %d seconds at z ≥ %g, the highest z %.1f",
				cb.Processes, formatRate(cb.Samples), res.Measure, cb.Seconds, cb.Median, cb.Scale, bursts.MinCompScale, cb.Hot, res.Threshold, cb.Top)
		}
		env.Warnf("bursts: best first, by the larger z-score of the window's rate and composition")
	}
	if len(unrec) > 0 {
		// Never quiet: say where the capture has holes.
		var total folded.Time
		var list []string
		for i, g := range unrec {
			total += g.Len()
			if i < 5 {
				list = append(list, fmt.Sprintf("@%v to @%v (%ss)", g.From, g.To, seconds(g.Len())))
			}
		}
		if len(unrec) > 5 {
			list = append(list, fmt.Sprintf("and %d more", len(unrec)-5))
		}
		env.Warnf("not recorded: %ss in %d parts (%s): %s", seconds(total), len(unrec), rule.Describe(), strings.Join(list, ", "))
	}
	if len(fs) == 0 {
		env.Warnf("no burst: no second stands out by rate or composition (z ≥ %g)", res.Threshold)
		return nil
	}
	for i := range fs {
		f := &fs[i]
		if _, err := fmt.Fprintf(env.Stdout, "%d  %s  %s  top: %s  |  %s\n", i+1, score(f, &res), when(f, clock), stackList(f), burstCommand(f, srcs, c.Select)); err != nil {
			return err
		}
	}
	return nil
}

// marks turns the bursts into marks of the heat map, labelled shortly
// (their top processes): the map shows the rest on hover and selection.
func marks(res bursts.Result, fs []found, clock *window.Clock) []heatmap.Mark {
	var ms []heatmap.Mark
	for i := range fs {
		f := &fs[i]
		where := fmt.Sprintf("@%v to @%v", f.From, f.To)
		if clock.HasOrigin {
			where = fmt.Sprintf("seconds %s to %s", seconds(f.From-clock.Origin), seconds(f.To-clock.Origin))
		}
		var procs []string
		for _, sh := range f.procs {
			procs = append(procs, fmt.Sprintf("%.0f%% %s", 100*sh.Share, sh.Stack))
		}
		ms = append(ms, heatmap.Mark{From: f.From, To: f.To,
			Label: fmt.Sprintf("%s, %s; top: %s", where, score(f, &res), strings.Join(procs, ", "))})
	}
	return ms
}
