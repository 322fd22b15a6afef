// Package heatmap draws FlameScope's sub-second-offset heat map of a timed
// profile: a column per second, a row per sub-second bucket (20 ms by
// default), each cell coloured by the number of samples in it. It writes
// the map as a self-contained interactive SVG (hover for details, click two
// cells for the timeslice command of the range between them) or as text
// for a terminal.
package heatmap

import (
	"fmt"
	"slices"

	"flamekit/pkg/folded"
)

// DefaultRows is the number of sub-second buckets of a column (20 ms each),
// as in FlameScope.
const DefaultRows = 50

// MaxRows bounds the rows of a map (1 ms buckets).
const MaxRows = 1000

const second = int64(1e9)

// Map counts samples per second and sub-second bucket. A cell's value is
// the number of sample lines in it, not the sum of their periods, as in
// FlameScope. Its memory grows with the number of seconds covered.
type Map struct {
	rows      int
	secs      map[int64][]int64 // whole perf-clock second -> counts per row
	origin    folded.Time
	hasOrigin bool
	total     int64
	// cur is the row counts of second curSec, the one the last sample
	// fell in: samples come in time order, so most need no map lookup.
	cur    []int64
	curSec int64
}

// New returns an empty map with the given number of rows per second
// (clamped to 1..MaxRows).
func New(rows int) *Map {
	rows = min(max(rows, 1), MaxRows)
	return &Map{rows: rows, secs: make(map[int64][]int64)}
}

// Rows returns the number of sub-second buckets per column.
func (m *Map) Rows() int { return m.rows }

// SetOrigin sets the capture's first sample: the first column is its whole
// second, so that columns count seconds from floor(first).
func (m *Map) SetOrigin(t folded.Time) { m.origin, m.hasOrigin = t, true }

// Add counts one sample at perf time t.
func (m *Map) Add(t folded.Time) {
	sec, row := m.Cell(t)
	if m.cur == nil || sec != m.curSec {
		m.cur, m.curSec = m.secs[sec], sec
		if m.cur == nil {
			m.cur = make([]int64, m.rows)
			m.secs[sec] = m.cur
		}
	}
	m.cur[row]++
	m.total++
}

// Total returns the number of samples added.
func (m *Map) Total() int64 { return m.total }

// Cell returns the whole second (perf clock) and the row of time t.
func (m *Map) Cell(t folded.Time) (sec int64, row int) {
	sec = floorDiv(int64(t), second)
	off := int64(t) - sec*second
	return sec, int(off * int64(m.rows) / second)
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// CellStart returns the perf time at which the cell (second sec, row row)
// starts: the first nanosecond whose row is row. Row rows is the start of
// the next second. A cell holds the samples with CellStart(sec, row) <= t <
// CellStart(sec, row+1).
func CellStart(sec int64, row, rows int) folded.Time {
	return folded.Time(sec*second + ceilDiv(int64(row)*second, int64(rows)))
}

func ceilDiv(a, b int64) int64 { return (a + b - 1) / b }

// Grid is the map laid out for drawing: Counts[c][r] is the cell of
// column c (second Base+c) and row r (0 = the start of the second).
type Grid struct {
	Base   int64 // the perf-clock second of the first column
	Rows   int
	Counts [][]int64
	Max    int64
	Total  int64
}

// Grid lays the map out from floor(origin) (or the earliest sample) to the
// last second with a sample.
func (m *Map) Grid() Grid {
	g := Grid{Rows: m.rows, Total: m.total}
	keys := make([]int64, 0, len(m.secs))
	for k := range m.secs {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	first, last := int64(0), int64(-1)
	if len(keys) > 0 {
		first, last = keys[0], keys[len(keys)-1]
	}
	if m.hasOrigin {
		o := floorDiv(int64(m.origin), second)
		if len(keys) == 0 {
			first, last = o, o
		} else {
			first = min(first, o)
		}
	}
	if last < first {
		return g
	}
	g.Base = first
	g.Counts = make([][]int64, last-first+1)
	for i := range g.Counts {
		c := m.secs[first+int64(i)]
		if c == nil {
			c = make([]int64, m.rows)
		}
		g.Counts[i] = c
		for _, n := range c {
			g.Max = max(g.Max, n)
		}
	}
	return g
}

// RGB is a colour.
type RGB struct{ R, G, B uint8 }

func (c RGB) String() string { return fmt.Sprintf("#%02X%02X%02X", c.R, c.G, c.B) }

// The colour scale of FlameScope: white for no samples, through
// #FF5032 at half the maximum, to #E50914 at the maximum.
var (
	White = RGB{0xFF, 0xFF, 0xFF}
	Mid   = RGB{0xFF, 0x50, 0x32}
	Hot   = RGB{0xE5, 0x09, 0x14}
)

// Color returns the colour of a cell of n samples in a map whose fullest
// cell has max.
func Color(n, max int64) RGB {
	if n <= 0 || max <= 0 {
		return White
	}
	f := float64(n) / float64(max)
	if f >= 1 {
		return Hot
	}
	if f <= 0.5 {
		return lerp(White, Mid, f/0.5)
	}
	return lerp(Mid, Hot, (f-0.5)/0.5)
}

func lerp(a, b RGB, t float64) RGB {
	mix := func(x, y uint8) uint8 {
		return uint8(float64(x) + (float64(y)-float64(x))*t + 0.5)
	}
	return RGB{mix(a.R, b.R), mix(a.G, b.G), mix(a.B, b.B)}
}

// RangeCommand returns the timeslice command for the cells from (c1, r1)
// to (c2, r2), both included, in time order whatever order they are given
// in; args are appended as they are (already quoted for the shell). The
// SVG's script builds the same command.
func (g *Grid) RangeCommand(c1, r1, c2, r2 int, args string) string {
	if c2*g.Rows+r2 < c1*g.Rows+r1 {
		c1, r1, c2, r2 = c2, r2, c1, r1
	}
	from := CellStart(g.Base+int64(c1), r1, g.Rows)
	to := CellStart(g.Base+int64(c2), r2+1, g.Rows)
	return fmt.Sprintf("timeslice --from @%v --to @%v%s", from, to, args)
}
