package stackfilter

import (
	"bufio"
	"bytes"
	"strconv"

	"flamekit/pkg/folded"
)

// Stats counts what Copy read and wrote.
type Stats struct {
	Lines   int64 // records read
	Written int64 // records written
	// In and Out are the sums of the counts read and written (for
	// differential lines, the second count); InBefore and OutBefore those
	// of the first counts of differential lines.
	In, Out, InBefore, OutBefore float64
	// Unknown counts the lines dropped because the selection needs a
	// field (cpu=, pid=, tid=) the line does not carry.
	Unknown int64
	// Escaped counts the classic lines whose new stack ended in a blank
	// and a number ("f 2" after --hide of the frames after it), which a
	// reader would take for the first count of a differential line: that
	// blank was written '_' (see escape).
	Escaped int64
}

// Add adds the counts of o to s.
func (s *Stats) Add(o Stats) {
	s.Lines += o.Lines
	s.Written += o.Written
	s.In += o.In
	s.Out += o.Out
	s.InBefore += o.InBefore
	s.OutBefore += o.OutBefore
	s.Unknown += o.Unknown
	s.Escaped += o.Escaped
}

// Copy filters the records of rd into w, one output line per kept input
// line, in input order and of the same kind: a timed line keeps its time
// and its cpu=, pid= and tid= fields, a differential line both counts,
// each written as read. Lines are not summed (flamegraph, difffolded and
// timeslice sum them).
//
// Metadata lines are copied where they were read. A metadata line's
// samples="N" counts the timed lines before it: when N is the number of
// timed lines read since the input's start (or the last such line), it
// becomes the number written; otherwise it cannot be checked and is
// dropped. The capture's span (first, last) is kept, so that relative
// times of the filtered stream still count from the capture's start.
func (f *Filter) Copy(w *bufio.Writer, rd *folded.Reader) (Stats, error) {
	c := f.NewCopier(w)
	metas := 0
	flushMeta := func() error {
		all := rd.Meta()
		for ; metas < len(all); metas++ {
			if err := c.Meta(&all[metas]); err != nil {
				return err
			}
		}
		return nil
	}
	for rd.Next() {
		if err := flushMeta(); err != nil {
			return c.Stats, err
		}
		if err := c.Record(rd.Record(), rd.Text()); err != nil {
			return c.Stats, err
		}
	}
	if err := rd.Err(); err != nil {
		return c.Stats, err
	}
	return c.Stats, flushMeta()
}

// A Copier filters one input's records into a writer, as Copy does, given
// one at a time: its metadata lines (Meta) where they stand among its
// records (Record).
type Copier struct {
	// Stats counts what was read and written so far.
	Stats Stats

	f                 *Filter
	w                 *bufio.Writer
	timedIn, timedOut int64 // since the last samples= line
}

// NewCopier returns a Copier of one input into w.
func (f *Filter) NewCopier(w *bufio.Writer) *Copier { return &Copier{f: f, w: w} }

// Meta writes a metadata line, its samples= count made the count written
// (see Copy).
func (c *Copier) Meta(m *folded.Meta) error {
	mm := *m
	if v, ok := mm.Get(folded.KeySamples); ok {
		mm.Fields = append([]folded.Field(nil), mm.Fields...)
		if n, err := strconv.ParseInt(v, 10, 64); err == nil && n == c.timedIn {
			mm.Set(folded.KeySamples, strconv.FormatInt(c.timedOut, 10))
		} else {
			mm.Set(folded.KeySamples, "")
		}
		c.timedIn, c.timedOut = 0, 0
	}
	_, err := c.w.Write(folded.AppendMeta(nil, &mm))
	return err
}

// Record filters one record: text is its line as read (nil when it was
// never formatted: it is then written anew).
func (c *Copier) Record(rec *folded.Record, text []byte) error {
	st := &c.Stats
	st.Lines++
	st.In += rec.Count
	st.InBefore += rec.Before
	if rec.Kind == folded.Timed {
		c.timedIn++
	}
	if !c.f.selectFields(rec, st) {
		return nil
	}
	out, keep := c.f.Stack(rec.Stack)
	if !keep {
		return nil
	}
	if rec.Kind == folded.Classic && !sameSlice(out, rec.Stack) {
		if e, ok := escape(out); ok {
			out = e
			st.Escaped++
		}
	}
	if err := writeLine(c.w, text, rec, out); err != nil {
		return err
	}
	st.Written++
	st.Out += rec.Count
	st.OutBefore += rec.Before
	if rec.Kind == folded.Timed {
		c.timedOut++
	}
	return nil
}

// writeLine writes the line text of rec with its stack replaced by out:
// everything after the stack (counts, time, fields) is copied as read.
func writeLine(w *bufio.Writer, text []byte, rec *folded.Record, out []byte) error {
	if n := len(text); n > 0 && text[n-1] == '\r' {
		text = text[:n-1]
	}
	s := rec.Stack
	if len(s) > len(text) || len(s) > 0 && &s[0] != &text[0] || len(s) == 0 && text == nil {
		// Not a prefix of the line (a Reader that copied it): write the
		// record anew.
		r := *rec
		r.Stack = out
		_, err := w.Write(folded.AppendRecord(nil, &r))
		return err
	}
	if _, err := w.Write(out); err != nil {
		return err
	}
	if _, err := w.Write(text[len(s):]); err != nil {
		return err
	}
	return w.WriteByte('\n')
}

// escape returns stack with the blank before a trailing number replaced
// by '_', when it ends in whitespace and a number: "stack count" would
// then read as a differential line. ok is false (and stack returned as
// is) when the stack needs no escape.
func escape(stack []byte) ([]byte, bool) {
	i := len(stack)
	for i > 0 && (stack[i-1] >= '0' && stack[i-1] <= '9' || stack[i-1] == '.') {
		i--
	}
	if i == len(stack) || i == 0 {
		return stack, false
	}
	switch stack[i-1] {
	case ' ', '\t', '\n', '\r', '\f', '\v':
	default:
		return stack, false
	}
	if _, ok := folded.ParseCount(stack[i:]); !ok {
		return stack, false
	}
	e := bytes.Clone(stack)
	e[i-1] = '_'
	return e, true
}

// sameSlice reports whether a and b are the same bytes in memory: what
// Filter.Stack returns for a stack it leaves alone.
func sameSlice(a, b []byte) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}
