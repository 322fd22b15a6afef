package folded

import (
	"bufio"
	"encoding/binary"
	"flamekit/internal/base/hugepage"
	"io"
	"iter"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"unsafe"
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
// greater than or equal to the one before (input sorted as stackcollapse
// and the Perl tools write it), no map is built, Sorted need not sort, and
// the stacks are kept front-coded (each as the length it shares with the
// one before and the rest), a fraction of their size. Integer counts are
// summed exactly (see WriteTo). The zero value is ready to use.
type Profile struct {
	// HintBytes is the size of the input in bytes, when known: with the
	// length of the stacks seen, it sizes the map so that it is not grown
	// again and again.
	HintBytes int64

	index   map[string]int // nil while the stacks come in increasing order
	entries []Entry        // Stack is "" while front-coded
	// Front coding, while in order and until the stacks are needed as
	// strings (materialize): entry i is pre[i] bytes of entry i-1, then
	// arena[suf[i-1]:suf[i]].
	pre, suf     []int
	arena        []byte
	last         []byte     // the last stack added, whole
	coded        bool       // entries are front-coded
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
		if n == 0 && !p.coded {
			p.coded = true
		}
		shared := commonPrefix(p.last, stack)
		switch c := compareAfter(p.last, stack, shared); {
		case n > 0 && c == 0:
			return n - 1 // the same stack again
		case n == 0 || c < 0:
			if p.arena == nil && p.HintBytes > 0 {
				// About a third of a sorted input's stack bytes are
				// not shared with the stack before.
				p.arena = hugepage.Bytes(int(min(p.HintBytes/2, 1<<30)))
			}
			p.arena = double(p.arena, len(stack)-shared)
			p.arena = append(p.arena, stack[shared:]...)
			p.pre = append(double(p.pre, 1), shared)
			p.suf = append(double(p.suf, 1), len(p.arena))
			p.last = append(p.last[:shared], stack[shared:]...)
			p.entries = append(double(p.entries, 1), Entry{})
			p.exact = append(double(p.exact, 1), exactSum{})
			p.exactBefore = append(double(p.exactBefore, 1), exactSum{})
			return n
		}
		p.materialize()
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

// double returns s with room for n more elements, doubling its capacity
// when it grows: append grows large slices by a quarter, which for the
// profile's big slices allocates (and touches) five times their final
// size over a run.
func double[T any](s []T, n int) []T { return hugepage.Grow(s, n) }

// commonPrefix returns the length of the longest common prefix of a and b.
func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	for ; i+8 <= n; i += 8 {
		if x := binary.LittleEndian.Uint64(a[i:]) ^ binary.LittleEndian.Uint64(b[i:]); x != 0 {
			return i + bits.TrailingZeros64(x)/8
		}
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

// compareAfter is bytes.Compare(a, b) for a and b whose first shared
// bytes are equal (commonPrefix).
func compareAfter(a, b []byte, shared int) int {
	switch {
	case shared == len(a) && shared == len(b):
		return 0
	case shared == len(a):
		return -1
	case shared == len(b):
		return 1
	case a[shared] < b[shared]:
		return -1
	}
	return 1
}

// materialize turns front-coded stacks into the entries' strings.
func (p *Profile) materialize() {
	if !p.coded {
		return
	}
	for i, stack := range p.coding() {
		p.entries[i].Stack = string(stack)
	}
	p.pre, p.suf, p.arena, p.last, p.coded = nil, nil, nil, nil, false
}

// coding iterates over the front-coded stacks, in order, each valid for
// one step.
func (p *Profile) coding() iter.Seq2[int, []byte] {
	return func(yield func(int, []byte) bool) {
		var buf []byte
		start := 0
		for i := range p.entries {
			buf = append(buf[:p.pre[i]], p.arena[start:p.suf[i]]...)
			start = p.suf[i]
			if !yield(i, buf) {
				return
			}
		}
	}
}

// All iterates over the distinct stacks and their entries in the order
// they were first added (bytewise order when InOrder), without making a
// string of every stack: the stack's bytes are valid for one step and must
// not be modified.
func (p *Profile) All() iter.Seq2[[]byte, *Entry] {
	return func(yield func([]byte, *Entry) bool) {
		if p.coded {
			for i, stack := range p.coding() {
				if !yield(stack, &p.entries[i]) {
					return
				}
			}
			return
		}
		for i := range p.entries {
			e := &p.entries[i]
			if !yield(unsafe.Slice(unsafe.StringData(e.Stack), len(e.Stack)), e) {
				return
			}
		}
	}
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
// The slice is the Profile's own: do not append to it. (All iterates
// without making a string of every stack.)
func (p *Profile) Entries() []Entry {
	p.materialize()
	return p.entries
}

// Sorted returns the entries sorted bytewise by stack, as the Perl tools
// sort their output. When the Profile is InOrder that is its own slice:
// do not modify it.
func (p *Profile) Sorted() []Entry {
	p.materialize()
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
	write := func(stack []byte, i int) error {
		e := &p.entries[i]
		buf = append(buf[:0], stack...)
		buf = append(buf, ' ')
		if e.Diff {
			buf = p.exactBefore[i].append(buf, e.Before)
			buf = append(buf, ' ')
		}
		buf = p.exact[i].append(buf, e.Count)
		buf = append(buf, '\n')
		_, err := bw.Write(buf)
		return err
	}
	if p.coded {
		for i, stack := range p.coding() {
			if err := write(stack, i); err != nil {
				return cw.n, err
			}
		}
	} else {
		for _, i := range p.order() {
			if err := write([]byte(p.entries[i].Stack), i); err != nil {
				return cw.n, err
			}
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
