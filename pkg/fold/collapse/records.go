package collapse

import (
	"bytes"
	"math"
	"strconv"

	"flamekit/pkg/folded"
	"flamekit/pkg/perf/sample"
)

// Records receives the output of Driver.RunRecords: what a lenient
// folded.Reader reading the text Run writes would give, in the same order,
// without that text being written or read. Its methods are called on one
// goroutine at a time, in output order; an error stops the run, and
// RunRecords returns it.
type Records interface {
	// Meta receives a metadata line, its Line set to its line number in
	// Run's output.
	Meta(m *folded.Meta) error
	// Record receives the record of a folded line and its line number.
	// rec and its Stack are valid until Record returns. text is the line
	// as Run writes it, without its newline, for the records that are not
	// Timed (classic lines: summed output, samples without a time); nil
	// for timed records, which are never formatted.
	Record(rec *folded.Record, line int, text []byte) error
	// Malformed receives a line Run would write that a folded.Reader
	// refuses (a count beyond 2^53, a negative one), with its number and
	// the Reader's error, which a lenient Reader counts in its Skips.
	Malformed(line int, text []byte, err error) error
}

// RunRecords is Run with the output given to out as records instead of
// written as text: out receives exactly what a lenient folded.Reader would
// read from Run's output (records, metadata lines, malformed lines, with
// their line numbers), but the timed lines of samples and off-CPU
// intervals, nearly all of any timed output, are never formatted nor
// parsed. The classic (summed) output and the rare lines a reader would
// not read as written (no time, a count a reader refuses, a newline in a
// stack) still go through their text, so that out gets what a reader
// would.
func (d *Driver) RunRecords(out Records, inputs []Input) (Summary, error) {
	r := &recordOut{out: out}
	st, err := newStage(r, d.Options)
	if err != nil {
		return Summary{}, err
	}
	st.out = r
	sum, err := d.run(st, inputs)
	if ferr := r.flush(); err == nil {
		err = ferr
	}
	return sum, err
}

// recordOut gives the output of a RunRecords run to its Records: records
// made by the workers as they are, and text (written through Write) as a
// folded.Reader reads it.
type recordOut struct {
	out  Records
	line int    // the number of the last line given
	part []byte // the start of a line written in part
	rec  folded.Record
	// addrs are the addresses of the record given (Options.Addresses).
	addrs folded.Addrs
}

// Write parses the complete lines of p (and of what came before without
// its newline) as a folded.Reader does.
func (r *recordOut) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			r.part = append(r.part, p...)
			break
		}
		line := p[:i]
		if len(r.part) > 0 {
			r.part = append(r.part, line...)
			line = r.part
		}
		if err := r.parse(line); err != nil {
			return 0, err
		}
		r.part = r.part[:0]
		p = p[i+1:]
	}
	return n, nil
}

// flush parses a last line written without its newline.
func (r *recordOut) flush() error {
	if len(r.part) == 0 {
		return nil
	}
	err := r.parse(r.part)
	r.part = r.part[:0]
	return err
}

// parse gives one line of text to out as folded.Reader.Next reads it.
func (r *recordOut) parse(line []byte) error {
	r.line++
	if folded.IsMeta(line) {
		m, err := folded.ParseMeta(line)
		if err != nil {
			return r.out.Malformed(r.line, line, err)
		}
		m.Line = r.line
		return r.out.Meta(&m)
	}
	if err := folded.ParseLine(line, &r.rec); err != nil {
		return r.out.Malformed(r.line, line, err)
	}
	var text []byte
	if r.rec.Kind != folded.Timed {
		text = line
	}
	return r.out.Record(&r.rec, r.line, text)
}

// metaLine gives a metadata line to out, as a reader reads it back.
func (r *recordOut) metaLine(m *folded.Meta) error {
	r.line++
	c := folded.Meta{Fields: append([]folded.Field(nil), m.Fields...), Line: r.line}
	return r.out.Meta(&c)
}

// timed gives out the record of a timed line: stack, count, time and
// fields, as they are, and the addresses of its frames (nil: none).
func (r *recordOut) timed(stack []byte, count float64, t folded.Time, w where, a *folded.Addrs) error {
	r.line++
	r.rec = folded.Record{Stack: stack, Count: count, Time: t, Kind: folded.Timed, Addrs: a}
	w.record(&r.rec)
	return r.out.Record(&r.rec, r.line, nil)
}

// outRec is a line of a batch made for RunRecords: a timed record, or the
// text of a line that is to be read as a folded.Reader reads it.
type outRec struct {
	end    int  // its bytes are batch.out[previous end:end]
	text   bool // they are a line of text, not a stack
	weight int64
	time   folded.Time
	where  where
}

// lineEnd appends what follows the stack in a timed line: the count,
// the time and fields when s has a time, and the newline. It makes every
// number anew (lineEnds keeps them from line to line) and allocates
// nothing beyond dst.
func lineEnd(dst []byte, weight int64, s *sample.Sample) []byte {
	dst = append(dst, ' ')
	dst = strconv.AppendInt(dst, weight, 10)
	if s.HasTime {
		dst = append(dst, " @"...)
		dst = s.Time.Append(dst)
		dst = appendWhere(dst, s)
	}
	return append(dst, '\n')
}

// lineEnds appends what follows the stacks of timed lines (lineEnd),
// one after the other: it keeps the text of the count and of the fields
// of the line before, for consecutive samples mostly have the same count
// (a fixed period) and the same CPU and thread, and formatting their
// numbers took a twentieth of the instructions of stackcollapse FILE.data.
type lineEnds struct {
	weight     int64
	weightText []byte // " COUNT" of weight; empty: none yet
	// The fields (appendWhere) of the last sample with a time.
	cpu       int
	hasPID    bool
	pid       int32
	tid       []byte
	whereText []byte
	hasWhere  bool
}

// add appends what follows a stack in a timed line for a sample s of
// weight weight to dst.
func (e *lineEnds) add(dst []byte, weight int64, s *sample.Sample) []byte {
	if len(e.weightText) == 0 || weight != e.weight {
		e.weight = weight
		e.weightText = strconv.AppendInt(append(e.weightText[:0], ' '), weight, 10)
	}
	dst = append(dst, e.weightText...)
	if s.HasTime {
		dst = append(dst, " @"...)
		dst = s.Time.Append(dst)
		if !e.hasWhere || s.CPU != e.cpu || s.HasProcessID != e.hasPID || s.ProcessID != e.pid || !bytes.Equal(s.TID, e.tid) {
			e.cpu, e.hasPID, e.pid, e.hasWhere = s.CPU, s.HasProcessID, s.ProcessID, true
			e.tid = append(e.tid[:0], s.TID...)
			e.whereText = appendWhere(e.whereText[:0], s)
		}
		dst = append(dst, e.whereText...)
	}
	return append(dst, '\n')
}

// sample ends the timed line of an on-CPU sample whose stack the worker
// folded at b.out[mark:]: its record, or, when a folded.Reader would not
// read its line as written, that line.
func (r *recordOut) sample(w *worker, b *batch, mark int, weight int64, s *sample.Sample) {
	if w.st.opt.Addresses {
		b.addrs.add(w.addrs) // one per outRec (addrs.go)
	}
	if !s.HasTime || weight < 0 || weight > folded.MaxCount || s.CPU > math.MaxInt32 || !plainStack(b.out[mark:]) {
		b.out = lineEnd(b.out, weight, s)
		b.recs = append(b.recs, outRec{end: len(b.out), text: true})
		return
	}
	b.recs = append(b.recs, outRec{end: len(b.out), weight: weight, time: s.Time, where: whereOf(s)})
}

// plainStack reports whether a line that starts with stack is read with
// stack as its stack: it holds no newline and does not start a metadata
// line.
func plainStack(stack []byte) bool {
	return bytes.IndexByte(stack, '\n') < 0 && !bytes.HasPrefix(stack, []byte(folded.MetaPrefix))
}

// batch gives out the lines of a batch made for RunRecords.
func (r *recordOut) batch(st *stage, b *batch) {
	start := 0
	for i := range b.recs {
		if st.err != nil {
			return
		}
		o := &b.recs[i]
		p := b.out[start:o.end]
		start = o.end
		if o.text {
			_, st.err = r.Write(p)
			continue
		}
		var a *folded.Addrs
		if st.opt.Addresses {
			a = b.addrs.at(i, &r.addrs)
		}
		st.err = r.timed(p, float64(o.weight), o.time, o.where, a)
	}
}

// meta gives a metadata line to the Records.
func (r *recordOut) meta(st *stage, m *folded.Meta) {
	if st.err == nil {
		st.err = r.metaLine(m)
	}
}

// piece gives out the line of an off-CPU piece: its record when the
// line holds a time and a count that a reader reads back as the same
// float64 (under 10^15 ns, 15 digits: every interval shorter than 11
// days), else its text.
func (r *recordOut) piece(st *stage, stack []byte, p *piece) {
	if st.err != nil {
		return
	}
	if p.hasTime && p.ns >= 0 && p.ns < 1e15 && plainStack(stack) {
		st.err = r.timed(stack, float64(p.ns)/1000, p.t, p.where, nil)
		return
	}
	st.buf = p.appendLine(st.buf[:0], stack)
	_, st.err = r.Write(st.buf)
}
