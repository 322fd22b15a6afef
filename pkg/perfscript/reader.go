package perfscript

import (
	"bytes"
	"io"

	"flamekit/pkg/collapse"
	"flamekit/pkg/folded"
	"flamekit/pkg/sample"
)

// Reader reads perf script text as samples, one at a time, in input
// order, in the manner of bufio.Scanner:
//
//	rd := perfscript.NewReader(f, "out.perf")
//	for rd.Next() {
//		s := rd.Sample()
//		...
//	}
//	if err := rd.Err(); err != nil { ... }
//
// It parses as a Collapser does, without its goroutines: feed its samples
// to collapse.Stage.Add and the output is the Collapser's. Lines that are
// not perf script text are counted in Skips.
type Reader struct {
	// Srcline, set before the first Next, reads the lines of perf script
	// -F+srcline into Frame.Srcline (stackcollapse --srcline).
	Srcline bool

	name       string
	ch         chunker
	buf        []byte
	p          parser
	started    bool
	last       bool
	lineBase   int
	capture    sample.Capture
	headerSeen bool
	skips      folded.Skips
	s          *sample.Sample
	err        error
}

// NewReader returns a Reader of r (plain text: see folded.Decompress for
// gzip); name is used in messages.
func NewReader(r io.Reader, name string) *Reader {
	return &Reader{name: name, ch: chunker{r: r, size: DefaultChunkSize}}
}

// Next reads the next sample. It returns false at the end of the input or
// on a read error, which Err then reports.
func (r *Reader) Next() bool {
	if !r.started {
		r.started = true
		if r.Srcline {
			r.ch.size = int(^uint(0) >> 2) // a srcline line may follow a blank line
			r.p.srcline = func(f *sample.Frame) int { return collapse.SrclineCount(f, false) }
		}
		if !r.nextChunk() {
			return false
		}
	}
	for {
		if s := r.p.next(); s != nil {
			s.Line += r.lineBase
			r.s = s
			return true
		}
		r.endChunk()
		if r.last || !r.nextChunk() {
			r.s = nil
			return false
		}
	}
}

// nextChunk reads and starts parsing the next chunk.
func (r *Reader) nextChunk() bool {
	if r.err != nil || r.ch.done {
		return false
	}
	data, last, err := r.ch.next(&r.buf)
	r.last = last
	if err != nil {
		r.err = err
	}
	if !r.headerSeen {
		r.header(data)
	}
	r.p.reset(data)
	return true
}

// header reads the --header block at the start of the input: its "#"
// lines up to the first sample header, as the Collapser's prescan does.
func (r *Reader) header(data []byte) {
	var toks []token
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		if len(line) > 0 && line[0] == '#' {
			headerLine(&r.capture, line)
			continue
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		toks = splitTokens(toks[:0], line)
		if h, ok := parseHeader(line, toks); ok && !h.sideBand {
			r.headerSeen = true
			return
		}
	}
}

// endChunk counts what the finished chunk skipped.
func (r *Reader) endChunk() {
	for _, b := range r.p.bad {
		r.skips.Note(r.name, r.lineBase+b.line, b.text, ErrNotPerfScript)
	}
	r.skips.Count += r.p.skipped - len(r.p.bad)
	r.lineBase += r.p.lineNo
	r.p.bad, r.p.skipped, r.p.lineNo = r.p.bad[:0], 0, 0
}

// Sample returns the sample read by the last successful call to Next. It
// and the slices it holds are valid until the next call to Next.
func (r *Reader) Sample() *sample.Sample { return r.s }

// Capture returns what the --header block said about the capture (empty
// without one); it is complete once Next has returned the first sample.
func (r *Reader) Capture() *sample.Capture { return &r.capture }

// Skips returns the lines skipped so far.
func (r *Reader) Skips() folded.Skips { return r.skips }

// Err returns the read error that ended the input, if any.
func (r *Reader) Err() error { return r.err }
