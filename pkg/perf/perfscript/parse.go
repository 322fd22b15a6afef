package perfscript

import (
	"bytes"
	"math"

	"flamekit/pkg/folded"
	"flamekit/pkg/perf/sample"
)

// maxBadLines is how many malformed lines a chunk keeps for messages.
const maxBadLines = 1

// badLine is a malformed input line, kept for the message.
type badLine struct {
	line int    // line number within the chunk
	text []byte // the line, in the chunk
	err  error  // why it was skipped (nil: ErrNotPerfScriptLine)
}

// parser turns perf script lines into samples, one chunk at a time. A
// chunk starts where no sample is open (after a blank line or a
// single-line sample), so chunks can be parsed independently. The samples
// it returns point into the chunk.
type parser struct {
	// srcline, when not nil, says how many -F+srcline lines follow a
	// frame line (--srcline).
	srcline func(*sample.Frame) int

	// frames, when not nil, numbers the frame lines (see frames.go),
	// and hints (the worker's) guesses which follows which.
	frames *frameTable
	hints  *frameHints
	// prev is the number of the open sample's last frame line, plus one,
	// when it was an indented line numbered (0: none).
	prev uint32

	s    sample.Sample
	open bool // s is being filled
	// chained says that the frames of s are the numbers in chain (of
	// frames), and s.Frames is empty; else they are in s.Frames.
	chained  bool
	chain    []uint32
	pushback []byte // a line to read again (a single-line sample met while one was open)

	rest   []byte // unread part of the chunk
	lineNo int
	toks   []token

	// What the chunk held besides samples.
	skipped int
	bad     []badLine
}

// reset starts parsing chunk.
func (p *parser) reset(chunk []byte) {
	p.rest, p.lineNo, p.open, p.pushback, p.chained, p.prev = chunk, 0, false, nil, false, 0
	p.skipped, p.bad = 0, p.bad[:0]
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

// next reads up to the end of the next sample and returns it, or nil at
// the end of the chunk (a last sample without a trailing blank line is
// returned). The sample is valid until the next call.
func (p *parser) next() *sample.Sample {
	for {
		line := p.pushback
		if line != nil {
			p.pushback = nil
		} else if p.prev != 0 && p.guessed() {
			continue
		} else {
			var ok bool
			if line, ok = p.nextLine(); !ok {
				if p.open {
					p.open = false
					return &p.s
				}
				return nil
			}
		}
		if p.line(line) {
			return &p.s
		}
	}
}

// guessed reads the next line when it is one of the frame lines that
// followed the open sample's last one (frameHints): the line that line
// would number.
func (p *parser) guessed() bool {
	for way := range 2 {
		g := p.hints.guess(p.prev-1, way)
		if g == 0 {
			return false
		}
		k := int(g.size())
		if k >= len(p.rest) || p.rest[k] != '\n' || string(p.rest[:k]) != string(p.frames.line(g.off(), g.size())) {
			continue
		}
		if way > 0 {
			p.hints.note(p.prev-1, g.n(), g.off(), g.size())
		}
		p.rest = p.rest[k+1:]
		p.lineNo++
		p.chain = append(p.chain, g.n())
		p.prev = g.n() + 1
		return true
	}
	return false
}

// line handles one line; it reports whether a sample is complete.
func (p *parser) line(line []byte) bool {
	prev := p.prev
	p.prev = 0
	if len(line) > 0 && line[0] == '#' {
		// A comment ("# ...", "#"), or the header of a sample whose
		// comm starts with '#' (a process may name itself "#evil"):
		// skipped as Perl skips it, but counted and said.
		if len(line) < 2 || isSpace(line[1]) {
			return false
		}
		p.toks = splitTokens(p.toks[:0], line)
		if _, ok := parseHeader(line, p.toks); ok {
			p.skipped++
			if len(p.bad) < maxBadLines {
				p.bad = append(p.bad, badLine{p.lineNo, line, ErrHashComm})
			}
		}
		return false
	}
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	if len(line) == 0 {
		if p.open {
			p.open = false
			return true
		}
		return false
	}
	if !isSpace(line[0]) || !p.open {
		p.toks = splitTokens(p.toks[:0], line)
		if h, ok := parseHeader(line, p.toks); ok {
			return p.header(line, &h)
		}
	}
	if p.open && p.chained {
		if n, ok := p.frames.number(line); ok {
			p.chain = append(p.chain, n)
			// An indented line, so read as a frame line whatever it
			// holds: the line that follows it can be guessed.
			if isSpace(line[0]) {
				if prev != 0 {
					sp := p.frames.span(n)
					p.hints.note(prev-1, n, sp.off, sp.len)
				}
				p.prev = n + 1
			}
			return false
		}
	}
	if f, ok := parseFrame(line); ok {
		if p.open {
			p.addFrame(&f)
		}
		return false // frames outside a sample are ignored, as by Perl
	}
	p.skipped++
	if len(p.bad) < maxBadLines {
		p.bad = append(p.bad, badLine{p.lineNo, line, nil})
	}
	return false
}

// header handles a sample header (event line); it reports whether a
// sample is complete.
func (p *parser) header(line []byte, h *header) bool {
	if h.sideBand {
		return false
	}
	if h.hasFrame && p.open {
		// A single-line sample stands alone: first the open one.
		p.open = false
		p.pushback = line
		return true
	}
	s := &p.s
	if !p.open {
		// A header while a sample is open overwrites its header, as in
		// Perl: the frames read so far stay.
		s.Frames = s.Frames[:0]
		p.chain = p.chain[:0]
		p.chained = p.frames != nil
	}
	s.Comm = h.comm
	if h.id2 == nil {
		s.PID, s.TID = nil, h.id1
	} else {
		s.PID, s.TID = h.id1, h.id2
	}
	s.ProcessID, s.HasProcessID = 0, false
	if s.PID != nil {
		s.ProcessID, s.HasProcessID = parseID(s.PID)
	}
	s.CPU = h.cpu
	s.Time, s.HasTime = 0, false
	if h.time != nil {
		if t, err := folded.ParseTime(h.time); err == nil {
			s.Time, s.HasTime = t, true
		}
	}
	s.Period, s.HasPeriod = 0, h.period != nil
	if s.HasPeriod {
		s.Period = parsePeriod(h.period)
	}
	s.Event, s.Payload = h.event, h.payload
	s.Line = p.lineNo
	p.open = true
	if h.hasFrame {
		p.open = false
		if p.chained {
			if n, ok := p.frames.number(h.frameText); ok {
				p.chain = append(p.chain, n)
				return true
			}
		}
		p.addFrame(&h.frame)
		return true
	}
	return false
}

// unchain turns the frame numbers of the open sample into its frames:
// a frame line could not be numbered (the table is full).
func (p *parser) unchain() {
	for _, n := range p.chain {
		p.s.Frames = append(p.s.Frames, *p.frames.Frame(n))
	}
	p.chain = p.chain[:0]
	p.chained = false
}

// addFrame adds one frame line to the open sample, with its source lines
// under --srcline.
func (p *parser) addFrame(f *frameLine) {
	if p.chained {
		p.unchain()
	}
	p.s.Frames = append(p.s.Frames, sample.Frame{Addr: f.pc, Symbol: f.rawfunc, DSO: f.module})
	if p.srcline == nil {
		return
	}
	fr := &p.s.Frames[len(p.s.Frames)-1]
	n := p.srcline(fr)
	if n == 0 {
		return
	}
	start := p.rest
	used := 0
	for range n {
		if _, ok := p.nextLine(); !ok {
			break
		}
		used = len(start) - len(p.rest)
	}
	fr.Srcline = bytes.TrimSuffix(start[:used], []byte("\n"))
}

// parsePeriod converts period digits, saturating at the largest int64.
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

// parseID parses a process id as perf prints it: decimal, or -1.
func parseID(b []byte) (int32, bool) {
	neg := len(b) > 1 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 10 {
		return 0, false
	}
	var v int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	if neg {
		v = -v
	}
	if v > 1<<31-1 || v < -1 {
		return 0, false
	}
	return int32(v), true
}
