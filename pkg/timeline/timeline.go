package timeline

import (
	"math"
	"slices"
	"sort"

	"flamekit/pkg/folded"
)

// DefaultRows is the default number of cells per second: 20 ms cells, the
// rows of FlameScope's and timeslice's heat map.
const DefaultRows = 50

// MaxRows bounds the cells per second (1 ms cells), as the heat map does.
const MaxRows = 1000

const second = int64(1e9)

// FrameID names a frame in a Timeline's frame table: each frame name is
// stored once.
type FrameID int32

// StackID names a node of a Timeline's prefix tree: the stack made of the
// frames from the root to that node. A node is its parent node and one
// frame, so the stacks sharing a prefix share its nodes, and summing
// weights up the tree is the flame graph's merge.
type StackID int32

// ThreadID names a thread in a Timeline's thread table, where a thread is
// interned as (pid, tid, comm), the comm being the stack's root frame (as
// stackcollapse names the process).
type ThreadID int32

// Root is the root of the prefix tree: the empty stack, which no sample
// has. A stack's first frame (the process) is a child of Root.
const Root StackID = 0

// Node is one node of the prefix tree of stacks.
type Node struct {
	Parent StackID // the stack without its last frame; -1 for Root
	Frame  FrameID // the last frame; -1 for Root
	Depth  int32   // number of frames: 0 for Root
}

// Thread is a thread as the samples name it. Comm is the stack's root
// frame (the process name, or comm-pid/tid when stackcollapse ran with
// --pid/--tid); PID and TID are what the timed lines carried (pid=, tid=),
// Has says which of them they carried (folded.HasPID, folded.HasTID), and
// an id not carried is -1.
type Thread struct {
	PID, TID int32
	Has      folded.Has
	Comm     FrameID
}

// Input is one input stream of a Timeline. Entries keep their input, and
// inputs their host, so views can draw one lane per host. Inputs of
// different hosts have different perf clocks: a caller that puts them on
// one axis (the wall clock) gives each input an Offset.
type Input struct {
	Name string
	// Host is the metadata's host ("" when unknown): views draw one lane
	// per host.
	Host string
	// Metas are the metadata lines read from the input.
	Metas []folded.Meta
	// Offset is added to the input's perf-clock times to place them on
	// the Timeline's axis (0 when the axis is perf's clock).
	Offset folded.Time
	// Seen is the span of the samples read on its own perf clock, added
	// or only covered (Builder.Cover: the capture recorded them though a
	// view keeps none); Samples the number added.
	Seen    folded.Span
	Samples int64
}

// Entry is the samples of one cell with one key: input, stack, thread and
// CPU, less what the Timeline merges (Options.Merge: then Stack is the
// process's node or Root, Thread NoThread, CPU -1, Input NoInput). Its
// weight is the sum of their counts (periods, off-CPU microseconds):
// Weight is the sum of their integer parts, exact, to which
// Timeline.Fractions at the entry's index adds the sum of their fractions
// when the Timeline is not Integral (WeightOf).
type Entry struct {
	Cell    int32 // cell index: Timeline.CellStart(Cell) <= time < CellStart(Cell+1)
	Input   int32
	Stack   StackID
	Thread  ThreadID
	CPU     int32  // the line's cpu=, -1 when it carried none
	Samples uint32 // timed lines (classic and differential ones count in Weight only)
	Weight  int64
}

// Timeline is every timed sample of some inputs, aggregated per cell.
//
// Time is cut into cells of a fixed width from an origin (the capture's
// first sample): DefaultRows cells per second (20 ms), as the rows of
// FlameScope's and timeslice's sub-second heat map, with the same
// boundaries (cell c of second s holds the samples from s + ⌈r/rows⌉ s). The
// samples of a cell are summed per (input, stack, thread, CPU), less what
// Options.Merge merges: an Entry holds the number of samples and the sum
// of their counts. Memory is one entry per distinct key, whatever the
// number of samples; building is linear in the samples when each input is
// in time order (perf script writes it so), plus a sort when cells come
// back.
// Build one with a Builder (or Read); it is not changed afterwards and may
// be read concurrently.
type Timeline struct {
	// Rows is the number of cells per second when Seconds is 1; Seconds
	// is the number of seconds per cell when a cell is a second or more
	// (Rows is then 1).
	Rows, Seconds int
	// Width, when not 0, is the width of a cell in nanoseconds (Rows and
	// Seconds are then 0); Whole is set when one cell, 0, holds the whole
	// (Options.Whole).
	Width folded.Time
	Whole bool
	// Origin is the start of cell 0 on the axis (perf's clock, plus the
	// inputs' offsets).
	Origin folded.Time

	Frames  []string // frame names, by FrameID
	Nodes   []Node   // the prefix tree; a parent's id is below its children's
	Threads []Thread
	Inputs  []Input
	// Entries are sorted by cell, then input, stack, thread and CPU; no
	// two have the same cell and key.
	Entries []Entry
	// Fractions is nil when every count was a whole number (Integral);
	// otherwise it holds, by index, the sum of the fractions of each
	// entry's counts (Entry.Weight holds their integer parts).
	Fractions []float64
	// Diffs is nil unless differential lines were added (Options.Whole):
	// then it holds, by index, the sum of their "before" counts.
	Diffs []Diff

	// Times are the time and entry of every timed sample, in time order,
	// when the Builder kept them (Options.Times) and there were at most
	// that many (else TimesOver is set and Times is nil). A view of the
	// timeline (Coarsen …) has none.
	Times     []SampleTime
	TimesOver bool

	// Reduced says how a Builder with a Budget reduced the timeline to
	// fit it (nil when it did not: every entry is held at the cells
	// asked).
	Reduced *Reduced

	// Samples is the number of timed samples, Untimed the number of
	// classic and differential lines (which have no time) left out,
	// Classic the number kept (Options.Whole, Options.Untimed).
	Samples, Untimed, Classic int64

	comm []FrameID // per node: the frame of its depth-1 ancestor

	// The cells of the first and last time added or covered (Extent).
	lo, hi   int64
	extended bool
	merge    Merge // what the entries are not keyed by
}

// SampleTime is one timed sample: its time on the axis and the index of
// its entry in Timeline.Entries.
type SampleTime struct {
	At    folded.Time
	Entry int32
}

// Integral reports whether weights are whole numbers, held exactly in
// Entry.Weight.
func (t *Timeline) Integral() bool { return t.Fractions == nil }

// WeightOf returns the weight of Entries[i].
func (t *Timeline) WeightOf(i int) float64 {
	if t.Fractions != nil {
		return float64(t.Entries[i].Weight) + t.Fractions[i]
	}
	return float64(t.Entries[i].Weight)
}

// Total returns the number of samples and the sum of their weights.
func (t *Timeline) Total() (samples int64, weight float64) {
	var w, f float64
	for i := range t.Entries {
		w += float64(t.Entries[i].Weight)
	}
	for _, x := range t.Fractions {
		f += x
	}
	return t.Samples, w + f
}

// Comm returns the root frame of a stack (its process), or -1 for Root.
func (t *Timeline) Comm(s StackID) FrameID { return t.comm[s] }

// AppendStack appends the stack s as a folded line writes it (frames joined
// by ';', root first) to dst.
func (t *Timeline) AppendStack(dst []byte, s StackID) []byte {
	n := int(t.Nodes[s].Depth)
	if n == 0 {
		return dst
	}
	var ids [64]FrameID
	fs := ids[:0]
	if n > len(ids) {
		fs = make([]FrameID, 0, n)
	}
	for ; s > Root; s = t.Nodes[s].Parent {
		fs = append(fs, t.Nodes[s].Frame)
	}
	for i := len(fs) - 1; i >= 0; i-- {
		dst = append(dst, t.Frames[fs[i]]...)
		if i > 0 {
			dst = append(dst, ';')
		}
	}
	return dst
}

// Stack returns the stack s as a string (see AppendStack).
func (t *Timeline) Stack(s StackID) string { return string(t.AppendStack(nil, s)) }

// CellOf returns the cell that holds time at (on the axis).
func (t *Timeline) CellOf(at folded.Time) int64 {
	return t.cellOfRel(int64(at - t.Origin))
}

func cellOf(rel int64, rows, seconds int) int64 {
	if seconds > 1 {
		return floorDiv(rel, int64(seconds)*second)
	}
	sec := floorDiv(rel, second)
	return sec*int64(rows) + (rel-sec*second)*int64(rows)/second
}

// CellStart returns the first time (on the axis) of cell c: the cell holds
// the times from CellStart(c) included to CellStart(c+1) excluded. These
// are the heat map's boundaries (pkg/view/heatmap's Map.CellStart).
func (t *Timeline) CellStart(c int64) folded.Time {
	switch {
	case t.Whole:
		return t.Origin
	case t.Width > 0:
		return t.Origin + folded.Time(c)*t.Width
	}
	return t.Origin + folded.Time(cellStart(c, t.Rows, t.Seconds))
}

func cellStart(c int64, rows, seconds int) int64 {
	if seconds > 1 {
		return c * int64(seconds) * second
	}
	sec := floorDiv(c, int64(rows))
	row := c - sec*int64(rows)
	return sec*second + ceilDiv(row*second, int64(rows))
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

func ceilDiv(a, b int64) int64 { return -floorDiv(-a, b) }

// Cells returns the cells that hold an entry, in order (made at each
// call: the entries, sorted by cell, are the index).
func (t *Timeline) Cells() []int64 {
	var cells []int64
	for i := range t.Entries {
		if c := int64(t.Entries[i].Cell); i == 0 || c != cells[len(cells)-1] {
			cells = append(cells, c)
		}
	}
	return cells
}

// Span returns the first and last cell that hold an entry; ok is false
// for an empty timeline.
func (t *Timeline) Span() (first, last int64, ok bool) {
	e := t.Entries
	if len(e) > 0 && e[0].Cell == NoTime {
		e = e[t.firstAt(NoTime+1):] // classic lines (Options.Untimed) have no time
	}
	if len(e) == 0 {
		return 0, 0, false
	}
	return int64(e[0].Cell), int64(e[len(e)-1].Cell), true
}

// Range returns the index range [i, j) of the entries of cells from c0
// included to c1 excluded.
func (t *Timeline) Range(c0, c1 int64) (i, j int) {
	if c1 <= c0 {
		return 0, 0
	}
	i, j = t.firstAt(c0), t.firstAt(c1)
	if j <= i {
		return 0, 0
	}
	return i, j
}

// firstAt returns the index of the first entry of a cell at or after c
// (len(Entries) if none): the entries are sorted by cell, so they are
// their own index.
func (t *Timeline) firstAt(c int64) int {
	if c <= math.MinInt32 {
		return 0
	}
	if c > math.MaxInt32 {
		return len(t.Entries)
	}
	c32 := int32(c)
	return sort.Search(len(t.Entries), func(k int) bool { return t.Entries[k].Cell >= c32 })
}

// Measure is what a Series sums.
type Measure uint8

// The measures of a Series.
const (
	Samples Measure = iota // sample lines
	Weight                 // the sum of their counts
)

// Series is a value per cell: Values[i] is the value of cell First+i.
type Series struct {
	First  int64
	Values []float64
}

// Series sums the samples or the weight of every cell from the first to
// the last that holds an entry, of the entries keep accepts (nil: all).
// It is the per-cell series the heat map and the bursts read.
func (t *Timeline) Series(m Measure, keep func(*Entry) bool) Series {
	first, last, ok := t.Span()
	if !ok {
		return Series{}
	}
	s := Series{First: first, Values: make([]float64, last-first+1)}
	for i := range t.Entries {
		e := &t.Entries[i]
		if e.Cell == NoTime || keep != nil && !keep(e) {
			continue
		}
		v := float64(e.Samples)
		if m == Weight {
			v = t.WeightOf(i)
		}
		s.Values[int64(e.Cell)-first] += v
	}
	return s
}

// Sum returns the series with every n cells summed into one, aligned on
// multiples of n (cell c goes to floor(c/n)): with a timeline of Rows
// cells per second, Sum(Rows) is a series per second.
func (s Series) Sum(n int) Series {
	if n <= 1 || len(s.Values) == 0 {
		return s
	}
	first := floorDiv(s.First, int64(n))
	last := floorDiv(s.First+int64(len(s.Values))-1, int64(n))
	out := Series{First: first, Values: make([]float64, last-first+1)}
	for i, v := range s.Values {
		out.Values[floorDiv(s.First+int64(i), int64(n))-first] += v
	}
	return out
}

// Coarsen returns the timeline with cells k times wider: k must divide
// Rows (50 cells per second become 10 with k = 5), or Rows be 1 (seconds
// per cell are multiplied by k). Entries that fall in one wider cell are
// summed. It returns t itself for k <= 1 and nil for a k that does not
// fit.
func (t *Timeline) Coarsen(k int) *Timeline {
	if k <= 1 || t.Whole {
		return t
	}
	out := *t
	out.Times = nil // their entries are not the coarse ones
	switch {
	case t.Width > 0:
		if t.Width > math.MaxInt64/folded.Time(k) {
			return nil
		}
		out.Width = t.Width * folded.Time(k)
	case t.Rows > 1 && t.Rows%k == 0:
		out.Rows = t.Rows / k
	case t.Rows == 1:
		if int64(t.Seconds)*int64(k) > 1<<30 {
			return nil
		}
		out.Seconds = t.Seconds * k
	default:
		return nil
	}
	out.Entries = make([]Entry, len(t.Entries))
	copy(out.Entries, t.Entries)
	if t.Fractions != nil {
		out.Fractions = slices.Clone(t.Fractions)
	}
	out.Diffs = slices.Clone(t.Diffs)
	for i := range out.Entries {
		if out.Entries[i].Cell == NoTime {
			continue
		}
		out.Entries[i].Cell = int32(floorDiv(int64(out.Entries[i].Cell), int64(k)))
	}
	out.lo, out.hi = floorDiv(t.lo, int64(k)), floorDiv(t.hi, int64(k))
	// Cells stay in order (floor is monotone): sort each new cell's run
	// by key and merge equal keys.
	out.mergeRuns()
	return &out
}
