package perfscript

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"sync"

	"flamekit/internal/hugepage"
	"flamekit/pkg/collapse"
	"flamekit/pkg/folded"
	"flamekit/pkg/sample"
)

// DefaultChunkSize is how much input one worker parses at a time.
const DefaultChunkSize = 2 << 20

// Options are the collapse options (see package collapse).
type Options = collapse.Options

// Input is one perf script text to read.
type Input struct {
	Name   string                        // shown in messages
	Source string                        // "source" metadata value ("" for stdin)
	Open   func() (io.ReadCloser, error) // opens (and decompresses) the input
}

// Collapser turns perf script text into folded stacks through the collapse
// stage (package collapse): classic output (sorted, summed per stack, as
// stackcollapse-perf.pl prints it) or, when the input has timestamps and
// Options.NoTime is false, one timed line per sample in input order,
// framed by metadata lines.
//
// The input is cut at sample boundaries into chunks that Workers
// goroutines parse at once; the output does not depend on the cut.
type Collapser struct {
	Options
	Workers   int // parsers running at once; 0 means GOMAXPROCS
	ChunkSize int // bytes per chunk; 0 means DefaultChunkSize
	// Warnf prints a message on standard error (may be nil).
	Warnf func(format string, args ...any)
}

// Summary is what a run read and wrote.
type Summary struct {
	collapse.Summary
	// Skipped counts the lines that were neither a sample header, a
	// frame, a comment nor blank.
	Skipped folded.Skips
}

// ErrNotPerfScript is the error of a skipped line.
var ErrNotPerfScript = errors.New("not a perf script sample header, frame, comment or blank line")

// job is one chunk on its way through the workers to the merge stage.
type job struct {
	data    []byte
	buf     *[]byte // the buffer data is in, nil when a later job has it
	file    int
	first   bool            // first chunk of its file
	last    bool            // last chunk of its file
	capture *sample.Capture // the file's header facts, on its first chunk
	batch   *collapse.Batch
	lines   int
	skipped int
	bad     []badLine
	done    chan struct{}
}

// fileState is the reader's view of one input.
type fileState struct {
	capture    sample.Capture
	headerSeen bool // a sample header was met (the --header block is over)
	jobs       int
}

// freeList keeps buffers for reuse within one run. Unlike a sync.Pool it
// survives garbage collections, which otherwise make every chunk allocate
// (and clear) megabytes afresh.
type freeList[T any] struct {
	c    chan T
	make func() T
}

func newFreeList[T any](n int, newT func() T) *freeList[T] {
	return &freeList[T]{c: make(chan T, n), make: newT}
}

func (f *freeList[T]) get() T {
	select {
	case x := <-f.c:
		return x
	default:
		return f.make()
	}
}

func (f *freeList[T]) put(x T) {
	select {
	case f.c <- x:
	default:
	}
}

// chunkBuffers returns a function that makes chunk buffers of size bytes
// (for one goroutine). The first is allocated alone: an input of one chunk
// needs no more. When a second is needed, it and the next n-2 are cut
// from one allocation on huge pages, so that filling them does not cost a
// page fault per 4 kB (tens of milliseconds per run on some virtual
// machines); any more are allocated alone.
func chunkBuffers(n, size int) func() *[]byte {
	var slab []byte
	made := 0
	return func() *[]byte {
		made++
		if made == 1 || made > n {
			b := make([]byte, 0, size)
			return &b
		}
		if slab == nil {
			slab = hugepage.Bytes((n - 1) * size)[:(n-1)*size]
		}
		i := made - 2
		b := slab[i*size : i*size : (i+1)*size]
		return &b
	}
}

// Run reads the inputs in order, as one stream, and writes the folded
// output to w. Inputs that cannot be read are reported in the returned
// error (after the others were processed); a write error stops the run.
func (c *Collapser) Run(w io.Writer, inputs []Input) (Summary, error) {
	opt := c.Options
	workers := c.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	chunk := c.ChunkSize
	if chunk <= 0 {
		chunk = DefaultChunkSize
	}
	if opt.Srcline {
		// A srcline line may be read across a blank line: no cutting.
		workers, chunk = 1, int(^uint(0)>>2)
	}
	st, err := collapse.New(w, opt)
	if err != nil {
		return Summary{}, err
	}
	st.Warnf = c.Warnf

	jobs := make(chan *job)
	queue := make(chan *job, 2*workers+2)
	// Chunks in flight: the queue, one per worker, one being read.
	inFlight := cap(queue) + workers + 2
	bufs := newFreeList(inFlight, chunkBuffers(inFlight, min(chunk, DefaultChunkSize)+64<<10))
	batches := newFreeList(inFlight, st.NewBatch)
	var wg sync.WaitGroup
	for range workers {
		wk := st.Worker()
		p := &parser{}
		if opt.Srcline {
			p.srcline = wk.SrclineCount
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				p.reset(j.data)
				for s := p.next(); s != nil; s = p.next() {
					wk.Fold(j.batch, s)
				}
				j.lines, j.skipped = p.lineNo, p.skipped
				j.bad = append(j.bad[:0], p.bad...)
				close(j.done)
			}
		}()
	}

	var (
		skips    folded.Skips
		lineBase = make([]int, len(inputs))
		mergeErr error
		mu       sync.Mutex
	)
	failed := func() bool {
		mu.Lock()
		defer mu.Unlock()
		return mergeErr != nil
	}
	mergeDone := make(chan struct{})
	go func() {
		defer close(mergeDone)
		for j := range queue {
			<-j.done
			if j.first {
				st.Begin(j.capture, inputs[j.file].Source)
			}
			err := st.Merge(j.batch)
			for _, b := range j.bad {
				skips.Note(inputs[j.file].Name, lineBase[j.file]+b.line, b.text, ErrNotPerfScript)
			}
			skips.Count += j.skipped - len(j.bad)
			lineBase[j.file] += j.lines
			if j.last {
				err = st.End()
			}
			if err != nil {
				mu.Lock()
				mergeErr = err
				mu.Unlock()
			}
			batches.put(j.batch)
			if j.buf != nil {
				bufs.put(j.buf)
			}
			j.data, j.batch, j.buf = nil, nil, nil
		}
	}()

	var inputErrs []error
	for fi, in := range inputs {
		if failed() {
			break
		}
		fs := &fileState{}
		send := func(j *job) {
			if j.first {
				capture := fs.capture
				j.capture = &capture
			}
			fs.jobs++
			j.batch = batches.get()
			st.ResetBatch(j.batch)
			queue <- j
			jobs <- j
		}
		emit := func(data []byte, bp *[]byte, last bool) {
			for st.PrescanWanted() || !fs.headerSeen {
				cut := prescan(data, fs, st)
				if cut == len(data) {
					break
				}
				// A sample in the chunk changes the decisions: what
				// comes before it is a job of its own, folded under the
				// decisions before it. The buffer goes with the last job.
				j := &job{data: data[:cut], file: fi, first: fs.jobs == 0, done: make(chan struct{})}
				send(j)
				data = data[cut:]
			}
			j := &job{data: data, buf: bp, file: fi, first: fs.jobs == 0, last: last, done: make(chan struct{})}
			send(j)
		}
		rc, err := in.Open()
		if err != nil {
			inputErrs = append(inputErrs, err)
			continue
		}
		err = readChunks(rc, chunk, bufs.get, emit, failed)
		if cerr := rc.Close(); err == nil && cerr != nil {
			err = cerr
		}
		if err != nil {
			inputErrs = append(inputErrs, fmt.Errorf("%s: %w", in.Name, err))
		}
	}
	close(queue)
	close(jobs)
	wg.Wait()
	<-mergeDone

	cs, err := st.Close()
	sum := Summary{Summary: cs, Skipped: skips}
	if skips.Count > 0 {
		c.warn("%s", skips)
	}
	if err != nil {
		return sum, err
	}
	return sum, errors.Join(inputErrs...)
}

func (c *Collapser) warn(format string, args ...any) {
	if c.Warnf != nil {
		c.Warnf(format, args...)
	}
}

// prescan reads a chunk's header block and first sample headers before it
// is handed to a worker: the capture facts of the --header block and what
// the stage decides from the first samples (the default event, timed or
// classic output) must be known in input order. Frame lines are not
// parsed. It returns len(data), or the offset of a sample that would
// change the decisions and is not the chunk's first (see
// collapse.Stage.Decides): the chunk is to be cut there.
func prescan(data []byte, fs *fileState, st *collapse.Stage) int {
	var toks []token
	var s sample.Sample
	first := true
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
		if !first && st.Decides(&s) {
			return start
		}
		first = false
		if !st.Prescan(&s) && fs.headerSeen {
			return len(data)
		}
	}
	return len(data)
}

// chunker cuts a stream into chunks that end at a sample boundary: after
// a blank line, or after a sample printed on one line.
type chunker struct {
	r     io.Reader
	size  int
	carry []byte
	done  bool
}

// next fills *bp with the next chunk and returns it; last is true for the
// last one (the rest of the input, whatever it is), err is the read error
// that ended the input, if any.
func (c *chunker) next(bp *[]byte) (data []byte, last bool, err error) {
	b := append((*bp)[:0], c.carry...)
	want := max(c.size, len(c.carry)+c.size/2)
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

// readChunks reads r and calls emit with its chunks (see chunker), until
// the last or until stop returns true.
func readChunks(r io.Reader, size int, getBuf func() *[]byte, emit func(data []byte, bp *[]byte, last bool), stop func() bool) error {
	c := &chunker{r: r, size: size}
	for {
		bp := getBuf()
		data, last, err := c.next(bp)
		if !last && stop() {
			// Hand over what was read, as the last chunk.
			data = (*bp)[:len(*bp)]
			last = true
		}
		emit(data, bp, last)
		if last {
			return err
		}
	}
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
