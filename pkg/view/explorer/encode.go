package explorer

import (
	"cmp"
	"encoding/binary"
	"io"
	"math"
	"slices"
	"strings"

	"flamekit/internal/base/hugepage"
	"flamekit/pkg/filter/idle"
	"flamekit/pkg/folded"
	"flamekit/pkg/timeline"
	"flamekit/pkg/view/flamegraph"
)

// The data the page's script reads is one gzipped byte string of unsigned
// varints ("uv"), zigzag varints ("zv") and raw bytes, base64 in an inert
// <script type="application/octet-stream"> element:
//
//	frames  uv n, then n times: uv length, UTF-8 bytes
//	        (sorted by name+";" bytewise: the order flamegraph gives
//	        siblings, so sorting by id sorts by name)
//	nodes   uv n (the root not counted), then n times: uv distance to the
//	        parent (node i's parent is i - distance; the root is 0), uv frame
//	        (nodes in pre-order, siblings by frame: flamegraph's layout order)
//	idle    uv n, then n times uv the gap to the previous idle node (+1)
//	threads uv n, then n times: uv which ids the lines carried (1: pid,
//	        2: tid), zv pid, zv tid, uv comm frame
//	cells   uv n, then n times: zv cell - previous cell, uv entries in it
//	entries uv n, then columns of n values each: zv stack - previous stack
//	        in the cell, uv thread, uv cpu+1, uv input, uv samples, then the
//	        weights: zv weight - samples*unit when integral (unit in the
//	        page's header), else 8 bytes of float64, little endian.
//	times   uv n (0 when the timeline kept no sample times), then n
//	        times: zv time - previous time (ns after the origin, the
//	        first from 0), zv entry - previous entry (entries in the
//	        order above): every sample at its own time, for the chart.
//
// Frames, nodes and threads are renumbered in that order; names are data:
// the script puts them in the page with textContent and the canvas only.

// encoder appends varints to a buffer it hands to w as it fills, so
// that the data is never whole in memory (only gzipped).
type encoder struct {
	b   []byte
	w   io.Writer
	err error
}

func (e *encoder) uv(v uint64) {
	e.b = binary.AppendUvarint(e.b, v)
	e.spill()
}

func (e *encoder) zv(v int64) {
	e.b = binary.AppendVarint(e.b, v)
	e.spill()
}

func (e *encoder) str(s string) {
	e.b = append(e.b, s...)
	e.spill()
}

// spill writes the buffer out once it holds 64 KiB.
func (e *encoder) spill() {
	if len(e.b) >= 64<<10 {
		e.flush()
	}
}

func (e *encoder) flush() {
	if len(e.b) > 0 && e.err == nil {
		_, e.err = e.w.Write(e.b)
	}
	e.b = e.b[:0]
}

// encoded is what the header says of the data.
type encoded struct {
	integral   bool
	unit       int64 // the usual weight of one sample
	frames     int
	nodes      int
	entries    int
	idleStacks int
	times      int
}

// encode writes the timeline's data for the page to w.
func encode(w io.Writer, tl *timeline.Timeline) (encoded, error) {
	e := encoder{b: make([]byte, 0, 70<<10), w: w}
	// Frames by name+";" bytewise.
	order := make([]int32, len(tl.Frames))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int { return compareNames(tl.Frames[a], tl.Frames[b]) })
	frameID := make([]int32, len(tl.Frames))
	e.uv(uint64(len(order)))
	for id, old := range order {
		frameID[old] = int32(id)
		e.uv(uint64(len(tl.Frames[old])))
		e.str(tl.Frames[old])
	}

	// Nodes in pre-order, children by frame.
	n := len(tl.Nodes)
	first := make([]int32, n+1) // children of node p: kids[first[p]:first[p+1]]
	for i := 1; i < n; i++ {
		first[tl.Nodes[i].Parent+1]++
	}
	for p := 1; p <= n; p++ {
		first[p] += first[p-1]
	}
	kids := make([]int32, max(n-1, 0))
	fill := slices.Clone(first)
	for i := 1; i < n; i++ {
		p := tl.Nodes[i].Parent
		kids[fill[p]] = int32(i)
		fill[p]++
	}
	for p := 0; p < n; p++ {
		k := kids[first[p]:first[p+1]]
		slices.SortFunc(k, func(a, b int32) int { return cmp.Compare(frameID[tl.Nodes[a].Frame], frameID[tl.Nodes[b].Frame]) })
	}
	nodeID := make([]int32, n)
	e.uv(uint64(n - 1))
	stack := []int32{0}
	next := int32(1)
	for len(stack) > 0 {
		p := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if p != 0 {
			nodeID[p] = next
			e.uv(uint64(next - nodeID[tl.Nodes[p].Parent]))
			e.uv(uint64(frameID[tl.Nodes[p].Frame]))
			next++
		}
		k := kids[first[p]:first[p+1]]
		for i := len(k) - 1; i >= 0; i-- {
			stack = append(stack, k[i])
		}
	}

	// Idle stacks (the samples of an idle CPU, pkg/filter/idle), by new id.
	var idleIDs []int32
	for i, is := range IdleStacks(tl) {
		if is {
			idleIDs = append(idleIDs, nodeID[i])
		}
	}
	slices.Sort(idleIDs)
	e.uv(uint64(len(idleIDs)))
	prev := int32(0)
	for _, id := range idleIDs {
		e.uv(uint64(id - prev))
		prev = id
	}

	e.uv(uint64(len(tl.Threads)))
	for _, th := range tl.Threads {
		var has uint64
		if th.Has&folded.HasPID != 0 {
			has |= 1
		}
		if th.Has&folded.HasTID != 0 {
			has |= 2
		}
		e.uv(has)
		e.zv(int64(th.PID))
		e.zv(int64(th.TID))
		e.uv(uint64(frameID[th.Comm]))
	}

	// Entries: renumbered, and sorted within each cell by new stack id.
	type ent struct {
		i     int32
		stack int32
	}
	ents := hugepage.Slice[ent](len(tl.Entries)) // tens of MB for a night: huge pages
	for i := range tl.Entries {
		ents = append(ents, ent{int32(i), nodeID[tl.Entries[i].Stack]})
	}
	// The cells: runs of entries of one cell (entries are sorted by cell).
	var runs int
	for i := range tl.Entries {
		if i == 0 || tl.Entries[i].Cell != tl.Entries[i-1].Cell {
			runs++
		}
	}
	e.uv(uint64(runs))
	prevCell := int64(0)
	for i, k := 0, 0; i < len(ents); k++ {
		c := tl.Entries[i].Cell
		j := i + 1
		for j < len(ents) && tl.Entries[j].Cell == c {
			j++
		}
		slices.SortFunc(ents[i:j], func(a, b ent) int {
			if c := cmp.Compare(a.stack, b.stack); c != 0 {
				return c
			}
			return cmp.Compare(a.i, b.i)
		})
		if k == 0 {
			e.zv(int64(c))
		} else {
			e.zv(int64(c) - prevCell)
		}
		prevCell = int64(c)
		e.uv(uint64(j - i))
		i = j
	}
	e.uv(uint64(len(ents)))
	last := int32(0)
	lastCell := int32(math.MinInt32)
	for _, x := range ents {
		en := &tl.Entries[x.i]
		if en.Cell != lastCell {
			last, lastCell = 0, en.Cell
		}
		e.zv(int64(x.stack - last))
		last = x.stack
	}
	for _, x := range ents {
		e.uv(uint64(tl.Entries[x.i].Thread))
	}
	for _, x := range ents {
		e.uv(uint64(int64(tl.Entries[x.i].CPU) + 1))
	}
	for _, x := range ents {
		e.uv(uint64(tl.Entries[x.i].Input))
	}
	for _, x := range ents {
		e.uv(uint64(tl.Entries[x.i].Samples))
	}
	out := encoded{integral: tl.Integral(), frames: len(order), nodes: n - 1, entries: len(ents), idleStacks: len(idleIDs)}
	if out.integral {
		for _, en := range tl.Entries {
			if en.Weight > 1<<53 {
				out.integral = false // beyond what the script's numbers hold exactly
			}
		}
	}
	if out.integral {
		out.unit = usualWeight(tl)
		for _, x := range ents {
			en := &tl.Entries[x.i]
			e.zv(en.Weight - int64(en.Samples)*out.unit)
		}
	} else {
		for _, x := range ents {
			e.b = binary.LittleEndian.AppendUint64(e.b, math.Float64bits(tl.WeightOf(int(x.i))))
			e.spill()
		}
	}
	// Sample times, by the entries' order above.
	var pos []int32
	if len(tl.Times) > 0 {
		pos = make([]int32, len(tl.Entries))
		for k, x := range ents {
			pos[x.i] = int32(k)
		}
	}
	e.uv(uint64(len(tl.Times)))
	var lastAt, lastE int64
	for _, st := range tl.Times {
		at := int64(st.At - tl.Origin)
		e.zv(at - lastAt)
		p := int64(pos[st.Entry])
		e.zv(p - lastE)
		lastAt, lastE = at, p
	}
	out.times = len(tl.Times)
	e.flush()
	return out, e.err
}

// IdleStacks says which stacks of the timeline are an idle CPU's (see
// pkg/filter/idle), by StackID: the text of a stack is made only when its
// process is the idle task's.
func IdleStacks(tl *timeline.Timeline) []bool {
	out := make([]bool, len(tl.Nodes))
	var buf []byte
	for i := 1; i < len(tl.Nodes); i++ {
		comm := tl.Comm(timeline.StackID(i))
		if !strings.HasPrefix(tl.Frames[comm], idle.Process) {
			continue
		}
		buf = tl.AppendStack(buf[:0], timeline.StackID(i))
		out[i] = idle.Is(buf)
	}
	return out
}

// usualWeight returns the most common weight of a one-sample entry (a
// cpu-clock period), so that most weights are written as a 0: the
// weight minus samples times it.
func usualWeight(tl *timeline.Timeline) int64 {
	count := map[int64]int{}
	for i, en := range tl.Entries {
		if en.Samples == 1 {
			count[en.Weight]++
		}
		if i > 100000 {
			break
		}
	}
	best, n := int64(0), 0
	for w, c := range count {
		if c > n || c == n && w < best {
			best, n = w, c
		}
	}
	// samples * best must not overflow.
	for _, en := range tl.Entries {
		if best > 0 && int64(en.Samples) > math.MaxInt64/4/best {
			return 0
		}
	}
	return best
}

// compareNames orders frame names as flamegraph orders siblings: by
// name+";" bytewise (flamegraph.CompareStacks of two one-frame stacks).
func compareNames(a, b string) int { return flamegraph.CompareStacks(a, b) }
