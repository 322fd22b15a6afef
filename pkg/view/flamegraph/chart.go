package flamegraph

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"flamekit/pkg/folded"
)

// This file is the flame chart's one rule: the samples of each thread at
// their own times, as speedscope's time order and Firefox Profiler's stack
// chart draw them. flamegraph --flamechart draws it for timed input, and
// the explorer page's chart view (pkg/view/explorer/chart.js, its twin)
// draws, saves and copies the same picture.

// ChartSample is one timed sample of a flame chart.
type ChartSample struct {
	Time     folded.Time
	PID, TID int32
	Has      folded.Has // which of PID and TID the line carried
	Stack    string     // frames joined by ';', root (the process) first
}

// ChartFallbackInterval is the sampling interval of a chart whose threads
// never have two samples: 10 ms.
const ChartFallbackInterval = folded.Time(10_000_000)

// ChartInterval returns the sampling interval of a chart's samples (in
// time order): the median (the upper one of an even count) of the gaps
// between consecutive samples of a thread, over every thread, gaps of 0
// left out; ChartFallbackInterval when there is none.
func ChartInterval(s []ChartSample) folded.Time {
	last := map[chartLane]folded.Time{}
	var gaps []folded.Time
	for i := range s {
		k := laneOf(&s[i])
		if t, ok := last[k]; ok && s[i].Time > t {
			gaps = append(gaps, s[i].Time-t)
		}
		last[k] = s[i].Time
	}
	if len(gaps) == 0 {
		return ChartFallbackInterval
	}
	slices.Sort(gaps)
	return gaps[len(gaps)/2]
}

type chartLane struct {
	comm     string
	pid, tid int32
	has      folded.Has
}

func laneOf(s *ChartSample) chartLane {
	comm, _, _ := strings.Cut(s.Stack, ";")
	k := chartLane{comm: comm, has: s.Has & (folded.HasPID | folded.HasTID)}
	if k.has&folded.HasPID != 0 {
		k.pid = s.PID
	}
	if k.has&folded.HasTID != 0 {
		k.tid = s.TID
	}
	return k
}

// label names a lane: the process, then pid/tid as the line carried them.
func (k chartLane) label() string {
	s := k.comm
	switch k.has & (folded.HasPID | folded.HasTID) {
	case folded.HasPID | folded.HasTID:
		s += " " + strconv.Itoa(int(k.pid)) + "/" + strconv.Itoa(int(k.tid))
	case folded.HasPID:
		s += " " + strconv.Itoa(int(k.pid))
	case folded.HasTID:
		s += " " + strconv.Itoa(int(k.tid))
	}
	return s
}

// LayoutChart lays out a flame chart of samples (sorted by time, stable)
// as a Layout whose count units are nanoseconds from the first sample:
//
//   - a lane per thread (process, pid and tid), the busiest first (ties
//     by label, bytewise), one above the other: the lane's label is a
//     frame at its base, as wide as its samples, and its stacks stand on
//     it (a lane's depth is its base plus the frame's);
//   - a sample lasts until the next sample of its thread, or one sampling
//     interval (ChartInterval) when it is the thread's last or the next
//     comes more than 1.5 intervals later: the gap breaks every frame;
//   - consecutive samples of a thread share the frames of their common
//     prefix, which become one frame from the first's time to the last's
//     end.
//
// Stacks lose their trailing empty frames (folded.TrimStack); empty stacks
// are left out. The layout is Timed: its renderer draws a time axis.
func LayoutChart(samples []ChartSample) *Layout {
	l := &Layout{MaxDelta: 1, Timed: true}
	if len(samples) == 0 {
		return l
	}
	interval := ChartInterval(samples)
	x0 := samples[0].Time
	type lane struct {
		key chartLane
		idx []int32
	}
	byKey := map[chartLane]int{}
	var lanes []*lane
	for i := range samples {
		if folded.TrimStack(samples[i].Stack) == "" {
			continue
		}
		k := laneOf(&samples[i])
		j, ok := byKey[k]
		if !ok {
			j = len(lanes)
			byKey[k] = j
			lanes = append(lanes, &lane{key: k})
		}
		lanes[j].idx = append(lanes[j].idx, int32(i))
	}
	slices.SortStableFunc(lanes, func(a, b *lane) int {
		if c := cmp.Compare(len(b.idx), len(a.idx)); c != 0 {
			return c
		}
		return strings.Compare(a.key.label(), b.key.label())
	})
	l.Nodes = append(l.Nodes, Node{})
	base := int32(1)
	var total float64
	for _, ln := range lanes {
		labelAt := len(l.Nodes)
		first := float64(samples[ln.idx[0]].Time - x0)
		l.Nodes = append(l.Nodes, Node{Name: ln.key.label(), Start: first, Depth: base})
		var open []int32 // nodes of the open frames, rootmost first
		var names []string
		var maxDepth int32
		closeTo := func(d int, at float64) {
			for len(open) > d {
				l.Nodes[open[len(open)-1]].End = at
				open, names = open[:len(open)-1], names[:len(names)-1]
			}
		}
		var end float64
		for j, si := range ln.idx {
			s := &samples[si]
			at := float64(s.Time - x0)
			frames := strings.Split(folded.TrimStack(s.Stack), ";")
			d := 0
			if j > 0 {
				for d < len(open) && d < len(frames) && names[d] == frames[d] {
					d++
				}
			}
			closeTo(d, at)
			for ; d < len(frames); d++ {
				open = append(open, int32(len(l.Nodes)))
				names = append(names, frames[d])
				l.Nodes = append(l.Nodes, Node{Name: frames[d], Start: at, Depth: base + int32(d) + 1})
			}
			maxDepth = max(maxDepth, int32(len(frames)))
			end = at + float64(interval)
			if j+1 < len(ln.idx) {
				next := samples[ln.idx[j+1]].Time
				if gap := next - s.Time; 2*gap <= 3*interval {
					end = float64(next - x0)
				} else {
					closeTo(0, end) // a gap breaks every frame
				}
			}
		}
		closeTo(0, end)
		l.Nodes[labelAt].End = end
		total = max(total, end)
		base += maxDepth + 1
	}
	l.Nodes[0].End = total
	l.Total = total
	return l
}
