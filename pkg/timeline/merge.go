package timeline

import (
	"bytes"
	"slices"

	"flamekit/pkg/folded"
)

// Merge says what the entries of a Timeline are not keyed by: samples of
// one cell and input that differ only by what is merged are one entry. A
// view builds the timeline it needs and no more: a heat map needs one
// entry per cell and input (MergeAll: the per-cell series), the bursts'
// shares the stack and thread of each sample (MergeCPUs), a flame graph of
// a range the whole stacks. Memory is one
// entry per distinct key of each cell: the fewer the keys, the fewer the
// entries.
type Merge uint8

// The keys that can be merged, bits of a Merge.
const (
	// MergeFrames keys entries by their stack's process only (its root
	// frame, as stackcollapse names the process): an entry's Stack is
	// the node of depth 1 of its stack. The frames below are not kept.
	MergeFrames Merge = 1 << iota
	// MergeStacks keys entries by no stack at all: their Stack is Root.
	// It implies MergeFrames.
	MergeStacks
	// MergeThreads keys entries by no thread: their Thread is NoThread.
	MergeThreads
	// MergeCPUs keys entries by no CPU: their CPU is -1.
	MergeCPUs
	// MergeAll keys entries by their cell and input only: one entry per
	// cell and input, the per-cell series of samples and weight.
	MergeAll = MergeFrames | MergeStacks | MergeThreads | MergeCPUs
)

// NoThread is the Thread of the entries of a Timeline whose threads are
// merged (MergeThreads).
const NoThread ThreadID = -1

func (m Merge) norm() Merge {
	if m&MergeStacks != 0 {
		m |= MergeFrames
	}
	return m & (MergeAll | MergeInputs)
}

// Merged returns what the entries are not keyed by.
func (t *Timeline) Merged() Merge { return t.merge }

// Extent returns the cells of the first and last time added or covered
// (Builder.Cover), which may lie beyond the cells holding an entry (Span);
// ok is false when no time was.
func (t *Timeline) Extent() (first, last int64, ok bool) {
	return t.lo, t.hi, t.extended
}

// extend widens the extent to cell c.
func (t *Timeline) extend(c int64) {
	if !t.extended {
		t.lo, t.hi, t.extended = c, c, true
		return
	}
	t.lo, t.hi = min(t.lo, c), max(t.hi, c)
}

// AddAt adds one sample of the current input at time at (on the input's
// own clock, as a record's time) with the given count and stack (nil: no
// stack, the entry's Stack is Root), carrying neither thread ids nor CPU:
// what a caller that reads no folded records (a heat map counting times,
// a series of the bursts) adds. Errors are Add's.
func (b *Builder) AddAt(at folded.Time, count float64, stack []byte) error {
	if b.err != nil {
		return b.err
	}
	th := Thread{PID: -1, TID: -1}
	return b.add(at, count, stack, stack != nil, -1, th)
}

// Cover widens the timeline's Extent to the cell of time at (of the
// current input, on its own clock) without adding a sample: a caller that
// reads a sample but does not keep it (an idle one) covers its time, so
// that a view's span starts at the capture's first sample whatever is
// kept. Without an origin in Options, the first time covered or added is
// the origin.
func (b *Builder) Cover(at folded.Time) error {
	if b.err != nil {
		return b.err
	}
	b.place(at)
	return b.err
}

// process interns the process of a folded stack, its root frame: the node
// of depth 1 (MergeFrames).
func (b *Builder) process(s []byte) StackID {
	root := s
	if i := bytes.IndexByte(s, ';'); i >= 0 {
		root = s[:i]
	}
	if b.lastProc > Root && b.t.Frames[b.t.Nodes[b.lastProc].Frame] == string(root) {
		return b.lastProc // samples come in runs of one process
	}
	b.lastProc = b.childOf(Root, b.frame(root))
	return b.lastProc
}

// reopen follows a sort of the entries made so far: the open cell's
// entries may have moved, so the next sample of the last cell makes a new
// entry, summed with its like by Build.
func (b *Builder) reopen() {
	clear(b.open)
	b.lastIdx = -1
	b.run = b.entries()
	if n := len(b.t.Entries); n > 0 {
		b.cell, b.hasCell = int64(b.t.Entries[n-1].Cell), true
	}
}

// Snapshot returns the Timeline of the samples added so far; the Builder
// goes on (Build, by contrast, ends it). The snapshot shares the
// Builder's entries until the Builder changes them (adding more, Build), which copies them first: a caller that reads the timeline more
// than once while samples still come (a series searched, then added to)
// pays a copy only when it adds again.
func (b *Builder) Snapshot() *Timeline {
	b.unshare()
	b.flatten()
	b.materialize() // a snapshot's stacks are nodes
	t := &b.t
	var keys []Entry
	if b.times.n > 0 {
		keys = slices.Clone(t.Entries)
	}
	if !b.ordered {
		t.sortAll()
		b.ordered = true
	}
	t.mergeRuns()
	if keys != nil {
		b.remapTimes(keys)
	}
	b.reopen()
	snap := *t
	n := len(t.Entries)
	snap.Entries = t.Entries[:n:n]
	if t.Fractions != nil {
		snap.Fractions = t.Fractions[:n:n]
	}
	if t.Diffs != nil {
		snap.Diffs = t.Diffs[:n:n]
	}
	snap.Inputs = slices.Clone(t.Inputs) // their counts go on
	snap.Frames = t.Frames[:len(t.Frames):len(t.Frames)]
	snap.Nodes = t.Nodes[:len(t.Nodes):len(t.Nodes)]
	snap.Threads = t.Threads[:len(t.Threads):len(t.Threads)]
	snap.comm = t.comm[:len(t.comm):len(t.comm)]
	snap.merge = b.merge
	b.shared = n > 0
	return &snap
}

// unshare copies the entries a Snapshot holds before they are changed in
// place.
func (b *Builder) unshare() {
	if !b.shared {
		return
	}
	b.shared = false
	b.t.Entries = slices.Clone(b.t.Entries)
	if b.t.Fractions != nil {
		b.t.Fractions = slices.Clone(b.t.Fractions)
	}
	b.t.Diffs = slices.Clone(b.t.Diffs)
}

// MergeKeys returns the timeline of the entries keep accepts (nil: all)
// with the keys m merged away as well, as a Builder that merged them from
// the start (Options.Merge) would have made it of the same samples: a view
// derives the smaller timeline it needs (the bursts' busy samples by
// process) from one that keeps more (the explorer page's), without
// reading its input again. Samples counts the samples kept; the Extent
// stays t's, as if the samples left out had been covered. It returns t
// itself when nothing is left out or merged.
func (t *Timeline) MergeKeys(m Merge, keep func(*Entry) bool) *Timeline {
	m = (t.merge | m).norm()
	if m == t.merge && keep == nil {
		return t
	}
	out := *t
	out.Times = nil // their entries are not the merged ones
	out.Entries = nil
	out.Fractions = nil
	if t.Fractions != nil {
		out.Fractions = []float64{}
	}
	out.Inputs = slices.Clone(t.Inputs)
	for i := range out.Inputs {
		out.Inputs[i].Samples = 0
	}
	out.Samples = 0
	run := 0 // the first entry of the last cell in out
	for i := range t.Entries {
		e := t.Entries[i]
		if keep != nil && !keep(&t.Entries[i]) {
			continue
		}
		if n := len(out.Entries); n > 0 && out.Entries[n-1].Cell != e.Cell {
			// a cell done: its keys made equal are summed now, so
			// that out holds merged entries and one cell more
			out.sortRun(run, n)
			out.compact(run)
			run = len(out.Entries)
		}
		switch {
		case m&MergeStacks != 0:
			e.Stack = Root
		case m&MergeFrames != 0:
			for e.Stack != Root && t.Nodes[e.Stack].Depth > 1 {
				e.Stack = t.Nodes[e.Stack].Parent
			}
		}
		if m&MergeThreads != 0 {
			e.Thread = NoThread
		}
		if m&MergeCPUs != 0 {
			e.CPU = -1
		}
		out.Entries = append(out.Entries, e)
		if t.Fractions != nil {
			out.Fractions = append(out.Fractions, t.Fractions[i])
		}
		out.Samples += int64(e.Samples)
		if int(e.Input) < len(out.Inputs) {
			out.Inputs[e.Input].Samples += int64(e.Samples)
		}
	}
	out.merge = m
	out.mergeRuns() // cells stay in order; keys that became equal are summed
	return &out
}
