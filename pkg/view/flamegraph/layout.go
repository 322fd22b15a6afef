package flamegraph

import (
	"iter"
	"runtime"
	"slices"
	"strings"
	"unsafe"

	"flamekit/pkg/folded"
)

// Node is one frame (rectangle) of a flame graph: a function in one
// calling context, as wide as the samples of the stacks through it.
type Node struct {
	Name  string  // frame name as read (annotations such as _[k] included)
	Start float64 // left edge, in count units from the left of the graph
	End   float64 // right edge, in count units
	// Delta is the differential change (after − before) of the stacks that
	// end at this frame (its self change), when HasDelta is set.
	Delta    float64
	Depth    int32 // 0 for the root ("all")
	HasDelta bool  // opened by a differential line (flamegraph.pl's "delta defined")
}

// Layout is the frames of a flame graph in pre-order (a frame before its
// children, children left to right). Nodes[0] is the root when there is
// any input.
type Layout struct {
	Nodes    []Node
	Total    float64 // sum of the counts (the "after" counts of diff lines)
	MaxDelta float64 // the largest |after − before| of a line, at least 1
	// Timed says the count units are nanoseconds from the first sample
	// (a flame chart of timed samples, LayoutChart): pkg/svg draws a
	// time axis under it.
	Timed bool
}

// Kept returns the indices of the frames at least minCount count units
// wide, in pre-order, and the greatest depth among them: the frames a
// --minwidth threshold keeps. A frame's children are never wider than
// it, so whole subtrees go.
func (l *Layout) Kept(minCount float64) (kept []int32, maxDepth int32) {
	kept = make([]int32, 0, len(l.Nodes))
	for i := range l.Nodes {
		n := &l.Nodes[i]
		if n.End-n.Start < minCount {
			continue
		}
		kept = append(kept, int32(i))
		maxDepth = max(maxDepth, n.Depth)
	}
	return kept, maxDepth
}

// Builder lays out stacks one line at a time in the manner of
// flamegraph.pl: each line is merged with the frames of the line before it
// (the common prefix of frames is shared), and the x position advances by
// the line's count. Fed stacks sorted with CompareStacks, this is a
// frame-wise merge (every frame appears once per parent); fed stacks in
// time order, it is a flame chart.
type Builder struct {
	l    Layout
	open []int32 // indices of the open frames, open[0] = root
	// ends[d] is the byte offset in prev where open frame d+1 (below the
	// root) ends: the frames shared with the next line are found with one
	// byte comparison of the two stacks, not frame by frame.
	ends  []int
	prev  []byte // the previous line's stack, copied
	time  float64
	prune float64
	// names interns frame names: a name is copied once, however many
	// frames carry it, and the stacks given to Add need not outlive it.
	names map[string]string
}

// NewBuilder returns an empty Builder.
func NewBuilder() *Builder {
	return &Builder{l: Layout{MaxDelta: 1, Nodes: make([]Node, 0, 1024)}}
}

// Prune makes the Builder drop every frame narrower than minCount count
// units (with its subtree) as soon as it is closed, so that memory and
// time go to the frames that will be drawn. svg.Render prunes with the final
// --minwidth threshold anyway; pass a threshold no larger than that one.
func (b *Builder) Prune(minCount float64) { b.prune = minCount }

// commonPrefix returns the length of the longest common prefix of a and b.
func commonPrefix(a []byte, b string) int {
	n := min(len(a), len(b))
	i := 0
	for i+32 <= n && string(a[i:i+32]) == b[i:i+32] {
		i += 32
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

// Add adds one line: stack (frames separated by ';', root first; it is
// not kept), its count, and for a differential line its before count
// (diff set). An empty stack adds to the root only.
func (b *Builder) Add(stack string, count, before float64, diff bool) {
	stack = folded.TrimStack(stack)
	l := &b.l
	if diff {
		d := count - before
		if d < 0 {
			d = -d
		}
		if d > l.MaxDelta {
			l.MaxDelta = d
		}
	}
	if len(b.open) == 0 {
		l.Nodes = append(l.Nodes, Node{Start: b.time, HasDelta: diff})
		b.open = append(b.open, 0)
	}
	// the frames shared with the previous line: those that end inside the
	// common prefix, or at its end when both stacks have a frame end there
	n := commonPrefix(b.prev, stack)
	depth := 0
	for depth < len(b.ends) {
		e := b.ends[depth]
		if e > n || e == n && n < len(stack) && stack[n] != ';' {
			break
		}
		depth++
	}
	b.closeTo(depth)
	start := 0
	if depth > 0 {
		start = b.ends[depth-1] + 1
	}
	for start <= len(stack) && stack != "" {
		end := len(stack)
		if i := strings.IndexByte(stack[start:], ';'); i >= 0 {
			end = start + i
		}
		l.Nodes = append(l.Nodes, Node{Name: b.intern(stack[start:end]), Start: b.time,
			Depth: int32(len(b.open)), HasDelta: diff})
		b.open = append(b.open, int32(len(l.Nodes)-1))
		b.ends = append(b.ends, end)
		start = end + 1
	}
	b.prev = append(b.prev[:0], stack...)
	if diff {
		leaf := &l.Nodes[b.open[len(b.open)-1]]
		leaf.Delta += count - before
		leaf.HasDelta = true
	}
	b.time += count
	l.Total += count
}

// intern returns name as a string the Builder owns, one per distinct name.
func (b *Builder) intern(name string) string {
	if s, ok := b.names[name]; ok {
		return s
	}
	if b.names == nil {
		b.names = make(map[string]string)
	}
	s := strings.Clone(name)
	b.names[s] = s
	return s
}

// closeTo closes the open frames deeper than depth (frames below the
// root), dropping those narrower than the prune threshold.
func (b *Builder) closeTo(depth int) {
	for len(b.ends) > depth {
		i := b.open[len(b.open)-1]
		n := &b.l.Nodes[i]
		n.End = b.time
		if n.End-n.Start < b.prune {
			// its subtree is the tail of Nodes (pre-order)
			b.l.Nodes = b.l.Nodes[:i]
		}
		b.open = b.open[:len(b.open)-1]
		b.ends = b.ends[:len(b.ends)-1]
	}
}

// Layout closes every open frame and returns the layout. The Builder must
// not be used afterwards.
func (b *Builder) Layout() *Layout {
	b.closeTo(0)
	if len(b.open) > 0 {
		b.l.Nodes[0].End = b.time
	}
	return &b.l
}

// CompareStacks orders stacks as flamegraph.pl's whole-line sort orders
// them, frame by frame: it compares stack+";" bytewise. So a stack comes
// before its extensions (a frame's own samples are placed first, its
// children after), and siblings are ordered by name+";".
func CompareStacks(a, b string) int {
	n := min(len(a), len(b))
	if c := strings.Compare(a[:n], b[:n]); c != 0 {
		return c
	}
	switch {
	case len(a) == len(b):
		return 0
	case len(a) < len(b): // a+";" against b[n]
		if b[n] == ';' {
			return -1
		}
		if ';' < b[n] {
			return -1
		}
		return 1
	default:
		if a[n] == ';' {
			return 1
		}
		if a[n] < ';' {
			return -1
		}
		return 1
	}
}

// Rewrite holds the per-line rewrites of flamegraph.pl applied before
// layout.
type Rewrite struct {
	Reverse bool // --reverse: reverse the frames of every stack
	Chain   bool // --colors=chain: mark the frames after ";--;" with _[w]
}

// Apply returns stack rewritten as flamegraph.pl rewrites it. --reverse
// drops trailing empty frames first (Perl's split); the chain rewrite works
// on the stack as it is, so that a stack whose waker part is empty
// ("target;--;", bcc offwaketime with no waker) keeps one "--" frame, and
// "a;b;" gets an empty frame before its "--", as in Perl.
func (r Rewrite) Apply(stack string) string {
	if r.Reverse {
		stack = folded.TrimStack(stack)
		f := strings.Split(stack, ";")
		slices.Reverse(f)
		stack = strings.Join(f, ";")
	}
	if r.Chain {
		parts := strings.Split(stack, ";--;")
		// Perl's split drops trailing empty fields: "a;--;" is just "a".
		for len(parts) > 1 && parts[len(parts)-1] == "" {
			parts = parts[:len(parts)-1]
		}
		var sb strings.Builder
		sb.WriteString(parts[0])
		sb.WriteString(";--;")
		for i, p := range parts[1:] {
			if i > 0 {
				sb.WriteString(";--;")
			}
			sb.WriteString(strings.ReplaceAll(p, ";", "_[w];"))
			sb.WriteString("_[w]")
		}
		stack = sb.String()
	}
	return stack
}

// LayoutProfile lays out the distinct stacks of p, merged frame by frame,
// after applying rw to every stack. Widths are the counts ("after" counts
// for diff stacks); the delta of a frame is the sum of the changes of the
// stacks that end at it.
func LayoutProfile(p *folded.Profile, rw Rewrite) *Layout {
	return LayoutProfilePruned(p, rw, 0)
}

// LayoutProfilePruned is LayoutProfile that drops the frames narrower than
// minCount count units as it goes (see Builder.Prune): what svg.Render would
// drop anyway, for a fraction of the time and memory.
func LayoutProfilePruned(p *folded.Profile, rw Rewrite, minCount float64) *Layout {
	if p.InOrder() && !rw.Reverse && !rw.Chain {
		// Sorted input (stackcollapse writes it so): straight into the
		// Builder from the profile's front-coded stacks, in the layout's
		// order (see layoutOrder), with no string made and nothing sorted.
		b := NewBuilder()
		b.Prune(minCount)
		ok := layoutOrder(p.All(), func(stack []byte, e *folded.Entry) {
			// Add keeps nothing of the string it is given.
			b.Add(unsafe.String(unsafe.SliceData(stack), len(stack)), e.Count, e.Before, e.Diff)
		})
		if ok {
			return b.Layout()
		}
	}
	return LayoutEntries(p.Entries(), rw, minCount, false)
}

// layoutOrder calls add with the stacks of a bytewise-sorted sequence in
// the layout's order, CompareStacks's (the order of stack+";"). The two
// differ only where a stack s is a prefix of a later one t and t continues
// with a byte below ';' ("a;foo" and "a;foo.part;x": the layout wants
// "a;foo.part;x" first, so that the frames of "a;foo" and "a;foo;y" stay
// together); those t follow s at once in bytewise order. So s is held back
// (on a stack, for nested cases) until a line comes that does not extend
// it so, in one pass. It stops and reports false at a stack with a
// trailing ';' (which the layout trims, changing the order): the caller
// then lays the stacks out another way.
func layoutOrder(all iter.Seq2[[]byte, *folded.Entry], add func([]byte, *folded.Entry)) bool {
	type held struct {
		stack []byte
		e     *folded.Entry
	}
	var d []held
	for stack, e := range all {
		if len(stack) > 0 && stack[len(stack)-1] == ';' {
			return false
		}
		for len(d) > 0 {
			top := d[len(d)-1].stack
			if len(stack) > len(top) && stack[len(top)] < ';' && string(stack[:len(top)]) == string(top) {
				break
			}
			add(top, d[len(d)-1].e)
			d = d[:len(d)-1]
		}
		if len(d) < cap(d) {
			d = d[:len(d)+1]
			d[len(d)-1].stack = append(d[len(d)-1].stack[:0], stack...)
			d[len(d)-1].e = e
		} else {
			d = append(d, held{slices.Clone(stack), e})
		}
	}
	for i := len(d) - 1; i >= 0; i-- {
		add(d[i].stack, d[i].e)
	}
	return true
}

// LayoutEntries lays out distinct stacks as LayoutProfilePruned does.
// With sorted set, the entries are already in CompareStacks order and rw
// changes nothing, so they are not sorted again.
func LayoutEntries(entries []folded.Entry, rw Rewrite, minCount float64, sorted bool) *Layout {
	b := NewBuilder()
	b.Prune(minCount)
	if sorted && !rw.Reverse && !rw.Chain {
		for i := range entries {
			e := &entries[i]
			b.Add(e.Stack, e.Count, e.Before, e.Diff)
		}
		return b.Layout()
	}
	// flamegraph.pl sorts the lines after --reverse but before the chain
	// rewrite, whose "_[w]" marks would change the order.
	sortRW := Rewrite{Reverse: rw.Reverse}
	lines := make([]line, len(entries))
	for i, e := range entries {
		lines[i] = line{folded.TrimStack(sortRW.Apply(e.Stack)), e.Stack, e.Count, e.Before, e.Diff}
	}
	lines = sortLines(lines)
	for i := range lines {
		ln := &lines[i]
		if rw.Chain {
			ln.stack = folded.TrimStack(rw.Apply(ln.raw))
		}
		b.Add(ln.stack, ln.count, ln.before, ln.diff)
	}
	return b.Layout()
}

type line struct {
	stack         string // the stack to sort and draw
	raw           string // the stack as read
	count, before float64
	diff          bool
}

func compareLines(a, b line) int { return CompareStacks(a.stack, b.stack) }

// sortLines sorts lines with CompareStacks, the two halves on two cores
// when there are many, and returns the sorted lines (lines or a new slice).
func sortLines(lines []line) []line {
	if len(lines) < 8192 || runtime.GOMAXPROCS(0) < 2 {
		slices.SortFunc(lines, compareLines)
		return lines
	}
	h := len(lines) / 2
	a, c := lines[:h], lines[h:]
	done := make(chan struct{})
	go func() {
		slices.SortFunc(a, compareLines)
		close(done)
	}()
	slices.SortFunc(c, compareLines)
	<-done
	out := make([]line, 0, len(lines))
	i, j := 0, 0
	for i < len(a) && j < len(c) {
		if CompareStacks(c[j].stack, a[i].stack) < 0 {
			out = append(out, c[j])
			j++
		} else {
			out = append(out, a[i])
			i++
		}
	}
	out = append(out, a[i:]...)
	return append(out, c[j:]...)
}
