package collapse

import (
	"flamekit/pkg/folded"
	"flamekit/pkg/perf/sample"
)

// output is where the stage gives its timed output: the text Run writes
// (textOutput) or the records RunRecords hands on (recordOut). The stage
// and the workers call it and never ask which it is. Classic (summed)
// output is written as text to stage.w in both cases; RunRecords' w is the
// recordOut, which reads that text back as a folded.Reader does.
type output interface {
	// sample ends the timed line of one on-CPU sample in b, whose stack
	// the worker folded in place at b.out[mark:] (on the worker's
	// goroutine).
	sample(w *worker, b *batch, mark int, weight int64, s *sample.Sample)
	// batch gives out the timed lines of a batch, in order.
	batch(st *stage, b *batch)
	// meta gives out a metadata line.
	meta(st *stage, m *folded.Meta)
	// piece gives out the line of an off-CPU piece.
	piece(st *stage, stack []byte, p *piece)
}

// textOutput writes timed output as folded text to stage.w.
type textOutput struct {
	buf []byte // off-CPU pieces not written yet
}

func (t *textOutput) sample(w *worker, b *batch, _ int, weight int64, s *sample.Sample) {
	b.out = w.ends.add(b.out, weight, s)
}

func (t *textOutput) batch(st *stage, b *batch) { st.write(b.out) }

func (t *textOutput) meta(st *stage, m *folded.Meta) {
	t.buf = folded.AppendMeta(t.buf, m)
	st.write(t.buf)
	t.buf = t.buf[:0]
}

func (t *textOutput) piece(st *stage, stack []byte, p *piece) {
	t.buf = p.appendLine(t.buf, stack)
	if len(t.buf) >= chunkSize {
		st.write(t.buf)
		t.buf = t.buf[:0]
	}
}

// appendLine appends the folded line of an off-CPU piece whose stack is
// stack: its microseconds, and its time and fields when it has a time;
// the stack escaped as every writer escapes it (folded.AppendStack: a
// line without a time is classic, and "Evil 5" must not make it read as
// differential).
func (p *piece) appendLine(dst, stack []byte) []byte {
	kind := folded.Classic
	if p.hasTime {
		kind = folded.Timed
	}
	dst, _ = folded.AppendStack(dst, stack, kind)
	dst = append(dst, ' ')
	dst = folded.AppendCount(dst, float64(p.ns)/1000)
	if p.hasTime {
		dst = append(dst, " @"...)
		dst = p.t.Append(dst)
		dst = p.where.append(dst)
	}
	return append(dst, '\n')
}

var (
	_ output = (*textOutput)(nil)
	_ output = (*recordOut)(nil)
)
