package svg

import (
	"runtime"
	"slices"
	"strings"

	"flamekit/pkg/folded"
)

// Node is one frame (rectangle) of a flame graph.
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
	prev  string
	time  float64
	prune float64
}

// NewBuilder returns an empty Builder.
func NewBuilder() *Builder {
	return &Builder{l: Layout{MaxDelta: 1, Nodes: make([]Node, 0, 1024)}}
}

// Prune makes the Builder drop every frame narrower than minCount count
// units (with its subtree) as soon as it is closed, so that memory and
// time go to the frames that will be drawn. Render prunes with the final
// --minwidth threshold anyway; pass a threshold no larger than that one.
func (b *Builder) Prune(minCount float64) { b.prune = minCount }

// TrimStack removes the trailing empty frames of a stack, as Perl's split
// does ("a;b;" is "a;b").
func TrimStack(stack string) string {
	return strings.TrimRight(stack, ";")
}

// commonPrefix returns the length of the longest common prefix of a and b.
func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	i := 0
	for i+32 <= n && a[i:i+32] == b[i:i+32] {
		i += 32
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

// Add adds one line: stack (frames separated by ';', root first; it must
// outlive the Builder), its count, and for a differential line its before
// count (diff set). An empty stack adds to the root only.
func (b *Builder) Add(stack string, count, before float64, diff bool) {
	stack = TrimStack(stack)
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
		l.Nodes = append(l.Nodes, Node{Name: stack[start:end], Start: b.time,
			Depth: int32(len(b.open)), HasDelta: diff})
		b.open = append(b.open, int32(len(l.Nodes)-1))
		b.ends = append(b.ends, end)
		start = end + 1
	}
	b.prev = stack
	if diff {
		leaf := &l.Nodes[b.open[len(b.open)-1]]
		leaf.Delta += count - before
		leaf.HasDelta = true
	}
	b.time += count
	l.Total += count
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
		stack = TrimStack(stack)
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
// minCount count units as it goes (see Builder.Prune): what Render would
// drop anyway, for a fraction of the time and memory.
func LayoutProfilePruned(p *folded.Profile, rw Rewrite, minCount float64) *Layout {
	entries := p.Entries()
	sorted := p.InOrder()
	for i := 1; sorted && i < len(entries); i++ {
		// Bytewise order differs from the layout's only where a stack is
		// a prefix of the next one.
		sorted = CompareStacks(entries[i-1].Stack, entries[i].Stack) < 0
	}
	return LayoutEntries(entries, rw, minCount, sorted)
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
		lines[i] = line{TrimStack(sortRW.Apply(e.Stack)), e.Stack, e.Count, e.Before, e.Diff}
	}
	lines = sortLines(lines)
	for i := range lines {
		ln := &lines[i]
		if rw.Chain {
			ln.stack = TrimStack(rw.Apply(ln.raw))
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
