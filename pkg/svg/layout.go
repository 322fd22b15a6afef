package svg

import (
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
	Parent   int32 // index of the parent in Layout.Nodes, -1 for the root
	HasDelta bool  // opened by a differential line (flamegraph.pl's "delta defined")
}

// Layout is the frames of a flame graph in pre-order (a frame before its
// children, children left to right). Nodes[0] is the root when there is
// any input.
type Layout struct {
	Nodes    []Node
	Total    float64 // sum of the counts (the "after" counts of diff lines)
	MaxDelta float64 // the largest |after − before| of a line, at least 1
	Diff     bool    // at least one differential line was added
	Lines    int     // lines (or distinct stacks) added
}

// Builder lays out stacks one line at a time in the manner of
// flamegraph.pl: each line is merged with the frames of the line before it
// (the common prefix of frames is shared), and the x position advances by
// the line's count. Fed stacks sorted with CompareStacks, this is a
// frame-wise merge (every frame appears once per parent); fed stacks in
// time order, it is a flame chart.
type Builder struct {
	l     Layout
	open  []int32  // indices of the open frames, open[0] = root
	names []string // names of the open frames below the root
	time  float64
}

// NewBuilder returns an empty Builder.
func NewBuilder() *Builder {
	return &Builder{l: Layout{MaxDelta: 1}}
}

// TrimStack removes the trailing empty frames of a stack, as Perl's split
// does ("a;b;" is "a;b").
func TrimStack(stack string) string {
	return strings.TrimRight(stack, ";")
}

// Add adds one line: stack (frames separated by ';', root first; it must
// outlive the Builder), its count, and for a differential line its before
// count (diff set). An empty stack adds to the root only.
func (b *Builder) Add(stack string, count, before float64, diff bool) {
	stack = TrimStack(stack)
	l := &b.l
	l.Lines++
	if diff {
		l.Diff = true
		d := count - before
		if d < 0 {
			d = -d
		}
		if d > l.MaxDelta {
			l.MaxDelta = d
		}
	}
	if len(b.open) == 0 {
		l.Nodes = append(l.Nodes, Node{Start: b.time, Parent: -1, HasDelta: diff})
		b.open = append(b.open, 0)
	}
	// walk the frames, keeping those shared with the previous line
	depth := 0
	rest := stack
	more := stack != ""
	for more {
		var name string
		if i := strings.IndexByte(rest, ';'); i >= 0 {
			name, rest = rest[:i], rest[i+1:]
		} else {
			name, more = rest, false
		}
		if depth < len(b.names) && b.names[depth] == name {
			depth++
			continue
		}
		b.closeTo(depth)
		parent := b.open[len(b.open)-1]
		l.Nodes = append(l.Nodes, Node{Name: name, Start: b.time, Depth: int32(depth + 1),
			Parent: parent, HasDelta: diff})
		b.open = append(b.open, int32(len(l.Nodes)-1))
		b.names = append(b.names, name)
		depth++
	}
	b.closeTo(depth)
	if diff {
		leaf := &l.Nodes[b.open[len(b.open)-1]]
		leaf.Delta += count - before
		leaf.HasDelta = true
	}
	b.time += count
	l.Total += count
}

// closeTo closes the open frames deeper than depth (frames below the root).
func (b *Builder) closeTo(depth int) {
	for len(b.names) > depth {
		b.l.Nodes[b.open[len(b.open)-1]].End = b.time
		b.open = b.open[:len(b.open)-1]
		b.names = b.names[:len(b.names)-1]
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

// Apply returns stack rewritten. Trailing empty frames are removed first.
func (r Rewrite) Apply(stack string) string {
	if !r.Reverse && !r.Chain {
		return stack
	}
	stack = TrimStack(stack)
	if r.Reverse {
		f := strings.Split(stack, ";")
		slices.Reverse(f)
		stack = strings.Join(f, ";")
	}
	if r.Chain {
		parts := strings.Split(stack, ";--;")
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
	type line struct {
		stack        string
		count, befor float64
		diff         bool
	}
	entries := p.Entries()
	lines := make([]line, len(entries))
	for i, e := range entries {
		lines[i] = line{TrimStack(rw.Apply(e.Stack)), e.Count, e.Before, e.Diff}
	}
	slices.SortFunc(lines, func(a, b line) int { return CompareStacks(a.stack, b.stack) })
	b := NewBuilder()
	for _, ln := range lines {
		b.Add(ln.stack, ln.count, ln.befor, ln.diff)
	}
	return b.Layout()
}
