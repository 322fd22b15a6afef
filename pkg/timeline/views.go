package timeline

import (
	"bufio"
	"cmp"
	"io"
	"math"
	"slices"
	"strconv"

	"flamekit/pkg/folded"
)

// The cells and keys of the views other than the heat map's: a summed
// slice (one cell, stacks only), pprof's intervals (cells of --bucket
// width from a whole multiple of it, keyed by stack, thread and CPU), a
// Pyroscope push (one cell per pushed profile, stacks only).

// MergeInputs keys entries by no input: their Input is NoInput (a summed
// slice, pprof). It is not in MergeAll, which keeps the inputs.
const MergeInputs Merge = 16

// NoInput is the Input of the entries of a Timeline whose inputs are
// merged (MergeInputs).
const NoInput int32 = -1

// NoTime is the cell of the classic lines an Options.Untimed timeline
// keeps: they have no time. It sorts before every other cell; Span and
// Series leave it out.
const NoTime = math.MinInt32

// Diff is the "before" side of the differential lines ("stack before
// after") summed in an entry (Options.Whole): Weight the sum of the
// integer parts of their before counts, Fraction that of the fractions,
// Lines their number.
type Diff struct {
	Weight   int64
	Fraction float64
	Lines    uint32
}

func (d *Diff) add(o Diff) {
	d.Weight += o.Weight
	d.Fraction += o.Fraction
	d.Lines += o.Lines
}

// grid sets the Timeline's cells from the options of the other views.
func (b *Builder) grid(o Options) {
	b.untimed = o.Untimed
	switch {
	case o.Whole:
		b.t.Whole, b.t.Rows, b.t.Seconds = true, 0, 0
		if b.merge == MergeInputs|MergeThreads|MergeCPUs {
			b.byStack = []int32{}
		}
	case o.Width > 0:
		b.t.Width, b.t.Rows, b.t.Seconds = o.Width, 0, 0
	}
	b.align = o.Align && !o.Whole && o.Width > 0
}

// origin returns the origin for a first sample at at.
func (b *Builder) origin(at folded.Time) folded.Time {
	if b.align {
		return at - folded.Time(mod(int64(at), int64(b.t.Width)))
	}
	return at
}

// mod is a modulo whose result has the sign of m.
func mod(a, m int64) int64 {
	r := a % m
	if r < 0 {
		r += m
	}
	return r
}

// cellOfRel returns the cell of a time rel after the origin.
func (t *Timeline) cellOfRel(rel int64) int64 {
	switch {
	case t.Whole:
		return 0
	case t.Width > 0:
		return floorDiv(rel, int64(t.Width))
	}
	return cellOf(rel, t.Rows, t.Seconds)
}

// addBefore adds the before count of a differential line to entry i.
func (b *Builder) addBefore(i int, v float64) {
	if b.t.Diffs == nil {
		b.t.Diffs = make([]Diff, b.entries())
	}
	d := &b.t.Diffs[i]
	whole := math.Trunc(v)
	if math.IsNaN(v) || math.Abs(v) >= 1<<62 || !fits(d.Weight, int64(whole)) {
		whole = 0
	}
	d.Weight += int64(whole)
	d.Fraction += v - whole
	d.Lines++
}

// sum is an exact sum of weights: integer parts, their overflow, and the
// fractions.
type sum struct {
	n        int64
	frac     float64
	overflow bool    // n passed the int64 range: f holds the sum
	f        float64 // the float64 sum of the integer parts, once overflowed
}

func (s *sum) add(n int64, frac float64) {
	switch {
	case !s.overflow && fits(s.n, n):
		s.n += n
	case !s.overflow:
		s.overflow, s.f = true, float64(s.n)+float64(n)
	default:
		s.f += float64(n)
	}
	s.frac += frac
}

// check returns a *folded.SumError for a sum beyond folded.MaxCount,
// which no reader would accept.
func (s *sum) check(stack []byte) error {
	switch {
	case !s.overflow && s.frac == 0 && s.n > folded.MaxCount:
		return &folded.SumError{Stack: string(stack), Sum: strconv.FormatInt(s.n, 10)}
	case s.overflow:
		return &folded.SumError{Stack: string(stack), Sum: "about " + folded.FormatCount(s.f+s.frac)}
	case float64(s.n)+s.frac > folded.MaxCount:
		return &folded.SumError{Stack: string(stack), Sum: "about " + folded.FormatCount(float64(s.n)+s.frac)}
	}
	return nil
}

// append writes the sum as a folded count: exactly while every count was
// a whole number and the sum fits in an int64, else as a float64.
func (s *sum) append(dst []byte) []byte {
	switch {
	case s.overflow:
		return folded.AppendCount(dst, s.f+s.frac)
	case s.frac == 0:
		return strconv.AppendInt(dst, s.n, 10)
	}
	return folded.AppendCount(dst, float64(s.n)+s.frac)
}

// WriteFolded writes the timeline summed over time, inputs, threads and
// CPUs as classic folded lines, sorted bytewise by stack as the Perl tools
// and folded.Profile write them: "stack count", or "stack before after"
// for the stacks that got differential lines (Options.Whole). The counts
// of every stack are summed exactly while they are whole numbers.
//
// The order comes from the prefix tree, not from sorting the texts: the
// lines of a node's subtree are its own ("P;x") and its descendants'
// ("P;x;..."), which sort among its siblings' as x and as "x;" do. So
// each node's children are sorted by two short keys, and the lines are
// written depth first, each text made once in one buffer.
func (t *Timeline) WriteFolded(w io.Writer) (int64, error) {
	// The sums of every stack of an entry.
	type sums struct {
		after, before sum
		diff          bool
	}
	line := make([]int32, len(t.Nodes)) // 1 + index in lines, 0: none
	var lines []sums
	for i := range t.Entries {
		e := &t.Entries[i]
		if line[e.Stack] == 0 {
			lines = append(lines, sums{})
			line[e.Stack] = int32(len(lines))
		}
		l := &lines[line[e.Stack]-1]
		var frac float64
		if t.Fractions != nil {
			frac = t.Fractions[i]
		}
		l.after.add(e.Weight, frac)
		if t.Diffs != nil && t.Diffs[i].Lines > 0 {
			l.before.add(t.Diffs[i].Weight, t.Diffs[i].Fraction)
			l.diff = true
		}
	}
	// The children of every node: kids[start[n]:start[n+1]].
	start := make([]int32, len(t.Nodes)+1)
	for n := 1; n < len(t.Nodes); n++ {
		start[t.Nodes[n].Parent+1]++
	}
	for n := 1; n <= len(t.Nodes); n++ {
		start[n] += start[n-1]
	}
	kids := make([]StackID, max(len(t.Nodes)-1, 0))
	fill := slices.Clone(start[:len(t.Nodes)])
	for n := 1; n < len(t.Nodes); n++ {
		p := t.Nodes[n].Parent
		kids[fill[p]] = StackID(n)
		fill[p]++
	}
	fill = nil

	// An item is a child's own line (desc false) or its subtree below it.
	type item struct {
		node StackID
		desc bool
	}
	key := func(it item, i int) int { // the i-th byte of its key, -1 past its end
		name := t.Frames[t.Nodes[it.node].Frame]
		switch {
		case i < len(name):
			return int(name[i])
		case i == len(name) && it.desc:
			return ';'
		}
		return -1
	}
	compare := func(a, b item) int {
		for i := 0; ; i++ {
			x, y := key(a, i), key(b, i)
			if x != y || x < 0 {
				return cmp.Compare(x, y)
			}
		}
	}
	var work []item
	push := func(n StackID) int { // the items of n's children, sorted; returns where they start
		lo := len(work)
		for _, c := range kids[start[n]:start[n+1]] {
			if line[c] != 0 {
				work = append(work, item{c, false})
			}
			if start[c+1] > start[c] {
				work = append(work, item{c, true})
			}
		}
		slices.SortFunc(work[lo:], compare)
		return lo
	}
	type level struct{ lo, hi, i, path int }
	cw := &countWriter{w: w}
	bw := bufio.NewWriterSize(cw, 64<<10)
	var path, buf []byte
	lo := push(Root)
	levels := []level{{lo, len(work), lo, 0}}
	for len(levels) > 0 {
		lv := &levels[len(levels)-1]
		if lv.i == lv.hi {
			work = work[:lv.lo]
			levels = levels[:len(levels)-1]
			continue
		}
		it := work[lv.i]
		lv.i++
		path = path[:lv.path]
		if t.Nodes[it.node].Depth > 1 {
			path = append(path, ';')
		}
		path = append(path, t.Frames[t.Nodes[it.node].Frame]...)
		if it.desc {
			mark := len(path)
			lo := push(it.node)
			levels = append(levels, level{lo, len(work), lo, mark})
			continue
		}
		l := &lines[line[it.node]-1]
		if err := l.after.check(path); err != nil {
			return cw.n, err
		}
		if err := l.before.check(path); l.diff && err != nil {
			return cw.n, err
		}
		kind := folded.Classic
		if l.diff {
			kind = folded.Diff
		}
		buf, _ = folded.AppendStack(buf[:0], path, kind)
		buf = append(buf, ' ')
		if l.diff {
			buf = l.before.append(buf)
			buf = append(buf, ' ')
		}
		buf = l.after.append(buf)
		buf = append(buf, '\n')
		if _, err := bw.Write(buf); err != nil {
			return cw.n, err
		}
	}
	err := bw.Flush()
	return cw.n, err
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.n += int64(n)
	return n, err
}
