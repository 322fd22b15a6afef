package flamegraph

import (
	"iter"
	"slices"

	"flamekit/pkg/folded"
)

// Input is what ReadRecords gathered.
type Input struct {
	Layout *Layout
	Skips  folded.Skips // malformed lines passed over (metadata lines are not counted)
	Timed  bool         // the flame chart was ordered by time
}

// ReadRecords lays out the folded records recs (read from inputs of
// any kind by capture.Reader, which counts the malformed lines; the caller
// sets Skips); sizeHint is the size of the folded input in bytes, 0 when
// unknown. Without flamechart, stacks are summed and merged frame by
// frame (timed lines lose their time). With flamechart, lines keep the
// input order and each is merged with the line before it, as
// flamegraph.pl does; but when every line is timed, the chart is
// LayoutChart's: a lane per thread, each sample at its own time (the
// count units are then nanoseconds, Input.Timed). With
// minCount not nil, the frames narrower than minCount(total) count units
// are dropped during the layout already (total is the sum of the counts
// read): pass the renderer's threshold, such as svg.Options.MinCount.
func ReadRecords(recs iter.Seq[*folded.Record], sizeHint int64, flamechart bool, rw Rewrite, minCount func(total float64) float64) *Input {
	in := &Input{}
	if !flamechart {
		set := readStacks(recs, sizeHint)
		var threshold float64
		if minCount != nil {
			threshold = minCount(set.Total())
		}
		in.Layout = LayoutProfilePruned(set, rw, threshold)
		return in
	}

	// flame chart: keep every line; intern the stacks
	type line struct {
		stack         int32
		count, before float64
		time          folded.Time
		kind          folded.Kind
		pid, tid      int32
		has           folded.Has
	}
	index := map[string]int32{}
	var stacks []string
	var lines []line
	allTimed := true
	for rec := range recs {
		id, ok := index[string(rec.Stack)]
		if !ok {
			key := string(rec.Stack) // one copy: also the stack when rw changes nothing
			id = int32(len(stacks))
			stacks = append(stacks, rw.Apply(key))
			index[key] = id
		}
		lines = append(lines, line{id, rec.Count, rec.Before, rec.Time, rec.Kind, rec.PID, rec.TID, rec.Has})
		if rec.Kind != folded.Timed {
			allTimed = false
		}
	}
	if allTimed && len(lines) > 0 {
		slices.SortStableFunc(lines, func(a, b line) int {
			switch {
			case a.time < b.time:
				return -1
			case a.time > b.time:
				return 1
			}
			return 0
		})
		in.Timed = true
		samples := make([]ChartSample, len(lines))
		for i, ln := range lines {
			samples[i] = ChartSample{Time: ln.time, PID: ln.pid, TID: ln.tid, Has: ln.has, Stack: stacks[ln.stack]}
		}
		in.Layout = LayoutChart(samples)
		return in
	}
	b := NewBuilder()
	if minCount != nil {
		var total float64
		for _, ln := range lines {
			total += ln.count
		}
		b.Prune(minCount(total))
	}
	for _, ln := range lines {
		b.Add(stacks[ln.stack], ln.count, ln.before, ln.kind == folded.Diff)
	}
	in.Layout = b.Layout()
	return in
}
