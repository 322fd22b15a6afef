package perfscript

import (
	"bytes"
	"math"

	"flamekit/pkg/folded"
	"flamekit/pkg/idle"
)

// Options select what stackcollapse-perf.pl's flags select, plus
// flamekit's own.
type Options struct {
	PID         bool   // root frame "comm-PID"
	TID         bool   // root frame "comm-PID/TID" (wins over PID)
	Kernel      bool   // append _[k] to kernel frames
	JIT         bool   // append _[j] to perf-map (JIT) frames
	Addrs       bool   // "[module <addr>]" for unknown symbols
	Inline      bool   // expand inlined functions with addr2line
	Context     bool   // with Inline: append ":file:line"
	Srcline     bool   // input made with perf script -F+srcline
	EventFilter string // keep only this event; "" = the first event seen
	NoIdle      bool   // drop idle CPU stacks (pkg/idle)
	NoTime      bool   // classic output even when the input has times
	// RefWall (RFC 3339) and RefPerf (perf-clock seconds) are a clock
	// reference known from elsewhere (a marker in the kernel log): they
	// replace the capture's in the metadata, making wall-clock windows
	// exact without perf record -k.
	RefWall, RefPerf string
}

// badLine is an unrecognised input line, kept for the summary.
type badLine struct {
	line int // line number within the chunk (then the file)
	text string
}

// maxBadLines is how many unrecognised lines the summary quotes.
const maxBadLines = 3

// chunkResult is what parsing one chunk produced.
type chunkResult struct {
	out       []byte // timed lines, in input order
	lines     int    // lines in the chunk
	samples   int64  // samples kept
	weight    int64  // sum of their weights
	first     folded.Time
	last      folded.Time
	hasTime   bool // first and last are set
	unrec     int
	bad       []badLine
	filterMsg []byte // the first event dropped by the defaulted filter
}

// aggregator sums weights per distinct folded stack (classic output).
type aggregator struct {
	index  map[string]int
	stacks []string
	counts []int64
}

func newAggregator() *aggregator { return &aggregator{index: make(map[string]int)} }

func (a *aggregator) add(stack []byte, n int64) {
	if i, ok := a.index[string(stack)]; ok {
		a.counts[i] = addSat(a.counts[i], n)
		return
	}
	s := string(stack)
	a.index[s] = len(a.stacks)
	a.stacks = append(a.stacks, s)
	a.counts = append(a.counts, n)
}

func addSat(a, b int64) int64 {
	if b > 0 && a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// parser turns perf script lines into folded stacks, one chunk at a time.
// A chunk starts where no sample is open (after a blank line or a
// single-line sample), so chunks can be parsed independently.
type parser struct {
	opt         *Options
	filter      []byte // the event kept; valid when filterKnown
	filterKnown bool
	defaulted   bool // filter is the first event seen, not a flag
	timed       bool // write timed lines, else aggregate
	agg         *aggregator
	inl         *inliner
	idle        idle.Filter // --no-idle verdicts, per distinct stack

	// the open sample
	open   bool
	pname  []byte
	java   bool
	period int64
	t      folded.Time
	hasT   bool
	arena  []byte // frames of the open sample, one group per frame line
	groups []int  // start,end offsets into arena, leaf group first

	rest   []byte // unread part of the chunk
	lineNo int
	toks   []token
	stack  []byte
	rec    folded.Record
	res    *chunkResult
}

// nextLine returns the next line of the chunk without its newline, or
// ok false at the end.
func (p *parser) nextLine() (line []byte, ok bool) {
	if len(p.rest) == 0 {
		return nil, false
	}
	i := bytes.IndexByte(p.rest, '\n')
	if i < 0 {
		line, p.rest = p.rest, nil
	} else {
		line, p.rest = p.rest[:i], p.rest[i+1:]
	}
	p.lineNo++
	return line, true
}

// parse parses chunk into res. The open sample at the end of the chunk is
// closed (a last sample without a trailing blank line is kept).
func (p *parser) parse(chunk []byte, res *chunkResult) {
	p.res = res
	p.rest = chunk
	p.lineNo = 0
	for {
		line, ok := p.nextLine()
		if !ok {
			break
		}
		p.line(line)
	}
	p.endSample()
	res.lines = p.lineNo
	p.res = nil
}

func (p *parser) line(line []byte) {
	if len(line) > 0 && line[0] == '#' {
		return
	}
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	if len(line) == 0 {
		p.endSample()
		return
	}
	if !isSpace(line[0]) || !p.open {
		p.toks = splitTokens(p.toks[:0], line)
		if h, ok := parseHeader(line, p.toks); ok {
			p.header(&h)
			return
		}
	}
	if f, ok := parseFrame(line); ok {
		if p.open {
			p.addFrame(&f)
		}
		return // frames of a filtered sample are ignored, as by Perl
	}
	p.unrecognised(line)
}

func (p *parser) unrecognised(line []byte) {
	r := p.res
	r.unrec++
	if len(r.bad) < maxBadLines {
		r.bad = append(r.bad, badLine{p.lineNo, folded.QuoteLine(line)})
	}
}

// header handles a sample header (event line).
func (p *parser) header(h *header) {
	if h.sideBand {
		return
	}
	if h.hasFrame {
		p.endSample() // a single-line sample stands alone
	}
	if h.event != nil {
		if !p.filterKnown {
			p.filter, p.filterKnown, p.defaulted = append([]byte(nil), h.event...), true, true
		} else if !bytes.Equal(h.event, p.filter) {
			if p.defaulted && p.res.filterMsg == nil {
				p.res.filterMsg = append([]byte(nil), h.event...)
			}
			return
		}
	}
	p.period = 1
	if n := len(h.period); n > 0 && !(n == 1 && h.period[0] == '0') {
		p.period = parsePeriod(h.period)
	}
	p.pname = append(p.pname[:0], h.comm...)
	switch {
	case p.opt.TID:
		p.pname = append(p.pname, '-')
		p.pname = append(p.pname, h.pid...)
		p.pname = append(p.pname, '/')
		p.pname = append(p.pname, h.tid...)
	case p.opt.PID:
		p.pname = append(p.pname, '-')
		p.pname = append(p.pname, h.pid...)
	}
	for i, c := range p.pname {
		if c == ' ' {
			p.pname[i] = '_'
		}
	}
	p.java = bytes.HasPrefix(p.pname, []byte("java"))
	p.hasT = false
	if h.time != nil {
		if t, err := folded.ParseTime(h.time); err == nil {
			p.t, p.hasT = t, true
		}
	}
	p.open = true
	if h.hasFrame {
		p.addFrame(&h.frame)
		p.endSample()
	}
}

func parsePeriod(b []byte) int64 {
	var n int64
	for _, c := range b {
		if n > (math.MaxInt64-9)/10 {
			return math.MaxInt64
		}
		n = n*10 + int64(c-'0')
	}
	return n
}

// endSample closes the open sample, if any, and writes or adds it.
func (p *parser) endSample() {
	if !p.open {
		return
	}
	p.open = false
	s := append(p.stack[:0], p.pname...)
	for g := len(p.groups) - 2; g >= 0; g -= 2 {
		s = append(s, ';')
		s = append(s, p.arena[p.groups[g]:p.groups[g+1]]...)
	}
	p.stack = s
	p.arena = p.arena[:0]
	p.groups = p.groups[:0]
	if p.opt.NoIdle && p.idle.Is(s) {
		return
	}
	r := p.res
	r.samples++
	r.weight = addSat(r.weight, p.period)
	if !p.timed {
		p.agg.add(s, p.period)
		return
	}
	p.rec = folded.Record{Stack: s, Count: float64(p.period), Kind: folded.Classic}
	if p.hasT {
		p.rec.Kind, p.rec.Time = folded.Timed, p.t
		if p.t != 0 { // side-band records are stamped 0.000000
			if !r.hasTime {
				r.first, r.hasTime = p.t, true
			}
			r.last = p.t
		}
	}
	r.out = folded.AppendRecord(r.out, &p.rec)
}

var (
	unknownSym = []byte("[unknown]")
	arrow      = []byte("->")
)

// addFrame adds one frame line to the open sample, following
// stackcollapse-perf.pl's per-frame rules in their order.
func (p *parser) addFrame(f *frameLine) {
	if p.opt.Inline && p.inl != nil && inlineEligible(f.module) {
		if res := p.inl.resolve(f.pc, f.rawfunc, f.module); res != "" && res != "??" && res != "??:??:0" {
			start := len(p.arena)
			p.arena = append(p.arena, res...)
			p.groups = append(p.groups, start, len(p.arena))
			return
		}
	}
	raw := stripOffset(f.rawfunc)
	if skipFrame(raw) {
		return
	}
	for bytes.HasSuffix(raw, arrow) { // split drops trailing empty fields
		raw = raw[:len(raw)-2]
	}
	if len(raw) == 0 {
		return
	}
	start := len(p.arena)
	unknown := false
	for i := 0; ; i++ {
		piece := raw
		j := bytes.Index(raw, arrow)
		if j >= 0 {
			piece, raw = raw[:j], raw[j+2:]
		}
		if i > 0 {
			p.arena = append(p.arena, ';')
		}
		unknown = p.addPiece(i, piece, f, unknown)
		if j < 0 {
			break
		}
	}
	p.groups = append(p.groups, start, len(p.arena))
}

// addPiece appends one "->" piece of a frame line to the arena.
func (p *parser) addPiece(i int, piece []byte, f *frameLine, unknown bool) bool {
	ps := len(p.arena)
	if bytes.Equal(piece, unknownSym) {
		p.arena = append(p.arena, '[')
		if !bytes.Equal(f.module, unknownSym) {
			mod := f.module
			if k := bytes.LastIndexByte(mod, '/'); k >= 0 {
				mod = mod[k+1:]
			}
			p.arena = append(p.arena, mod...)
		} else {
			p.arena = append(p.arena, "unknown"...)
			unknown = true
		}
		if p.opt.Addrs {
			p.arena = append(p.arena, " <"...)
			p.arena = append(p.arena, f.pc...)
			p.arena = append(p.arena, '>')
		}
		p.arena = append(p.arena, ']')
	} else {
		p.arena = append(p.arena, piece...)
	}
	n := tidyGeneric(p.arena[ps:])
	p.arena = p.arena[:ps+n]
	if p.java && len(p.arena) > ps && p.arena[ps] == 'L' && bytes.IndexByte(p.arena[ps:], '/') >= 0 {
		copy(p.arena[ps:], p.arena[ps+1:])
		p.arena = p.arena[:len(p.arena)-1]
	}
	switch {
	case i > 0:
		if !bytes.Contains(p.arena[ps:], []byte("_[i]")) {
			p.arena = append(p.arena, "_[i]"...)
		}
	case p.opt.Kernel && isKernelModule(f.module):
		p.arena = append(p.arena, "_[k]"...)
	case p.opt.JIT && isJITModule(f.module):
		if !bytes.Contains(p.arena[ps:], []byte("_[j]")) {
			p.arena = append(p.arena, "_[j]"...)
		}
	}
	if p.opt.Srcline && !unknown {
		src, _ := p.nextLine()
		src = srcline(src)
		if len(src) > 0 {
			p.arena = append(p.arena, ':')
			p.arena = append(p.arena, src...)
		}
	}
	return unknown
}

// srcline tidies a perf script -F+srcline line as Perl does: every [...]
// group removed (non-greedy), blanks trimmed.
func srcline(b []byte) []byte {
	if i := bytes.IndexByte(b, '['); i >= 0 {
		var out []byte
		for {
			i := bytes.IndexByte(b, '[')
			if i < 0 {
				break
			}
			j := bytes.IndexByte(b[i:], ']')
			if j < 0 {
				break
			}
			out = append(out, b[:i]...)
			b = b[i+j+1:]
		}
		b = append(out, b...)
	}
	return bytes.TrimFunc(b, func(r rune) bool { return r < 128 && isSpace(byte(r)) })
}
