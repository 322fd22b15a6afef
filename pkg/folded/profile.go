package folded

import (
	"bufio"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Entry is one distinct stack of a Profile with its summed counts.
type Entry struct {
	Stack  string
	Count  float64 // sum of counts (the "after" counts for diff lines)
	Before float64 // sum of the "before" counts of diff lines
	Diff   bool    // at least one diff line added to this stack
}

// exactSum is a sum of counts kept exactly while every count added is an
// integer and the sum fits in an int64: float64 loses integers above 2^53,
// and its sums depend on the order of the additions, integer sums do not.
type exactSum struct {
	n       int64
	inexact bool // a fraction or an overflow: use the float64 sum
}

func (s *exactSum) add(v float64) {
	if s.inexact {
		return
	}
	if v != math.Trunc(v) || v < 0 || v >= 1<<63 {
		s.inexact = true
		return
	}
	i := int64(v)
	if s.n > math.MaxInt64-i {
		s.inexact = true
		return
	}
	s.n += i
}

// Profile sums counts per distinct stack: the one sum-per-stack of every
// flamekit tool. Its memory grows with the number of distinct stacks, not
// with the number of lines added. While every stack added is bytewise
// greater than the one before (input sorted as stackcollapse and the Perl
// tools write it), no map is built and Sorted need not sort. Integer
// counts are summed exactly (see WriteTo). The zero value is ready to use.
type Profile struct {
	// HintBytes is the size of the input in bytes, when known: with the
	// length of the stacks seen, it sizes the map so that it is not grown
	// again and again.
	HintBytes int64

	index        map[string]int // nil while the stacks come in increasing order
	entries      []Entry
	exact        []exactSum // per entry: Count, exactly
	exactBefore  []exactSum // per entry: Before, exactly
	total        float64
	before       float64
	diff         bool
	bytes, lines int64
}

// Add adds count to stack. Timed records lose their time: this is the
// conversion from timed to classic folded.
func (p *Profile) Add(rec *Record) {
	i := p.find(rec.Stack)
	e := &p.entries[i]
	e.Count += rec.Count
	p.exact[i].add(rec.Count)
	p.total += rec.Count
	if rec.Kind == Diff {
		e.Before += rec.Before
		p.exactBefore[i].add(rec.Before)
		e.Diff = true
		p.before += rec.Before
		p.diff = true
	}
}

// find returns the index of stack's entry, adding an empty one for a new
// stack.
func (p *Profile) find(stack []byte) int {
	p.lines++
	p.bytes += int64(len(stack))
	if p.index == nil {
		n := len(p.entries)
		if n == 0 || p.entries[n-1].Stack < string(stack) {
			return p.append(stack)
		}
		p.index = make(map[string]int, p.mapSize())
		for k := range p.entries {
			p.index[p.entries[k].Stack] = k
		}
	}
	if i, ok := p.index[string(stack)]; ok { // no allocation on a hit
		return i
	}
	i := p.append(stack)
	p.index[p.entries[i].Stack] = i
	return i
}

func (p *Profile) append(stack []byte) int {
	p.entries = append(p.entries, Entry{Stack: string(stack)})
	p.exact = append(p.exact, exactSum{})
	p.exactBefore = append(p.exactBefore, exactSum{})
	return len(p.entries) - 1
}

// mapSize guesses how many distinct stacks the input holds, from its size
// and the length of the stacks read so far, within limits.
func (p *Profile) mapSize() int {
	n := 2 * len(p.entries)
	if p.HintBytes > 0 && p.lines > 0 {
		if guess := p.HintBytes / (p.bytes/p.lines + 16); guess > int64(n) {
			n = int(min(guess, 1<<18))
		}
	}
	return n
}

// Len returns the number of distinct stacks.
func (p *Profile) Len() int { return len(p.entries) }

// Total returns the sum of all counts (the "after" counts of diff lines).
func (p *Profile) Total() float64 { return p.total }

// TotalBefore returns the sum of the "before" counts of diff lines.
func (p *Profile) TotalBefore() float64 { return p.before }

// HasDiff reports whether any diff line was added.
func (p *Profile) HasDiff() bool { return p.diff }

// InOrder reports whether the stacks were added in strictly increasing
// bytewise order (each distinct stack once, sorted), so that Entries is
// already sorted.
func (p *Profile) InOrder() bool { return p.index == nil }

// Entries returns the distinct stacks in the order they were first added.
// The slice is the Profile's own: do not append to it.
func (p *Profile) Entries() []Entry { return p.entries }

// Sorted returns the entries sorted bytewise by stack, as the Perl tools
// sort their output. When the Profile is InOrder that is its own slice:
// do not modify it.
func (p *Profile) Sorted() []Entry {
	if p.InOrder() {
		return p.entries
	}
	return p.sorted()
}

// order returns the indexes of the entries in bytewise order of stacks.
func (p *Profile) order() []int {
	idx := make([]int, len(p.entries))
	for i := range idx {
		idx[i] = i
	}
	if !p.InOrder() {
		slices.SortFunc(idx, func(a, b int) int { return strings.Compare(p.entries[a].Stack, p.entries[b].Stack) })
	}
	return idx
}

func (p *Profile) sorted() []Entry {
	out := make([]Entry, len(p.entries))
	for k, i := range p.order() {
		out[k] = p.entries[i]
	}
	return out
}

// WriteTo writes the profile as folded lines sorted bytewise by stack:
// "stack count", or "stack before after" for stacks that got diff lines.
// Sums of integer counts are written exactly, whatever their size and the
// order they were added in.
func (p *Profile) WriteTo(w io.Writer) (int64, error) {
	cw := &countWriter{w: w}
	bw := bufio.NewWriterSize(cw, 64<<10)
	var buf []byte
	for _, i := range p.order() {
		e := &p.entries[i]
		buf = append(buf[:0], e.Stack...)
		buf = append(buf, ' ')
		if e.Diff {
			buf = p.exactBefore[i].append(buf, e.Before)
			buf = append(buf, ' ')
		}
		buf = p.exact[i].append(buf, e.Count)
		buf = append(buf, '\n')
		if _, err := bw.Write(buf); err != nil {
			return cw.n, err
		}
	}
	err := bw.Flush()
	return cw.n, err
}

// append appends the sum: exact when it is, else the float64 sum f.
func (s *exactSum) append(dst []byte, f float64) []byte {
	if !s.inexact {
		return strconv.AppendInt(dst, s.n, 10)
	}
	return AppendCount(dst, f)
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

// Writer writes folded lines to a buffered stream.
type Writer struct {
	bw  *bufio.Writer
	buf []byte
}

// NewWriter returns a Writer buffering its output to w. Call Flush at the
// end.
func NewWriter(w io.Writer) *Writer {
	return &Writer{bw: bufio.NewWriterSize(w, 256<<10)}
}

// Write writes rec as one line.
func (w *Writer) Write(rec *Record) error {
	w.buf = AppendRecord(w.buf[:0], rec)
	_, err := w.bw.Write(w.buf)
	return err
}

// WriteMeta writes m as one metadata line.
func (w *Writer) WriteMeta(m *Meta) error {
	w.buf = AppendMeta(w.buf[:0], m)
	_, err := w.bw.Write(w.buf)
	return err
}

// Flush writes any buffered data to the underlying writer.
func (w *Writer) Flush() error { return w.bw.Flush() }
