// Package heatmap draws FlameScope's sub-second-offset heat map of a timed
// profile: a column per second, a row per sub-second bucket (20 ms by
// default), each cell coloured by the number of samples in it. It writes
// the map as a self-contained interactive SVG or as text for a terminal.
//
// # One time origin
//
// Columns count whole seconds from the capture's first sample, not from
// the whole second below it (FlameScope's rule): column 14, row 10 of a
// 50-row map holds the samples from 14.2 s to 14.22 s after the first
// sample, which is what timeslice --from 14.2s --to 14.22s cuts. The axis,
// the tooltips and the relative times the map shows all use that origin;
// the command a selection hands back uses absolute perf-clock times, so
// it cuts the same samples whichever inputs it is given.
//
// # Why an SVG
//
// The map stays an SVG, the file type timeslice --heatmap has always
// written, so that pipelines and Makefiles that write heat.svg keep
// working, and so that the file is a picture wherever SVG is shown: an
// image viewer or an <img> tag shows its static images (PNG data URIs
// written by image/png), axes, legend and marks without running any
// script. In a browser the script adds what a picture cannot: hover
// details, the sub-second map of any stretch of a long capture, range
// selection and the timeslice command. An HTML page would have given the
// script a native canvas and text selection, but would no longer be an
// image, and would have changed the file every existing pipeline writes;
// the SVG gets a canvas through foreignObject where it needs one.
//
// # Twelve hours in one file
//
// A capture longer than [DetailSeconds] is drawn as an overview, a column
// per stretch of time (for a night of recorder windows, 2 minutes) and a
// row per 60th of it, and below it the sub-second map of one stretch of
// [DetailSeconds]; clicking the overview opens the stretch there. Every
// cell of the capture travels in the file as compact data (see
// [Grid.AppendData]), a few bytes per busy cell, decoded by the script a
// minute at a time as stretches are shown, so that the file opens in
// about the time its static images take to decode, whatever its length.
// Building the map costs a constant per sample and, per second that holds
// a sample, one uint32 per row.
package heatmap

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"flamekit/pkg/folded"
	"flamekit/pkg/timeline"
	"flamekit/pkg/timeline/gaps"
)

// DefaultRows is the number of sub-second buckets of a column (20 ms each),
// as in FlameScope.
const DefaultRows = 50

// MaxRows bounds the rows of a map (1 ms buckets).
const MaxRows = 1000

const second = int64(1e9)

// Map counts samples per second and sub-second bucket: the per-cell series
// of package timeline (timeline.Counts), whose cells are a timeline's of
// Rows cells per second. Seconds count from an origin, the capture's first
// sample. A cell's value is the number of sample lines in it, not the sum
// of their periods, as in FlameScope.
//
// Memory is one uint32 per row for each second that holds a sample, plus a
// map entry per such second: a 12-hour capture at 50 rows takes about
// 10 MB whatever its number of samples.
type Map struct {
	rows   int
	origin folded.Time
	c      *timeline.Counts // the counts, a block of rows per second
	total  int64
	// saturated counts the samples not counted because their cell held
	// math.MaxUint32 already.
	saturated int64
}

// New returns an empty map with the given number of rows per second
// (clamped to 1..MaxRows) whose columns count seconds from origin, the
// capture's first sample.
func New(rows int, origin folded.Time) *Map {
	rows = min(max(rows, 1), MaxRows)
	return &Map{rows: rows, origin: origin, c: timeline.NewCounts(origin, rows, false)}
}

// Of returns the map of a timeline's cells, over its Extent: their samples,
// or their weights rounded to whole numbers (m), of the entries keep
// accepts (nil: all). The map's rows are the timeline's cells per second
// (1 when a cell is a second or more: Coarsen's cells of several seconds
// are then counted in the second they start). Adding more (Add, AddN,
// Cover) is allowed.
func Of(tl *timeline.Timeline, m timeline.Measure, keep func(*timeline.Entry) bool) *Map {
	rows := tl.Rows
	if tl.Seconds > 1 {
		rows = 1
	}
	hm := New(rows, tl.Origin)
	if lo, hi, ok := tl.Extent(); ok {
		hm.Cover(tl.CellStart(lo))
		hm.Cover(tl.CellStart(hi))
	}
	for i := range tl.Entries {
		e := &tl.Entries[i]
		if keep != nil && !keep(e) {
			continue
		}
		n := uint64(e.Samples)
		if m == timeline.Weight {
			n = uint64(math.Round(max(tl.WeightOf(i), 0)))
		}
		hm.AddN(tl.CellStart(int64(e.Cell)), n)
	}
	return hm
}

// Rows returns the number of sub-second buckets per column.
func (m *Map) Rows() int { return m.rows }

// Origin returns the time second 0 starts at.
func (m *Map) Origin() folded.Time { return m.origin }

// Add counts one sample at perf time t.
func (m *Map) Add(t folded.Time) { m.AddN(t, 1) }

// AddN adds n to the cell of time t: the weight of a sample (off-CPU
// microseconds) for a map that sums weights rather than counting samples
// (see Info.Unit). What a cell cannot hold (2^32-1) is counted in
// Saturated.
func (m *Map) AddN(t folded.Time, n uint64) {
	lost := m.c.Add(t, n, 0)
	m.saturated += int64(lost)
	m.total += int64(n - lost)
}

// Cover widens the map to the second of t without counting a sample: the
// command calls it for the samples it reads but does not count (the idle
// ones, with --no-idle), so that idle seconds at either end of the
// capture are shown alike.
func (m *Map) Cover(t folded.Time) { m.c.Cover(t) }

// Total returns the number of samples counted.
func (m *Map) Total() int64 { return m.total }

// Saturated returns the number of samples that were not counted because
// their cell already held 2^32-1 samples (none in any real capture: that
// is 86 GB of lines in one cell).
func (m *Map) Saturated() int64 { return m.saturated }

// Cell returns the second (counted from the origin; negative before it)
// and the row of time t.
func (m *Map) Cell(t folded.Time) (sec int64, row int) { return m.c.Cell(t) }

// CellStart returns the perf time at which the cell (second sec, row row)
// starts: the first nanosecond whose row is row. Row Rows() is the start of
// the next second. A cell holds the samples with CellStart(sec, row) <= t <
// CellStart(sec, row+1).
func (m *Map) CellStart(sec int64, row int) folded.Time {
	return cellStart(m.origin, sec, row, m.rows)
}

func cellStart(origin folded.Time, sec int64, row, rows int) folded.Time {
	return origin + folded.Time(sec*second+ceilDiv(int64(row)*second, int64(rows)))
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

func ceilDiv(a, b int64) int64 { return (a + b - 1) / b }

// MaxSeconds is the longest span a map is drawn for: 31 days. Samples
// further apart (captures of two boots, a stray timestamp) are an error
// that says to cut a window, not a drawing of millions of empty columns.
const MaxSeconds = 31 * 86400

// ErrSpan is wrapped by the error of a map that spans more than
// MaxSeconds.
var ErrSpan = errors.New("the samples span too long a time to draw")

// checkSpan returns an error when the grid spans more than MaxSeconds.
func (g *Grid) checkSpan() error {
	if g.Cols <= MaxSeconds {
		return nil
	}
	return fmt.Errorf("%w: %d days, from @%v to @%v (captures of different boots, or a stray time?); cut a window with --from and --to",
		ErrSpan, g.Cols/86400, g.CellStart(0, 0), g.CellStart(g.Cols-1, 0))
}

// Grid is the map laid out for drawing: column c is second First+c after
// the origin, row r the r-th bucket of it (0 = the start of the second).
// It shares the counts of its Map.
type Grid struct {
	Origin folded.Time
	Rows   int
	First  int64  // the second of column 0, counted from Origin
	Cols   int    // number of columns; 0 for an empty map
	Max    uint32 // the fullest cell
	Total  int64  // samples counted
	cells  map[int64][]uint32
	// unrecorded are the parts of the grid's time that were not recorded
	// (SetUnrecorded), sorted and disjoint.
	unrecorded []gaps.Span
}

// Grid lays the map out over every second it covers, from the first to
// the last (the seconds of samples counted by Add or covered by Cover).
func (m *Map) Grid() *Grid {
	secs, cells := m.c.Secs(), m.c.N()
	g := &Grid{Origin: m.origin, Rows: m.rows, Total: m.total, cells: make(map[int64][]uint32, len(secs))}
	if !m.c.Covered() {
		return g
	}
	g.First, g.Cols = m.c.Lo(), int(m.c.Hi()-m.c.Lo()+1)
	for i, s := range secs {
		col := cells[i*m.rows : (i+1)*m.rows : (i+1)*m.rows]
		g.cells[s] = col
		for _, n := range col {
			g.Max = max(g.Max, n)
		}
	}
	return g
}

// Column returns the counts of column c, indexed by row, or nil when the
// column holds no sample. The slice is the map's: do not change it.
func (g *Grid) Column(c int) []uint32 { return g.cells[g.First+int64(c)] }

// Count returns the count of the cell (c, r).
func (g *Grid) Count(c, r int) uint32 {
	if col := g.Column(c); col != nil {
		return col[r]
	}
	return 0
}

// ColumnSum returns the number of samples of column c.
func (g *Grid) ColumnSum(c int) int64 {
	var n int64
	for _, v := range g.Column(c) {
		n += int64(v)
	}
	return n
}

// Seconds returns the columns that hold a sample, in order.
func (g *Grid) Seconds() []int {
	cs := make([]int, 0, len(g.cells))
	for s := range g.cells {
		cs = append(cs, int(s-g.First))
	}
	slices.Sort(cs)
	return cs
}

// CellStart returns the perf time at which cell (c, r) starts; row Rows is
// the start of the next column.
func (g *Grid) CellStart(c, r int) folded.Time {
	return cellStart(g.Origin, g.First+int64(c), r, g.Rows)
}

// CellOf returns the column and row of time t (the column may be outside
// 0..Cols-1).
func (g *Grid) CellOf(t folded.Time) (c, r int) {
	rel := int64(t - g.Origin)
	sec := floorDiv(rel, second)
	return int(sec - g.First), int((rel - sec*second) * int64(g.Rows) / second)
}

// CellRange returns the span [from, to) of the cells from (c1, r1) to
// (c2, r2), both included, in time order whatever order they are given
// in: what the command of a selection cuts (slicecmd.Range; the SVG's
// script builds the same command).
func (g *Grid) CellRange(c1, r1, c2, r2 int) (from, to folded.Time) {
	if c2*g.Rows+r2 < c1*g.Rows+r1 {
		c1, r1, c2, r2 = c2, r2, c1, r1
	}
	return g.CellStart(c1, r1), g.CellStart(c2, r2+1)
}
