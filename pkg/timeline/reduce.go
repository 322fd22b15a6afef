package timeline

import (
	"cmp"
	"math"
	"slices"
)

// A Builder given a Budget (Options.Budget) holds at most that many
// entries, whatever the number of samples: when a sample would make one
// more, it reduces what it holds one step of a ladder at a time, until the
// entries fit, and goes on at the step reached. The steps, from the cells
// asked (Options.Rows):
//
//   - cells widened, every key kept: to 100 ms, 200 ms, 1 s (the widths
//     Widen gives);
//   - then cells of 1 s, 10 s, 1 min, 10 min, 1 h and 1 day in which each
//     input keeps its Cap heaviest keys (Options.Cap) (by weight; the CPUs merged
//     first), the samples of the others summed per process in the stack
//     "process;[other stacks]" (OtherFrame), of the process's thread
//     without ids (pid and tid -1, as lines that carry none).
//
// Every sample stays counted in its cell, input and process: the series
// of samples and weight per cell (the heat map) and per process are
// exact at the width reached; only which stacks, threads and CPUs the
// samples had is cut, and only in cells of more than Cap keys. Memory is
// the budget's entries (and the distinct stacks), not the samples.

// DefaultCap is the number of keys each input keeps in a cell once the
// cells are a second wide and the entries still do not fit the budget
// (Options.Cap): 256 stacks a second or more (on a host of 96 CPUs at
// 97 Hz, about 9,300 samples a second).
const DefaultCap = 256

// OtherFrame is the frame under a process of the samples a reduced
// timeline summed rather than kept (Reduced): the process's stacks past
// the Cap heaviest of a cell.
const OtherFrame = "[other stacks]"

// Reduced says how a Builder with a Budget reduced the timeline to fit it
// (nil when it held every entry at the cells asked).
type Reduced struct {
	// Rows is the cells per second asked (Options.Rows): the timeline's
	// own Rows and Seconds are those reached.
	Rows int
	// Cap is the keys kept per cell and input (0: every key kept, only
	// the cells were widened); CPUs are then merged.
	Cap int
	// Other is the number of samples summed in the OtherFrame stacks.
	Other int64
	// Entries estimates the entries the timeline would hold at the cells
	// asked: those held when the first reduction came, scaled by the
	// samples read since.
	Entries int64
}

// Widen returns the timeline with its cells one step wider: from 20 ms
// (50 a second) to 100 ms, 200 ms, 1 s, then 10 s, 1 min, 10 min, 1 h and
// 1 day (Coarsen). It returns nil when no step is left (cells of a day,
// or not of this grid: Width, Whole).
func (t *Timeline) Widen() *Timeline {
	k := widenBy(t.Rows, t.Seconds)
	if k == 0 || t.Width > 0 || t.Whole {
		return nil
	}
	return t.Coarsen(k)
}

// widenBy returns the factor that widens cells of rows a second (seconds
// a cell) one step, or 0 when none is left.
func widenBy(rows, seconds int) int {
	if rows > 1 {
		for _, r := range []int{10, 5, 2, 1} {
			if r < rows && rows%r == 0 {
				return rows / r
			}
		}
		return 0
	}
	for _, s := range []int{10, 60, 600, 3600, 86400} {
		if s > seconds && s%seconds == 0 {
			return s / seconds
		}
	}
	return 0
}

// reduce takes the timeline held one step down the ladder and more, until
// its entries fit the budget; when no step is left it stops enforcing the
// budget (the timeline then holds more). Once keys are cut, the cells
// already cut hold at most Cap keys, and the open one (the latest) more:
// reduce cuts it too and stays at the width reached when that leaves half
// the budget free (so that it is not cut again a few samples later), or
// widens the cells until it does.
func (b *Builder) reduce() {
	b.unshare() // a Snapshot's entries stay as they were
	b.flatten()
	t := &b.t
	if t.Reduced == nil {
		t.Reduced = &Reduced{Rows: t.Rows}
		b.fullEntries, b.fullSamples = int64(len(t.Entries)), t.Samples
		// the samples' times name entries of the cells asked
		b.times, b.keepTimes, t.TimesOver = chunks[SampleTime]{}, 0, t.TimesOver || b.times.n > 0
	}
	if t.Reduced.Cap > 0 {
		b.cut()
	}
	for len(t.Entries) >= b.budget || t.Reduced.Cap > 0 && len(t.Entries) > b.budget/2 {
		switch k := widenBy(t.Rows, t.Seconds); {
		case t.Reduced.Cap == 0 && t.Rows > 1:
			b.widen(k)
		case t.Reduced.Cap == 0: // a second: keep the heaviest keys
			t.Reduced.Cap = b.cap
			b.merge |= MergeCPUs
			for i := range t.Entries {
				t.Entries[i].CPU = -1
			}
			b.sortMerge()
		case k > 0:
			b.widen(k)
		default:
			b.budget = 0 // cells of a day: the budget cannot hold
			b.reopen()
			return
		}
		if t.Reduced.Cap > 0 {
			b.cut()
		}
	}
	b.reopen()
}

// widen makes the cells k times wider, summing the entries that fall in
// one wider cell.
func (b *Builder) widen(k int) {
	t := &b.t
	if t.Rows > 1 {
		t.Rows /= k
	} else {
		t.Seconds *= k
	}
	for i := range t.Entries {
		if c := t.Entries[i].Cell; c != NoTime {
			t.Entries[i].Cell = int32(floorDiv(int64(c), int64(k)))
		}
	}
	t.lo, t.hi = floorDiv(t.lo, int64(k)), floorDiv(t.hi, int64(k))
	b.sortMerge()
}

// sortMerge sorts the entries by cell and key and sums those of equal
// keys.
func (b *Builder) sortMerge() {
	if !b.ordered {
		b.t.sortAll()
		b.ordered = true
	}
	b.t.mergeRuns()
}

// cut keeps, in each cell and for each input, the Cap heaviest keys, and
// sums the samples of the others per process into the process's
// OtherFrame stack.
func (b *Builder) cut() { b.cutIn(&b.t) }

// cutTail cuts the entries of the cell that just closed (made since
// b.run), so that only the open cell holds more than Cap keys.
func (b *Builder) cutTail() {
	n := b.entries()
	if n-b.run <= b.t.Reduced.Cap {
		return
	}
	// the tail, out of the chunks (every entry of it is since the last
	// flatten: b.run is set after one)
	from := b.run - len(b.t.Entries)
	sub := Timeline{Entries: make([]Entry, 0, n-b.run)}
	for i := from; i < b.more.n; i++ {
		sub.Entries = append(sub.Entries, *b.more.at(i))
	}
	if b.t.Fractions != nil {
		sub.Fractions = slices.Clone(b.t.Fractions[b.run:])
	}
	sub.sortAll()
	sub.mergeRuns()
	b.cutIn(&sub)
	b.more.truncate(from)
	for _, e := range sub.Entries {
		b.more.add(e)
	}
	if b.t.Fractions != nil {
		b.t.Fractions = append(b.t.Fractions[:b.run], sub.Fractions...)
	}
}

// cutIn cuts the entries of t, sorted by cell and key, as cut says.
func (b *Builder) cutIn(t *Timeline) {
	c := b.t.Reduced.Cap
	e := t.Entries
	w := 0
	var run []Entry
	var fr []float64
	type rest struct {
		e Entry
		f float64
	}
	var others map[FrameID][]rest // the last of each is being summed
	for i := 0; i < len(e); {
		j := i + 1
		for j < len(e) && e[j].Cell == e[i].Cell && e[j].Input == e[i].Input {
			j++
		}
		if j-i <= c {
			w += copy(e[w:], e[i:j])
			if t.Fractions != nil {
				copy(t.Fractions[w-(j-i):w], t.Fractions[i:j])
			}
			i = j
			continue
		}
		// the run's entries by weight, heaviest first
		run = append(run[:0], e[i:j]...)
		fr = fr[:0]
		if t.Fractions != nil {
			fr = append(fr, t.Fractions[i:j]...)
		}
		ord := make([]int32, j-i)
		for k := range ord {
			ord[k] = int32(k)
		}
		weight := func(k int32) float64 {
			if fr != nil {
				return float64(run[k].Weight) + fr[k]
			}
			return float64(run[k].Weight)
		}
		slices.SortFunc(ord, func(x, y int32) int {
			if c := cmp.Compare(weight(y), weight(x)); c != 0 {
				return c
			}
			if c := cmp.Compare(run[y].Samples, run[x].Samples); c != 0 {
				return c
			}
			return cmp.Compare(x, y)
		})
		if others == nil {
			others = map[FrameID][]rest{}
		}
		clear(others)
		for _, k := range ord[c:] {
			x := &run[k]
			comm := b.comm(x.Stack)
			os := others[comm]
			if n := len(os); n == 0 || uint64(os[n-1].e.Samples)+uint64(x.Samples) > math.MaxUint32 || !fits(os[n-1].e.Weight, x.Weight) {
				// a new sum (as put makes a new entry when one is full)
				os = append(os, rest{e: Entry{Cell: x.Cell, Input: x.Input, Stack: b.otherStack(comm), Thread: b.otherThread(comm), CPU: -1}})
				others[comm] = os
			}
			o := &os[len(os)-1]
			o.e.Samples += x.Samples
			o.e.Weight += x.Weight
			if fr != nil {
				o.f += fr[k]
			}
			if x.Stack != o.e.Stack { // not summed before
				b.t.Reduced.Other += int64(x.Samples)
			}
		}
		kept := ord[:c]
		slices.Sort(kept) // back in key order
		start := w
		for _, k := range kept {
			e[w] = run[k]
			if t.Fractions != nil {
				t.Fractions[w] = fr[k]
			}
			w++
		}
		for _, os := range others {
			for _, o := range os {
				e[w] = o.e
				if t.Fractions != nil {
					t.Fractions[w] = o.f
				}
				w++
			}
		}
		t.sortRun(start, w)
		i = j
	}
	t.Entries = e[:w]
	if t.Fractions != nil {
		t.Fractions = t.Fractions[:w]
	}
	t.mergeRuns() // an OtherFrame stack kept and made anew: one entry
}

// otherStack returns the stack "process;[other stacks]" of the process
// whose frame is comm.
func (b *Builder) otherStack(comm FrameID) StackID {
	name := OtherFrame
	if comm >= 0 {
		name = b.t.Frames[comm] + ";" + OtherFrame
	}
	return b.stack([]byte(name))
}

// otherThread returns the thread without ids of the process whose frame
// is comm (NoThread when threads are merged).
func (b *Builder) otherThread(comm FrameID) ThreadID {
	if b.merge&MergeThreads != 0 {
		return NoThread
	}
	th := Thread{PID: -1, TID: -1, Comm: comm}
	if comm < 0 {
		th.Comm = b.frame([]byte(OtherFrame))
	}
	id, ok := b.threadIdx[th]
	if !ok {
		id = ThreadID(len(b.t.Threads))
		b.t.Threads = append(b.t.Threads, th)
		b.threadIdx[th] = id
	}
	return id
}
