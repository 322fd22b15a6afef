package timeline

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"time"

	"flamekit/pkg/folded"
)

// Options set a Builder's cells.
type Options struct {
	// Rows is the number of cells per second (DefaultRows when 0; at
	// most MaxRows).
	Rows int
	// Origin is the start of cell 0 on the axis, when HasOrigin: the
	// capture's first sample as its metadata or a first reading says.
	// Without it, the first sample added is the origin. A sample before
	// the origin falls in a negative cell.
	Origin    folded.Time
	HasOrigin bool
	// Merge is what entries are not keyed by (see Merge; zero: entries
	// are keyed by input, stack, thread and CPU).
	Merge Merge

	// The cells of other views than the heat map's (see views.go): a
	// cell width in nanoseconds, one cell for the whole, the lines
	// without a time.

	// Width, when not 0, is the width of a cell in nanoseconds, instead
	// of 1/Rows s: pprof's intervals (timeslice --bucket).
	Width folded.Time
	// Align, without HasOrigin, puts the origin at the first sample's
	// time rounded down to a multiple of Width (from 0 on the axis), so
	// that every cell starts at a whole multiple of Width.
	Align bool
	// Whole makes one cell (0) of the whole: every record added, timed or
	// not (classic and differential lines too), is summed in it. It is
	// the timeline of a summed profile: memory is one entry per distinct
	// key, and with all but the stacks merged one per distinct stack.
	Whole bool
	// Untimed keeps the classic lines (which have no time) in the cell
	// NoTime, instead of leaving them out (Timeline.Untimed).
	Untimed bool
	// Budget, when not 0, is the most entries the Builder holds: past it,
	// it widens the cells, then keeps the heaviest keys of each cell
	// (see Reduced). For a Builder that keeps the stacks (no MergeFrames)
	// on the grid of Rows; others ignore it.
	Budget int
	// Cap is the keys each input keeps in a cell once the budget made
	// them cut (DefaultCap when 0).
	Cap int
	// Times, when not 0, keeps the time and entry of each timed sample
	// (Timeline.Times) while there are at most Times of them: memory then
	// grows with the samples, up to Times × 16 bytes.
	Times int
}

// ErrSpan is wrapped by the error of a sample too far from the origin for
// a cell index (2^31 cells: 497 days of 20 ms cells).
var ErrSpan = errors.New("sample too far from the first one")

// Builder builds a Timeline from timed records, one at a time. Memory is
// the distinct frames, stacks, threads and entries, not the samples.
type Builder struct {
	t         Timeline
	hasOrigin bool

	frameIdx  map[string]FrameID
	stacks    stackTable // the stacks (see stacks.go)
	threadIdx map[Thread]ThreadID

	cur     int32 // current input, -1 before the first
	open    map[entryKey]int32
	cell    int64 // the cell open holds
	hasCell bool
	ordered bool // cells never went back
	err     error

	lastProc StackID  // the last process interned (MergeFrames)
	last     entryKey // the key of entry lastIdx, in the open cell
	lastIdx  int32    // -1: none
	// The threads of the last two samples, and their ids: samples come
	// in runs of a thread on each CPU, and hashing the key took 2% of
	// timeslice --heatmap.
	lastTh   [2]Thread
	lastThID [2]ThreadID

	merge  Merge // the keys merged away
	shared bool  // a Snapshot holds the entries: copy them before changing them

	untimed bool    // Options.Untimed
	align   bool    // Options.Align
	byStack []int32 // Whole with all but the stacks merged: the entry of each stack, -1 if none

	keepTimes int                // Options.Times, 0 once exceeded
	times     chunks[SampleTime] // Entry: the index in the unsorted entries

	budget                   int   // Options.Budget, 0: none (see reduce)
	fullEntries, fullSamples int64 // held and read at the first reduction
	run                      int   // the first entry made in the open cell
	cap                      int   // Options.Cap

	// more are the entries made since the last Build or Snapshot, which
	// follow t.Entries (see entry).
	more chunks[Entry]
}

// entry returns entry i: t.Entries then more.
func (b *Builder) entry(i int32) *Entry {
	if n := int32(len(b.t.Entries)); i < n {
		return &b.t.Entries[i]
	}
	return b.more.at(int(i) - len(b.t.Entries))
}

// entries returns the number of entries made.
func (b *Builder) entries() int { return len(b.t.Entries) + b.more.n }

// flatten moves the entries made since into t.Entries.
func (b *Builder) flatten() {
	b.t.Entries = b.more.appendTo(b.t.Entries)
}

type entryKey struct {
	input  int32
	stack  StackID
	thread ThreadID
	cpu    int32
}

// NewBuilder returns an empty Builder.
func NewBuilder(o Options) *Builder {
	rows := o.Rows
	if rows <= 0 {
		rows = DefaultRows
	}
	rows = min(rows, MaxRows)
	b := &Builder{
		frameIdx:  make(map[string]FrameID),
		stacks:    newStackTable(),
		threadIdx: make(map[Thread]ThreadID),
		open:      make(map[entryKey]int32),
		cur:       -1,
		lastIdx:   -1,
		lastThID:  [2]ThreadID{NoThread, NoThread},
		ordered:   true,
		hasOrigin: o.HasOrigin,
		merge:     o.Merge.norm(),
		keepTimes: o.Times,
	}
	if b.merge&(MergeFrames|MergeStacks) == 0 && !o.Whole && o.Width == 0 {
		b.budget = max(o.Budget, 0)
	}
	b.cap = o.Cap
	if b.cap <= 0 {
		b.cap = DefaultCap
	}
	b.t.Rows, b.t.Seconds, b.t.Origin = rows, 1, o.Origin
	b.t.Nodes = []Node{{Parent: -1, Frame: -1}}
	b.t.comm = []FrameID{-1}
	b.grid(o)
	if b.merge&MergeFrames != 0 {
		b.materialize() // processes are nodes as they come
	}
	return b
}

// Input starts a new input: the records added next belong to it. offset
// is added to their times to place them on the axis (0 when the axis is
// perf's clock). It returns the input's index.
func (b *Builder) Input(name, host string, offset folded.Time) int {
	b.t.Inputs = append(b.t.Inputs, Input{Name: name, Host: host, Offset: offset})
	b.cur = int32(len(b.t.Inputs) - 1)
	return int(b.cur)
}

// SetMetas records the metadata lines read from input i (known once it has
// been read); its Host is taken from them when it has none.
func (b *Builder) SetMetas(i int, metas []folded.Meta) {
	in := &b.t.Inputs[i]
	in.Metas = metas
	if in.Host == "" {
		for k := range metas {
			if h, ok := metas[k].Get(folded.KeyHost); ok {
				in.Host = h
			}
		}
	}
}

// Add adds one record to the current input. Classic and differential
// lines have no time: they are counted in Untimed and left out, unless
// the timeline is Whole (they go in its one cell) or keeps them apart
// (Options.Untimed: classic lines in cell NoTime). A sample too far from
// the origin is an error (ErrSpan), and so is every Add after it.
func (b *Builder) Add(rec *folded.Record) error {
	if b.err != nil {
		return b.err
	}
	if rec.Kind != folded.Timed {
		if !b.t.Whole && (!b.untimed || rec.Kind == folded.Diff) {
			b.t.Untimed++
			return nil
		}
		return b.addLine(rec)
	}
	cpu, th := ids(rec)
	return b.add(rec.Time, rec.Count, rec.Stack, true, cpu, th)
}

// add adds one sample of the current input at time at (on its own clock):
// its count, its stack (none when !hasStack: the entry's Stack is Root),
// CPU and thread, each left out of the key when merged.
func (b *Builder) add(at0 folded.Time, count float64, stk []byte, hasStack bool, cpu int32, th Thread) error {
	if b.budget > 0 && b.entries() >= b.budget {
		b.reduce()
	}
	cell, ok := b.place(at0)
	if !ok {
		return b.err
	}
	in := &b.t.Inputs[b.cur]
	in.Samples++
	b.t.Samples++

	idx := b.put(cell, stk, hasStack, cpu, th, count)
	b.entry(idx).Samples++
	if b.keepTimes > 0 {
		if b.times.n < b.keepTimes {
			b.times.add(SampleTime{At: at0 + in.Offset, Entry: idx})
		} else {
			b.times, b.keepTimes, b.t.TimesOver = chunks[SampleTime]{}, 0, true
		}
	}
	return nil
}

// addLine adds a line without a time (classic or differential) to the
// Whole cell, or to cell NoTime (Options.Untimed).
func (b *Builder) addLine(rec *folded.Record) error {
	if b.cur < 0 {
		b.Input("", "", 0)
	}
	b.t.Classic++
	cell := int64(NoTime)
	if b.t.Whole {
		cell = 0
	}
	cpu, th := ids(rec)
	idx := b.put(cell, rec.Stack, true, cpu, th, rec.Count)
	if rec.Kind == folded.Diff {
		b.addBefore(int(idx), rec.Before)
	}
	return nil
}

// put adds count to the entry of cell and the key, made if need be, and
// returns its index.
func (b *Builder) put(cell int64, stk []byte, hasStack bool, cpu int32, th Thread, count float64) int32 {
	stack := Root
	if hasStack {
		switch {
		case b.merge&MergeStacks != 0:
		case b.merge&MergeFrames != 0:
			stack = b.process(stk)
		default:
			stack = b.stack(stk)
		}
	}
	thread := NoThread
	if b.merge&MergeThreads == 0 {
		th.Comm = b.comm(stack)
		switch {
		case th == b.lastTh[0] && b.lastThID[0] != NoThread:
			thread = b.lastThID[0]
		case th == b.lastTh[1] && b.lastThID[1] != NoThread:
			thread = b.lastThID[1]
		default:
			var ok bool
			thread, ok = b.threadIdx[th]
			if !ok {
				thread = ThreadID(len(b.t.Threads))
				b.t.Threads = append(b.t.Threads, th)
				b.threadIdx[th] = thread
			}
			b.lastTh[1], b.lastThID[1] = b.lastTh[0], b.lastThID[0]
			b.lastTh[0], b.lastThID[0] = th, thread
		}
	}
	if b.merge&MergeCPUs != 0 {
		cpu = -1
	}
	input := b.cur
	if b.merge&MergeInputs != 0 {
		input = NoInput
	}
	whole := int64(count)
	if count != math.Trunc(count) || math.Abs(count) >= 1<<62 {
		whole = 0 // see addWeight
	}

	var idx int32
	var ok bool
	k := entryKey{input, stack, thread, cpu}
	if b.byStack != nil {
		idx = -1
		if int(stack) < len(b.byStack) {
			idx = b.byStack[stack]
		}
		ok = idx >= 0
	} else {
		if !b.hasCell || cell != b.cell {
			if b.hasCell && cell < b.cell {
				b.ordered = false
			}
			if len(b.open) > 4096 {
				b.open = make(map[entryKey]int32)
			} else {
				clear(b.open)
			}
			b.lastIdx = -1
			b.cell, b.hasCell = cell, true
			if b.t.Reduced != nil && b.t.Reduced.Cap > 0 {
				b.cutTail() // the cell closed: its heaviest keys
			}
			b.run = b.entries()
		}
		idx, ok = b.lastIdx, b.lastIdx >= 0 && k == b.last
		if !ok {
			idx, ok = b.open[k]
		}
	}
	if !ok || b.entry(idx).Samples == math.MaxUint32 || !fits(b.entry(idx).Weight, whole) {
		b.unshare()
		idx = int32(len(b.t.Entries) + b.more.add(Entry{Cell: int32(cell), Input: input, Stack: stack, Thread: thread, CPU: cpu}))
		if b.t.Fractions != nil {
			b.t.Fractions = append(b.t.Fractions, 0)
		}
		if b.t.Diffs != nil {
			b.t.Diffs = append(b.t.Diffs, Diff{})
		}
		if b.byStack != nil {
			for len(b.byStack) <= int(stack) {
				b.byStack = append(b.byStack, -1)
			}
			b.byStack[stack] = idx
		} else {
			b.open[k] = idx
		}
	}
	if b.byStack == nil {
		b.last, b.lastIdx = k, idx
	}
	b.addWeight(int(idx), count)
	return idx
}

// place returns the cell of time at0 of the current input (on its own
// clock), the first time placed being the origin when none was given, and
// widens the timeline's extent to it; false (b.err set) when the cell is
// too far from the origin.
func (b *Builder) place(at0 folded.Time) (int64, bool) {
	if b.cur < 0 {
		b.Input("", "", 0)
	}
	at := at0 + b.t.Inputs[b.cur].Offset
	if !b.hasOrigin {
		b.t.Origin, b.hasOrigin = b.origin(at), true
	}
	rel := int64(at) - int64(b.t.Origin)
	if (rel > 0) != (at > b.t.Origin) { // overflow
		rel = math.MaxInt64
	}
	cell := b.t.cellOfRel(rel)
	if cell > math.MaxInt32 || cell <= NoTime {
		b.err = fmt.Errorf("%w: @%v is %d cells of %s from the origin @%v; cut a window with --from and --to",
			ErrSpan, at0, cell, b.width(), b.t.Origin)
		return 0, false
	}
	b.t.extend(cell)
	b.t.Inputs[b.cur].Seen.Add(at0)
	return cell, true
}

// addWeight adds a count to entry i's weight: its integer part to
// Entry.Weight, exactly, and its fraction, if any, to Fractions[i] (made
// for every entry at the first fraction). A count that is not finite or
// beyond 2^62 goes whole into Fractions. put has made a new entry when the
// integer part would not fit (see fits).
func (b *Builder) addWeight(i int, v float64) {
	whole := math.Trunc(v)
	if math.IsNaN(v) || math.Abs(v) >= 1<<62 {
		whole = 0
	}
	b.entry(int32(i)).Weight += int64(whole)
	if frac := v - whole; frac != 0 {
		if b.t.Fractions == nil {
			b.t.Fractions = make([]float64, b.entries())
		}
		b.t.Fractions[i] += frac
	}
}

// fits reports whether a weight w can take n more without overflow.
func fits(w, n int64) bool {
	if n >= 0 {
		return w <= math.MaxInt64-n
	}
	return w >= math.MinInt64-n
}

func (b *Builder) width() string {
	if b.t.Width > 0 {
		return time.Duration(b.t.Width).String()
	}
	if b.t.Rows == 1 {
		return fmt.Sprintf("%d s", b.t.Seconds)
	}
	return fmt.Sprintf("1/%d s", b.t.Rows)
}

// Build returns the Timeline. The Builder must not be used afterwards.
func (b *Builder) Build() *Timeline {
	b.unshare()
	if b.t.Reduced != nil && b.t.Reduced.Cap > 0 {
		b.cutTail() // the last cell
	}
	b.flatten()
	t := &b.t
	b.tree() // entries now name the prefix tree's nodes
	var keys []Entry
	if b.times.n > 0 {
		keys = slices.Clone(t.Entries)
	}
	if !b.ordered {
		t.sortAll()
	}
	t.mergeRuns()
	if keys != nil {
		t.Times = b.sampleTimes(keys)
	}
	if r := t.Reduced; r != nil {
		r.Entries = b.fullEntries
		if b.fullSamples > 0 {
			r.Entries = int64(float64(b.fullEntries) * float64(t.Samples) / float64(b.fullSamples))
		}
	}
	t.merge = b.merge
	b.stacks, b.open, b.byStack = stackTable{}, nil, nil
	return t
}

func compareEntries(a, b *Entry) int {
	if c := cmp.Compare(a.Cell, b.Cell); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Input, b.Input); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Stack, b.Stack); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Thread, b.Thread); c != 0 {
		return c
	}
	return cmp.Compare(a.CPU, b.CPU)
}

// byKey sorts entries and their fractions together.
type byKey struct{ t *Timeline }

func (s byKey) Len() int           { return len(s.t.Entries) }
func (s byKey) Less(i, j int) bool { return compareEntries(&s.t.Entries[i], &s.t.Entries[j]) < 0 }
func (s byKey) Swap(i, j int) {
	e := s.t.Entries
	e[i], e[j] = e[j], e[i]
	if f := s.t.Fractions; f != nil {
		f[i], f[j] = f[j], f[i]
	}
	if d := s.t.Diffs; d != nil {
		d[i], d[j] = d[j], d[i]
	}
}

// sortAll sorts the entries by cell and key (cells came back: several
// inputs over the same time, or an input out of order).
func (t *Timeline) sortAll() {
	if t.Fractions == nil && t.Diffs == nil {
		slices.SortFunc(t.Entries, func(a, b Entry) int { return compareEntries(&a, &b) })
		return
	}
	sort.Stable(byKey{t})
}

// sortRun sorts entries [i, j) by key.
func (t *Timeline) sortRun(i, j int) {
	run := t.Entries[i:j]
	if slices.IsSortedFunc(run, func(a, b Entry) int { return compareEntries(&a, &b) }) {
		return
	}
	if t.Fractions == nil && t.Diffs == nil {
		slices.SortFunc(run, func(a, b Entry) int { return compareEntries(&a, &b) })
		return
	}
	sub := Timeline{Entries: run}
	if t.Fractions != nil {
		sub.Fractions = t.Fractions[i:j]
	}
	if t.Diffs != nil {
		sub.Diffs = t.Diffs[i:j]
	}
	sort.Stable(byKey{&sub})
}

// mergeRuns sorts each run of entries of one cell by key (cells must be in
// order) and sums the entries of equal keys into one.
func (t *Timeline) mergeRuns() {
	e := t.Entries
	for i := 0; i < len(e); {
		j := i + 1
		for j < len(e) && e[j].Cell == e[i].Cell {
			j++
		}
		t.sortRun(i, j)
		i = j
	}
	t.compact(0)
}

// compact sums the entries from index from on that have equal keys and
// follow each other into one.
func (t *Timeline) compact(from int) {
	e := t.Entries
	w := from
	for r := from; r < len(e); r++ {
		if w > from {
			p := &e[w-1]
			if compareEntries(p, &e[r]) == 0 && uint64(p.Samples)+uint64(e[r].Samples) <= math.MaxUint32 && fits(p.Weight, e[r].Weight) {
				p.Samples += e[r].Samples
				p.Weight += e[r].Weight
				if t.Fractions != nil {
					t.Fractions[w-1] += t.Fractions[r]
				}
				if t.Diffs != nil {
					t.Diffs[w-1].add(t.Diffs[r])
				}
				continue
			}
		}
		e[w] = e[r]
		if t.Fractions != nil {
			t.Fractions[w] = t.Fractions[r]
		}
		if t.Diffs != nil {
			t.Diffs[w] = t.Diffs[r]
		}
		w++
	}
	t.Entries = e[:w]
	if t.Fractions != nil {
		t.Fractions = t.Fractions[:w]
	}
	if t.Diffs != nil {
		t.Diffs = t.Diffs[:w]
	}
}

// sampleTimes returns the samples' times in time order (stable), with the
// index of their entry once sorted and merged: keys are the entries as
// they were when the times were taken.
func (b *Builder) sampleTimes(keys []Entry) []SampleTime {
	b.remapTimes(keys)
	out := b.times.appendTo(nil)
	slices.SortStableFunc(out, func(a, b SampleTime) int { return cmp.Compare(a.At, b.At) })
	return out
}

// remapTimes points the samples' times at their entries once sorted and
// merged, keys being the entries before.
func (b *Builder) remapTimes(keys []Entry) {
	for _, ch := range b.times.c {
		for i := range ch {
			k := &keys[ch[i].Entry]
			j, _ := slices.BinarySearchFunc(b.t.Entries, k, func(e Entry, k *Entry) int { return compareEntries(&e, k) })
			ch[i].Entry = int32(j)
		}
	}
}
