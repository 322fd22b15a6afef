package perfscript

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"flamekit/pkg/folded"
)

// DefaultChunkSize is how much input one worker parses at a time.
const DefaultChunkSize = 2 << 20

// Input is one perf script text to read.
type Input struct {
	Name   string                        // shown in messages
	Source string                        // "source" metadata value ("" for stdin)
	Open   func() (io.ReadCloser, error) // opens (and decompresses) the input
}

// Collapser turns perf script text into folded stacks: classic output
// (sorted, summed per stack, as stackcollapse-perf.pl prints it) or, when
// the input has timestamps and Options.NoTime is false, one timed line per
// sample in input order, framed by metadata lines.
//
// The input is cut at sample boundaries into chunks that Workers
// goroutines parse at once; the output does not depend on the cut.
type Collapser struct {
	Options
	Workers   int // parsers running at once; 0 means GOMAXPROCS
	ChunkSize int // bytes per chunk; 0 means DefaultChunkSize
	// Warnf prints a message on standard error (may be nil).
	Warnf func(format string, args ...any)
	// Notef prints Perl's "Filtering for events of type: X" line as is.
	Notef func(format string, args ...any)
}

// Summary is what a run read and wrote.
type Summary struct {
	Samples      int64 // samples written (or summed)
	Weight       int64 // sum of their weights (periods, or 1 each)
	Timed        bool  // timed output was written
	Unrecognised int   // lines that were neither header, frame, blank nor comment
}

// job is one chunk on its way through the workers to the writer.
type job struct {
	data        []byte
	buf         *[]byte
	file        int
	last        bool // last chunk of its file
	timed       bool
	filter      []byte
	filterKnown bool
	defaulted   bool
	outBuf      *[]byte      // pooled buffer for res.out
	start       *folded.Meta // written before this chunk's lines
	event       string       // event for the file's closing metadata line
	res         chunkResult
	done        chan struct{}
}

// fileState is the driver's view of one input.
type fileState struct {
	info       captureInfo
	headerSeen bool   // a sample header was met (the --header block is over)
	firstEvent string // event of the first header, for the metadata
	started    bool   // the opening metadata line was attached to a job
}

var (
	bufPool = sync.Pool{New: func() any { b := make([]byte, 0, DefaultChunkSize+64<<10); return &b }}
	outPool = sync.Pool{New: func() any { b := make([]byte, 0, DefaultChunkSize); return &b }}
)

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
	var inl *inliner
	if opt.Inline {
		inl = newInliner(opt.Context, c.warn)
	}

	// State decided while reading, in input order.
	var (
		timedKnown, timed bool
		filter            []byte
		filterKnown       = opt.EventFilter != ""
		defaulted         = !filterKnown
	)
	if filterKnown {
		filter = []byte(opt.EventFilter)
	}

	jobs := make(chan *job)
	queue := make(chan *job, 2*workers+2)
	parsers := make([]*parser, workers)
	var wg sync.WaitGroup
	for i := range parsers {
		p := &parser{opt: &opt, agg: newAggregator(), inl: inl}
		parsers[i] = p
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				p.filter, p.filterKnown, p.defaulted, p.timed = j.filter, j.filterKnown, j.defaulted, j.timed
				p.parse(j.data, &j.res)
				close(j.done)
			}
		}()
	}

	wr := &writer{c: c, w: w, inputs: inputs, lineBase: make([]int, len(inputs)), fstats: make([]fileStats, len(inputs))}
	mergeDone := make(chan struct{})
	go func() {
		defer close(mergeDone)
		for j := range queue {
			<-j.done
			wr.job(j)
		}
	}()

	var inputErrs []error
	for fi, in := range inputs {
		if wr.failed() {
			break
		}
		fs := &fileState{}
		emit := func(data []byte, bp *[]byte, last bool) {
			if !timedKnown || !filterKnown || !fs.headerSeen {
				prescan(data, fs, &opt, &timedKnown, &timed, &filter, &filterKnown)
			}
			j := &job{data: data, buf: bp, file: fi, last: last, timed: timedKnown && timed,
				filter: filter, filterKnown: filterKnown, defaulted: defaulted, done: make(chan struct{})}
			if j.timed {
				j.outBuf = outPool.Get().(*[]byte)
				j.res.out = (*j.outBuf)[:0]
			}
			event := fs.firstEvent
			if filterKnown {
				event = string(filter)
			}
			if j.timed && !fs.started {
				fs.started = true
				j.start = fs.info.startMeta(event, in.Source)
				if opt.RefWall != "" {
					j.start.Set(folded.KeyRefWall, opt.RefWall)
					j.start.Set(folded.KeyRefPerf, opt.RefPerf)
				}
			}
			j.event = event
			queue <- j
			jobs <- j
		}
		rc, err := in.Open()
		if err != nil {
			inputErrs = append(inputErrs, err)
			continue
		}
		err = readChunks(rc, chunk, emit, wr.failed)
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

	sum := Summary{Samples: wr.samples, Weight: wr.weight, Timed: timedKnown && timed, Unrecognised: wr.unrec}
	if wr.unrec > 0 {
		lines := "lines"
		if wr.unrec == 1 {
			lines = "line"
		}
		c.warn("skipped %d unrecognised %s (not a sample header, frame, comment or blank line): %s",
			wr.unrec, lines, strings.Join(wr.bad, "; "))
	}
	if wr.err == nil && !sum.Timed {
		wr.err = writeClassic(w, parsers)
	}
	if wr.err != nil {
		return sum, wr.err
	}
	return sum, errors.Join(inputErrs...)
}

func (c *Collapser) warn(format string, args ...any) {
	if c.Warnf != nil {
		c.Warnf(format, args...)
	}
}

// prescan reads a chunk's header block and first sample headers before it
// is handed to a worker: the default event filter (the first event of the
// whole input), whether output is timed, and the capture facts of the
// --header block must be known in input order.
func prescan(data []byte, fs *fileState, opt *Options, timedKnown, timed *bool, filter *[]byte, filterKnown *bool) {
	var toks []token
	for len(data) > 0 {
		var line []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			line, data = data, nil
		}
		if len(line) == 0 {
			continue
		}
		if line[0] == '#' {
			if !fs.headerSeen {
				fs.info.headerLine(line)
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
		if !fs.headerSeen {
			fs.headerSeen = true
			fs.firstEvent = string(h.anchoredEvent)
		}
		if !*timedKnown {
			*timedKnown, *timed = true, h.time != nil && !opt.NoTime
		}
		if !*filterKnown && h.event != nil {
			*filter, *filterKnown = append([]byte(nil), h.event...), true
		}
		if *filterKnown {
			return
		}
	}
}

// readChunks reads r and calls emit with chunks that end at a sample
// boundary: after a blank line, or after a sample printed on one line.
// The last chunk (last = true) is the rest of the input, whatever it is.
func readChunks(r io.Reader, size int, emit func(data []byte, bp *[]byte, last bool), stop func() bool) error {
	var carry []byte
	for {
		bp := bufPool.Get().(*[]byte)
		b := append((*bp)[:0], carry...)
		want := max(size, len(carry)+size/2)
		var rerr error
		eof := false
		split := -1
		for {
			for len(b) < want && !eof {
				if cap(b)-len(b) < 32<<10 {
					b = slices.Grow(b, max(len(b), 64<<10))
				}
				n, err := r.Read(b[len(b):cap(b)])
				b = b[:len(b)+n]
				if err == io.EOF {
					eof = true
				} else if err != nil {
					rerr, eof = err, true
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
		if eof || stop() {
			emit(b, bp, true)
			return rerr
		}
		carry = append(carry[:0], b[split:]...)
		emit(b[:split], bp, false)
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

// fileStats is what the writer saw of one input.
type fileStats struct {
	samples     int64
	first, last folded.Time
	hasTime     bool
}

// writer receives parsed chunks in input order and writes them.
type writer struct {
	c        *Collapser
	w        io.Writer
	inputs   []Input
	lineBase []int
	fstats   []fileStats
	samples  int64
	weight   int64
	unrec    int
	bad      []string
	filtered bool
	mu       sync.Mutex
	err      error
	buf      []byte
}

func (wr *writer) failed() bool {
	wr.mu.Lock()
	defer wr.mu.Unlock()
	return wr.err != nil
}

func (wr *writer) write(b []byte) {
	if wr.err != nil || len(b) == 0 {
		return
	}
	if _, err := wr.w.Write(b); err != nil {
		wr.mu.Lock()
		wr.err = err
		wr.mu.Unlock()
	}
}

func (wr *writer) job(j *job) {
	r := &j.res
	fs := &wr.fstats[j.file]
	if j.start != nil {
		wr.buf = folded.AppendMeta(wr.buf[:0], j.start)
		wr.write(wr.buf)
	}
	wr.write(r.out)
	wr.samples += r.samples
	wr.weight = addSat(wr.weight, r.weight)
	fs.samples += r.samples
	if r.hasTime {
		if !fs.hasTime {
			fs.first, fs.hasTime = r.first, true
		}
		fs.last = r.last
	}
	wr.unrec += r.unrec
	for _, b := range r.bad {
		if len(wr.bad) < maxBadLines {
			wr.bad = append(wr.bad, fmt.Sprintf("%s:%d: %s", wr.inputs[j.file].Name, wr.lineBase[j.file]+b.line, b.text))
		}
	}
	wr.lineBase[j.file] += r.lines
	if r.filterMsg != nil && !wr.filtered {
		wr.filtered = true
		if wr.c.Notef != nil {
			wr.c.Notef("Filtering for events of type: %s\n", r.filterMsg)
		}
	}
	if j.last && j.timed {
		m := &folded.Meta{}
		m.Set(folded.KeyEvent, j.event)
		if fs.hasTime {
			m.Set(folded.KeyFirst, fs.first.String())
			m.Set(folded.KeyLast, fs.last.String())
		}
		m.Set(folded.KeySamples, strconv.FormatInt(fs.samples, 10))
		m.Set(folded.KeySource, wr.inputs[j.file].Source)
		wr.buf = folded.AppendMeta(wr.buf[:0], m)
		wr.write(wr.buf)
	}
	if j.outBuf != nil {
		*j.outBuf = r.out[:0]
		outPool.Put(j.outBuf)
	}
	j.data, j.res.out = nil, nil
	bufPool.Put(j.buf)
}

// writeClassic merges the workers' sums and writes them sorted bytewise,
// as stackcollapse-perf.pl does.
func writeClassic(w io.Writer, parsers []*parser) error {
	base := parsers[0].agg
	for _, p := range parsers[1:] {
		a := p.agg
		if len(a.stacks) > len(base.stacks) {
			base, a = a, base
		}
		for i, s := range a.stacks {
			if k, ok := base.index[s]; ok {
				base.counts[k] = addSat(base.counts[k], a.counts[i])
			} else {
				base.index[s] = len(base.stacks)
				base.stacks = append(base.stacks, s)
				base.counts = append(base.counts, a.counts[i])
			}
		}
	}
	order := make([]int, len(base.stacks))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return strings.Compare(base.stacks[a], base.stacks[b]) })
	var buf []byte
	for _, i := range order {
		buf = append(buf, base.stacks[i]...)
		buf = append(buf, ' ')
		buf = strconv.AppendInt(buf, base.counts[i], 10)
		buf = append(buf, '\n')
		if len(buf) >= 64<<10 {
			if _, err := w.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
	}
	_, err := w.Write(buf)
	return err
}
