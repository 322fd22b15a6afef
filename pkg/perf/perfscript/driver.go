package perfscript

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"sync"

	"flamekit/internal/base/freelist"
	"flamekit/internal/base/hugepage"
	"flamekit/pkg/fold/collapse"
	"flamekit/pkg/folded"
	"flamekit/pkg/perf/sample"
)

// DefaultChunkSize is how much input one worker parses at a time.
const DefaultChunkSize = 2 << 20

// ErrNotPerfScriptLine is the error of a skipped line.
var ErrNotPerfScriptLine = errors.New("not a perf script sample header, frame, comment or blank line")

// ErrHashComm is the error of a sample whose comm starts with '#': perf
// script's text cannot tell its header from a comment, and it is skipped
// (as stackcollapse-perf.pl skips it), counted.
var ErrHashComm = errors.New("a sample of a process whose name starts with '#', which perf script text cannot tell from a comment: skipped, as stackcollapse-perf.pl skips it (read the perf.data file itself to keep it)")

// chunkBuffers returns a function that makes chunk buffers of size bytes
// (for one goroutine). The first is allocated alone, of first bytes (the
// first chunks are smaller, see chunker), and is not used again (see
// textChunk.Done): an input of one chunk needs no more. The next are cut,
// two at a time, from allocations on huge pages, so that filling them
// does not cost a page fault per 4 kB (tens of milliseconds per run on
// some virtual machines), and only the buffers a run uses are made:
// memory a process touches first costs a page fault and zeroing (on some
// virtual machines several milliseconds per megabyte), and the reader
// keeps fewer chunks in flight than the freelist may hold.
func chunkBuffers(first, size int) func() *[]byte {
	var slab []byte
	made := 0
	return func() *[]byte {
		made++
		if made == 1 {
			b := make([]byte, 0, first)
			return &b
		}
		if len(slab) == 0 {
			slab = hugepage.Bytes(2 * size)[:2*size]
		}
		b := slab[:0:size]
		slab = slab[size:]
		return &b
	}
}

// Text is the collapse.Producer of one perf script text: it cuts the text
// at sample boundaries into chunks that workers parse at once.
type Text struct {
	// ChunkSize is how much text a chunk holds, set before the first
	// Next; 0 means DefaultChunkSize.
	ChunkSize int

	rc      io.ReadCloser
	name    string
	srcline bool
	started bool
	ch      chunker
	bufs    *freelist.List[*[]byte]
	bufSize int // the size of the buffers but the first (chunkBuffers)
	fs      fileState
	frames  *frameTable // nil with srcline
	hintsMu sync.Mutex
	hints   []*frameHints // by worker (collapse.Sink.Worker)
	rest    []byte        // the part of the last chunk read not yet returned
	restBuf *[]byte       // its buffer
	err     error         // the read error that ended the input
	done    bool          // the last chunk was read

	// Merge side (chunk.Done).
	lineBase int
	skips    folded.Skips
}

// NewText returns the Producer of the perf script text read from rc (plain
// text: see decompress.NewReader for gzip), which it closes; name is used in
// messages. With srcline, the text was printed with perf script
// -F+srcline (stackcollapse --srcline): a source line may follow a blank
// line, so the text is not cut.
func NewText(rc io.ReadCloser, name string, srcline bool) *Text {
	return &Text{rc: rc, name: name, srcline: srcline}
}

// fileState is the reader's view of one input.
type fileState struct {
	capture    sample.Capture
	headerSeen bool // a sample header was met (the --header block is over)
}

// Next implements collapse.Producer.
func (t *Text) Next(pre *collapse.Prescan) (collapse.Chunk, error) {
	if !t.started {
		t.started = true
		size := t.ChunkSize
		if size <= 0 {
			size = DefaultChunkSize
		}
		if t.srcline {
			size = int(^uint(0) >> 2)
		}
		t.ch = chunker{r: t.rc, size: size}
		if !t.srcline {
			t.frames = newFrameTable()
		}
		// Chunks in flight: a queue and one per worker, one being read.
		n := 3*runtime.GOMAXPROCS(0) + 4
		size = min(size, DefaultChunkSize)
		t.bufSize = size + 64<<10
		t.bufs = freelist.New(n, chunkBuffers(rampSize(size, 0)+64<<10, t.bufSize))
	}
	if t.restBuf == nil {
		if t.done {
			return nil, nil
		}
		bp := t.bufs.Get()
		data, last, err := t.ch.next(bp)
		t.rest, t.restBuf, t.done = data, bp, last
		if err != nil {
			t.err = fmt.Errorf("%s: %w", t.name, err)
		}
	}
	data := t.rest
	if pre.Wanted() || !t.fs.headerSeen {
		if cut := prescan(data, &t.fs, pre); cut < len(data) {
			// A sample in the chunk changes the decisions: what comes
			// before it is a chunk of its own, folded under the
			// decisions before it. The buffer goes with the last piece.
			t.rest = data[cut:]
			return &textChunk{t: t, data: data[:cut]}, nil
		}
	}
	c := &textChunk{t: t, data: data, buf: t.restBuf}
	t.rest, t.restBuf = nil, nil
	if t.done {
		return c, t.err
	}
	return c, nil
}

// Capture implements collapse.Producer: the facts of the --header block
// (empty without one).
func (t *Text) Capture() *sample.Capture { return &t.fs.capture }

// Close implements collapse.Producer.
func (t *Text) Close() error { return t.rc.Close() }

// Skips returns the lines that were neither a sample header, a frame, a
// comment nor blank; complete once the run is over.
func (t *Text) Skips() folded.Skips { return t.skips }

// parsers keeps the workers' parsers between chunks.
var parsers = sync.Pool{New: func() any { return &parser{} }}

// textChunk is a piece of text that starts and ends at sample boundaries.
type textChunk struct {
	t       *Text
	data    []byte
	buf     *[]byte // the buffer data is in, nil when a later chunk has it
	lines   int
	skipped int
	bad     []badLine
}

func (c *textChunk) Fold(s *collapse.Sink) {
	p := parsers.Get().(*parser)
	p.srcline = nil
	if c.t.srcline {
		p.srcline = s.SrclineCount
	}
	p.frames, p.hints = c.t.frames, nil
	if p.frames != nil {
		p.hints = c.t.workerHints(s.Worker())
	}
	p.reset(c.data)
	for smp := p.next(); smp != nil; smp = p.next() {
		if p.chained {
			s.AddChain(smp, p.chain, p.frames)
		} else {
			s.Add(smp)
		}
	}
	c.lines, c.skipped = p.lineNo, p.skipped
	c.bad = append(c.bad[:0], p.bad...)
	p.srcline, p.frames, p.hints = nil, nil, nil
	parsers.Put(p)
}

// workerHints returns the frameHints of worker w: the chunks of one
// worker number are never parsed at once.
func (t *Text) workerHints(w int) *frameHints {
	t.hintsMu.Lock()
	defer t.hintsMu.Unlock()
	for len(t.hints) <= w {
		t.hints = append(t.hints, new(frameHints))
	}
	return t.hints[w]
}

func (c *textChunk) Done() {
	t := c.t
	for _, b := range c.bad {
		err := b.err
		if err == nil {
			err = ErrNotPerfScriptLine
		}
		t.skips.Note(t.name, t.lineBase+b.line, b.text, err)
	}
	t.skips.Count += c.skipped - len(c.bad)
	t.lineBase += c.lines
	if c.buf != nil && cap(*c.buf) >= t.bufSize {
		// The first chunk's buffer, smaller, is not used again: it
		// would grow step by step for a larger chunk.
		t.bufs.Put(c.buf)
	}
	c.data, c.buf = nil, nil
}

// prescan reads a chunk's header block and first sample headers before it
// is handed to a worker: the capture facts of the --header block and what
// the stage decides from the first samples (the default event, timed or
// classic output) must be known in input order. Frame lines are not
// parsed. It returns len(data), or the offset of a sample that would
// change the decisions and is not the chunk's first (see
// collapse.Prescan.See): the chunk is to be cut there.
func prescan(data []byte, fs *fileState, pre *collapse.Prescan) int {
	var toks []token
	var s sample.Sample
	for pos := 0; pos < len(data); {
		start := pos
		var line []byte
		if i := bytes.IndexByte(data[pos:], '\n'); i >= 0 {
			line, pos = data[pos:pos+i], pos+i+1
		} else {
			line, pos = data[pos:], len(data)
		}
		if len(line) == 0 {
			continue
		}
		if line[0] == '#' {
			if !fs.headerSeen {
				headerLine(&fs.capture, line)
			}
			continue
		}
		if isSpace(line[0]) && fs.headerSeen {
			continue // a frame; single-line samples only come in files without them
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		toks = splitTokens(toks[:0], line)
		h, ok := parseHeader(line, toks)
		if !ok || h.sideBand {
			continue
		}
		fs.headerSeen = true
		s.Event, s.Payload, s.HasTime = h.event, h.payload, false
		if h.time != nil {
			_, err := folded.ParseTime(h.time)
			s.HasTime = err == nil
		}
		if !pre.See(&s) {
			return start
		}
		if !pre.Wanted() {
			return len(data)
		}
	}
	return len(data)
}

// chunker cuts a stream into chunks that end at a sample boundary: after
// a blank line, or after a sample printed on one line. The first chunks
// are smaller (rampSize): the first worker starts once the first is read,
// the second soon after, rather than each after a whole chunk.
type chunker struct {
	r     io.Reader
	size  int
	n     int // chunks cut
	carry []byte
	done  bool
}

// rampChunks is how many chunks are smaller than the others: the first
// is an eighth of their size, the next a quarter, then a half.
const rampChunks = 3

// rampSize returns the size of chunk n (from 0) of chunks of size bytes:
// smaller for the first rampChunks, but never below 64 kB (nor above
// size).
func rampSize(size, n int) int {
	if n >= rampChunks {
		return size
	}
	return min(size, max(size>>(rampChunks-n), 64<<10))
}

// next fills *bp with the next chunk and returns it; last is true for the
// last one (the rest of the input, whatever it is), err is the read error
// that ended the input, if any.
func (c *chunker) next(bp *[]byte) (data []byte, last bool, err error) {
	size := rampSize(c.size, c.n)
	c.n++
	want := max(size, len(c.carry)+size/2)
	b := append((*bp)[:0], c.carry...)
	eof := false
	split := -1
	for {
		for len(b) < want && !eof {
			if cap(b)-len(b) < 32<<10 {
				b = slices.Grow(b, max(len(b), 64<<10))
			}
			n, rerr := c.r.Read(b[len(b):cap(b)])
			b = b[:len(b)+n]
			if rerr == io.EOF {
				eof = true
			} else if rerr != nil {
				err, eof = rerr, true
			}
		}
		if eof {
			break
		}
		if split = findSplit(b); split > 0 {
			break
		}
		want = 2 * len(b) // one sample larger than a chunk: read on
	}
	*bp = b
	if eof {
		c.done = true
		return b, true, err
	}
	c.carry = append(c.carry[:0], b[split:]...)
	return b[:split], false, nil
}

// findSplit returns the end of the last safe boundary in b (just after a
// blank line, or after a line that is a whole sample), or -1.
func findSplit(b []byte) int {
	// The last blank line ("\n" or "\r\n" after a newline).
	for pos := len(b); ; {
		i := bytes.LastIndexByte(b[:pos], '\n')
		if i < 1 {
			break
		}
		if b[i-1] == '\n' || i >= 2 && b[i-1] == '\r' && b[i-2] == '\n' {
			return i + 1
		}
		pos = i
	}
	// No blank line: samples without a call graph are one line each.
	end := bytes.LastIndexByte(b, '\n')
	var toks []token
	for n := 0; end > 0 && n < 256; n++ {
		start := bytes.LastIndexByte(b[:end], '\n') + 1
		line := bytes.TrimSuffix(b[start:end], []byte("\r"))
		toks = splitTokens(toks[:0], line)
		if h, ok := parseHeader(line, toks); ok && h.hasFrame {
			return end + 1
		}
		end = start - 1
	}
	return -1
}
