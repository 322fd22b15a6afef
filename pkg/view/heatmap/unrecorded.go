package heatmap

import (
	"fmt"

	"flamekit/pkg/folded"
	"flamekit/pkg/timeline/gaps"
)

// SetUnrecorded gives the grid the parts of its time that were not
// recorded (see package gaps): a cell that holds no sample and whose
// middle falls in one of them is drawn as not recorded (hatched grey in
// the SVG, '/' in text), not as an idle cell, and so is an overview cell
// at least half of whose time they cover. The spans need not be sorted.
func (g *Grid) SetUnrecorded(spans []gaps.Span) {
	g.unrecorded = gaps.Merge(spans)
	if g.Cols == 0 {
		g.unrecorded = nil
		return
	}
	// Only what the grid shows.
	from, to := g.CellStart(0, 0), g.CellStart(g.Cols, 0)
	var in []gaps.Span
	for _, s := range g.unrecorded {
		if s.To > from && s.From < to {
			in = append(in, gaps.Span{From: max(s.From, from), To: min(s.To, to)})
		}
	}
	g.unrecorded = in
}

// Unrecorded returns the parts of the grid's time that were not recorded,
// sorted (see SetUnrecorded).
func (g *Grid) Unrecorded() []gaps.Span { return g.unrecorded }

// UnrecordedCell reports whether cell (c, r) is drawn as not recorded: it
// holds no sample and its middle is in a part not recorded.
func (g *Grid) UnrecordedCell(c, r int) bool {
	if len(g.unrecorded) == 0 || g.Count(c, r) != 0 {
		return false
	}
	a, b := g.CellStart(c, r), g.CellStart(c, r+1)
	return gaps.Contains(g.unrecorded, a+(b-a)/2)
}

// unrecordedIn returns how much of column c was not recorded.
func (g *Grid) unrecordedIn(c int) folded.Time {
	if len(g.unrecorded) == 0 {
		return 0
	}
	return gaps.Covered(g.unrecorded, g.CellStart(c, 0), g.CellStart(c+1, 0))
}

// unrecordedSegments returns the runs of cells drawn as not recorded in
// columns c0..c0+cols-1 (seconds from the origin), a run per column and
// stretch of rows.
func (g *Grid) unrecordedSegments(c0 int64, cols int) []segment {
	var segs []segment
	for i := 0; i < cols; i++ {
		c := int(c0-g.First) + i
		if c < 0 || c >= g.Cols || g.unrecordedIn(c) == 0 {
			continue
		}
		lo := -1
		for r := 0; r <= g.Rows; r++ {
			if r < g.Rows && g.UnrecordedCell(c, r) {
				if lo < 0 {
					lo = r
				}
				continue
			}
			if lo >= 0 {
				segs = append(segs, segment{i, lo, r - 1})
				lo = -1
			}
		}
	}
	return segs
}

// unrecordedTotal returns the time not recorded, and in how many parts.
func (g *Grid) unrecordedTotal() (folded.Time, int) {
	var n folded.Time
	for _, s := range g.unrecorded {
		n += s.Len()
	}
	return n, len(g.unrecorded)
}

// unrecordedNote says how much was not recorded, for the legend; "" when
// all was.
func (g *Grid) unrecordedNote(rule string) string {
	total, n := g.unrecordedTotal()
	if n == 0 {
		return ""
	}
	s := fmt.Sprintf("not recorded (hatched grey; '/' in text): %s in %d %s", seconds(total), n, plural(n, "part", "parts"))
	if rule != "" {
		s += ": " + rule
	}
	return s
}

// seconds formats a duration as seconds to the millisecond.
func seconds(d folded.Time) string {
	return fmt.Sprintf("%.3f s", float64(d)/1e9)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// unrecordedCells marks the overview cells at least half of whose time was
// not recorded.
func (o *Overview) unrecordedCells(g *Grid) {
	if len(g.unrecorded) == 0 {
		return
	}
	o.Unrecorded = make([]bool, len(o.Counts))
	per := o.RowSeconds()
	for i := range o.Counts {
		from := g.Origin + folded.Time((o.First+int64(i)*per)*second)
		to := from + folded.Time(per*second)
		o.Unrecorded[i] = 2*gaps.Covered(g.unrecorded, from, to) >= to-from
	}
}

// appendGaps appends the parts not recorded as [from, to] pairs of
// nanoseconds after the origin, for the script.
func (g *Grid) appendGaps(dst []byte) []byte {
	dst = append(dst, '[')
	for i, s := range g.unrecorded {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = fmt.Appendf(dst, "[%d,%d]", int64(s.From-g.Origin), int64(s.To-g.Origin))
	}
	return append(dst, ']')
}
