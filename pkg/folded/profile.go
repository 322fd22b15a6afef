package folded

import (
	"bufio"
	"io"
	"slices"
	"strings"
)

// Entry is one distinct stack of a Profile with its summed counts.
type Entry struct {
	Stack  string
	Count  float64 // sum of counts (the "after" counts for diff lines)
	Before float64 // sum of the "before" counts of diff lines
	Diff   bool    // at least one diff line added to this stack
}

// Profile sums counts per distinct stack. Its memory grows with the number
// of distinct stacks, not with the number of lines added. The zero value
// is ready to use.
type Profile struct {
	index   map[string]int
	entries []Entry
	total   float64
	before  float64
	diff    bool
}

// Add adds count to stack. Timed records lose their time: this is the
// conversion from timed to classic folded.
func (p *Profile) Add(rec *Record) {
	if p.index == nil {
		p.index = make(map[string]int)
	}
	i, ok := p.index[string(rec.Stack)] // no allocation on a hit
	if !ok {
		i = len(p.entries)
		s := string(rec.Stack)
		p.index[s] = i
		p.entries = append(p.entries, Entry{Stack: s})
	}
	e := &p.entries[i]
	e.Count += rec.Count
	p.total += rec.Count
	if rec.Kind == Diff {
		e.Before += rec.Before
		e.Diff = true
		p.before += rec.Before
		p.diff = true
	}
}

// Len returns the number of distinct stacks.
func (p *Profile) Len() int { return len(p.entries) }

// Total returns the sum of all counts (the "after" counts of diff lines).
func (p *Profile) Total() float64 { return p.total }

// TotalBefore returns the sum of the "before" counts of diff lines.
func (p *Profile) TotalBefore() float64 { return p.before }

// HasDiff reports whether any diff line was added.
func (p *Profile) HasDiff() bool { return p.diff }

// Entries returns the distinct stacks in the order they were first added.
// The slice is the Profile's own: do not append to it.
func (p *Profile) Entries() []Entry { return p.entries }

// Sorted returns the entries sorted bytewise by stack, as the Perl tools
// sort their output.
func (p *Profile) Sorted() []Entry {
	s := slices.Clone(p.entries)
	slices.SortFunc(s, func(a, b Entry) int { return strings.Compare(a.Stack, b.Stack) })
	return s
}

// WriteTo writes the profile as folded lines sorted bytewise by stack:
// "stack count", or "stack before after" for stacks that got diff lines.
func (p *Profile) WriteTo(w io.Writer) (int64, error) {
	cw := &countWriter{w: w}
	bw := bufio.NewWriterSize(cw, 64<<10)
	var buf []byte
	for _, e := range p.Sorted() {
		rec := Record{Stack: []byte(e.Stack), Count: e.Count, Kind: Classic}
		if e.Diff {
			rec.Kind, rec.Before = Diff, e.Before
		}
		buf = AppendRecord(buf[:0], &rec)
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
