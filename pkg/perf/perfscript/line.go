package perfscript

import "bytes"

// This file reads single lines of perf script text. The functions mirror the
// regular expressions of stackcollapse-perf.pl without using regexps: each
// comment gives the pattern and the reasoning that makes the hand-written
// scan equivalent to Perl's leftmost, backtracking match.

// isSpace reports whether c is whitespace as Perl's \s sees it in ASCII.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// isWord reports whether c matches Perl's \w on bytes (ASCII only).
func isWord(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

func isLowerHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' }

func isHex(c byte) bool { return isLowerHex(c) || c >= 'A' && c <= 'F' }

// header is what a sample header line (the "event line") holds.
type header struct {
	comm []byte // process or thread name
	// id1 and id2 are the ids as printed: "pid/tid" gives both, a single
	// id gives id1 and a nil id2.
	id1, id2 []byte
	cpu      int    // the [cpu] column, -1 when absent
	time     []byte // seconds, without the ':' (nil when no time column)
	period   []byte // period digits before the event, nil when absent
	// event is the event name without its final ':': the field after the
	// time (and period), or, on a line without a time, what Perl's event
	// pattern finds; nil (never empty) when there is none.
	event    []byte
	payload  []byte    // the text after the event (tracepoint fields), or nil
	frame    frameLine // a frame printed on the event line itself (no -g)
	hasFrame bool      // frame is set
	// frameText is the text frame was read from (hasFrame).
	frameText []byte
	sideBand  bool // a PERF_RECORD_* side-band record, not a sample
}

// perlHeader matches /^(\S.+?)\s+(\d+)\/*(\d+)*\s+/: comm is the shortest
// prefix of at least two characters, starting with a non-space, that is
// followed by whitespace, digits, optional slashes, optional digits and
// whitespace. All positions inside one whitespace run give the same
// continuation, so each run is tried once, at its first allowed position.
func perlHeader(line []byte) (comm, d1, d2 []byte, ok bool) {
	n := len(line)
	if n == 0 || isSpace(line[0]) {
		return nil, nil, nil, false
	}
	for r := 1; r < n; r++ {
		if !isSpace(line[r]) {
			continue
		}
		e := r
		for e < n && isSpace(line[e]) {
			e++
		}
		c := max(r, 2)
		if c < e {
			i := e
			for i < n && isDigit(line[i]) {
				i++
			}
			if i > e {
				a := line[e:i]
				for i < n && line[i] == '/' {
					i++
				}
				j := i
				for j < n && isDigit(line[j]) {
					j++
				}
				if j < n && isSpace(line[j]) {
					return line[:c], a, line[i:j], true
				}
			}
		}
		r = e - 1
	}
	return nil, nil, nil, false
}

// perlEvent matches /:\s*(\d+)*\s+(\S+):\s*$/: the line ends with an event
// token "name:" (plus optional blanks), preceded by whitespace, optional
// period digits and a ':' (the one after the time). The pattern is anchored
// at the end, so the match is found from the right.
func perlEvent(line []byte) (period, event []byte, ok bool) {
	end := len(line)
	for end > 0 && isSpace(line[end-1]) {
		end--
	}
	if end < 2 || line[end-1] != ':' {
		return nil, nil, false
	}
	j := end - 1
	for j > 0 && !isSpace(line[j-1]) {
		j--
	}
	if j == end-1 || j == 0 {
		return nil, nil, false
	}
	event = line[j : end-1]
	k := j
	for k > 0 && isSpace(line[k-1]) {
		k--
	}
	if k == 0 {
		return nil, nil, false
	}
	switch c := line[k-1]; {
	case c == ':':
		return nil, event, true
	case isDigit(c):
		ds := k - 1
		for ds > 0 && isDigit(line[ds-1]) {
			ds--
		}
		w := ds
		for w > 0 && isSpace(line[w-1]) {
			w--
		}
		if w > 0 && line[w-1] == ':' {
			return line[ds:k], event, true
		}
	}
	return nil, nil, false
}

// token is one whitespace-separated field of a line.
type token struct{ start, end int }

// splitTokens appends the whitespace-separated fields of line to dst.
func splitTokens(dst []token, line []byte) []token {
	n := len(line)
	for i := 0; i < n; {
		for i < n && isSpace(line[i]) {
			i++
		}
		if i == n {
			break
		}
		s := i
		for i < n && !isSpace(line[i]) {
			i++
		}
		dst = append(dst, token{s, i})
	}
	return dst
}

// isTimeToken reports whether t is perf's time field: digits '.' digits ':'.
func isTimeToken(t []byte) bool {
	n := len(t)
	if n < 4 || t[n-1] != ':' {
		return false
	}
	dot := bytes.IndexByte(t, '.')
	if dot <= 0 || dot >= n-2 {
		return false
	}
	for i, c := range t[:n-1] {
		if i != dot && !isDigit(c) {
			return false
		}
	}
	return true
}

func allDigits(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		if !isDigit(c) {
			return false
		}
	}
	return true
}

// isCPUToken matches "[001]".
func isCPUToken(t []byte) bool {
	return len(t) >= 3 && t[0] == '[' && t[len(t)-1] == ']' && allDigits(t[1:len(t)-1])
}

// isTODDate matches "2026-11-22" and isTODTime "02:01:04.392643" (perf
// script -F +tod).
func isTODDate(t []byte) bool {
	return len(t) == 10 && t[4] == '-' && t[7] == '-' && allDigits(t[:4]) && allDigits(t[5:7]) && allDigits(t[8:])
}

func isTODTime(t []byte) bool {
	return len(t) >= 8 && t[2] == ':' && t[5] == ':' && allDigits(t[:2]) && allDigits(t[3:5]) && allDigits(t[6:8]) &&
		(len(t) == 8 || t[8] == '.' && allDigits(t[9:]))
}

// splitID splits "pid/tid" or "tid"; ok is false for anything else. perf
// prints -1 for an id it does not know (seen on an exiting task: comm ":-1",
// pid -1), so an id may carry a minus sign.
func splitID(t []byte) (a, b []byte, ok bool) {
	i := bytes.IndexByte(t, '/')
	if i < 0 {
		return t, nil, isID(t)
	}
	a, b = t[:i], t[i+1:]
	return a, b, isID(a) && isID(b)
}

// isID reports whether t is an optional '-' followed by decimal digits.
func isID(t []byte) bool {
	if len(t) > 1 && t[0] == '-' {
		t = t[1:]
	}
	return allDigits(t)
}

// anchoredHeader reads a header by its time field, the first field of the
// form SECONDS.FRACTION: that is preceded by an id field (tid or pid/tid),
// an optional [cpu] field and an optional date and time of day. Everything
// before the id field is the comm, whatever blanks or digits it holds.
// It reports ok false when the line has no such time field.
func anchoredHeader(line []byte, toks []token) (h header, rest int, ok bool) {
	for k, t := range toks {
		if !isTimeToken(line[t.start:t.end]) {
			continue
		}
		i := k - 1
		if i >= 2 && isTODTime(line[toks[i].start:toks[i].end]) && isTODDate(line[toks[i-1].start:toks[i-1].end]) {
			i -= 2
		}
		cpu := -1
		if i >= 1 && isCPUToken(line[toks[i].start:toks[i].end]) {
			cpu = atoi(line[toks[i].start+1 : toks[i].end-1])
			i--
		}
		if i < 1 {
			continue
		}
		a, b, idOK := splitID(line[toks[i].start:toks[i].end])
		if !idOK {
			continue
		}
		h.comm = line[toks[0].start:toks[i-1].end]
		h.id1, h.id2 = a, b
		h.cpu = cpu
		h.time = line[t.start : t.end-1]
		return h, k + 1, true
	}
	return h, 0, false
}

// atoi converts decimal digits, saturating at a large value.
func atoi(b []byte) int {
	n := 0
	for _, c := range b {
		if n > 1<<30 {
			return n
		}
		n = n*10 + int(c-'0')
	}
	return n
}

// frameLine is what a frame line of a call graph holds.
type frameLine struct {
	pc, rawfunc, module []byte
}

// parseFrame matches /^\s*(\w+)\s*(.+) \((.*)\)/, but for the start of the
// module: module ends at the last ')' and starts at the '(' matching it
// (see matchingParen), where Perl's greedy .+ makes it start at the last
// " (". Where the parentheses do not balance, Perl's rule decides.
// The rare fallbacks follow the order in which Perl backtracks when the
// symbol text before that " (" is empty.
func parseFrame(line []byte) (f frameLine, ok bool) {
	n := len(line)
	ws := 0
	for ws < n && isSpace(line[ws]) {
		ws++
	}
	we := ws
	for we < n && isWord(line[we]) {
		we++
	}
	if we == ws {
		return f, false
	}
	q := bytes.LastIndexByte(line, ')')
	if q < we+2 {
		return f, false
	}
	p := -1
	if !perlModuleRule {
		p = matchingParen(line, q)
	}
	if p < 0 {
		// Perl's rule: the last " (" before the last ')'.
		for p = q; ; {
			p = bytes.LastIndexByte(line[:p], '(')
			if p < 1 {
				return f, false
			}
			if line[p-1] == ' ' {
				p--
				break
			}
		}
	}
	s := we
	for s < n && isSpace(line[s]) {
		s++
	}
	switch {
	case p >= s+1:
		f.pc, f.rawfunc = line[ws:we], line[s:p]
	case p >= we+1:
		f.pc, f.rawfunc = line[ws:we], line[p-1:p]
	case p == we && we-ws >= 2:
		f.pc, f.rawfunc = line[ws:we-1], line[we-1:we]
	default:
		return f, false
	}
	f.module = line[p+2 : q]
	return f, true
}

// perlModuleRule makes parseFrame split module from symbol exactly as
// stackcollapse-perf.pl does, for the tests that compare with its output.
var perlModuleRule = false

// matchingParen returns the index of the blank before the '(' that the ')'
// at q closes, when that '(' follows a blank: where the module of a frame
// line starts. So a module whose name holds parentheses, as perf prints a
// deleted file ("(/memfd:x (deleted))"), is read whole, where Perl's pattern
// takes "deleted" for the module and leaves "sym (/memfd:x" as the symbol.
// It returns -1 when the parentheses do not balance there.
func matchingParen(line []byte, q int) int {
	depth := 0
	for i := q; i > 0; i-- {
		switch line[i] {
		case ')':
			depth++
		case '(':
			depth--
			if depth == 0 {
				if line[i-1] == ' ' {
					return i - 1
				}
				return -1
			}
		}
	}
	return -1
}

// eventLineFrame reads the frame that perf prints on the event line itself
// when there is no call graph: "  ffffffff821f236b sym+0xb ([kernel.kallsyms])".
// The first field must be a hexadecimal address, which tracepoint payloads
// ("prev_comm=...") never are.
func eventLineFrame(rest []byte) (frameLine, []byte, bool) {
	i := 0
	for i < len(rest) && isSpace(rest[i]) {
		i++
	}
	j := i
	for j < len(rest) && isHex(rest[j]) {
		j++
	}
	if j == i || j == len(rest) || !isSpace(rest[j]) {
		return frameLine{}, nil, false
	}
	f, ok := parseFrame(rest[i:])
	return f, rest[i:], ok
}

// parseHeader classifies a line that may be a sample header: a line that
// Perl's header pattern matches (Perl then treats it as a header) or that
// the time-anchored reading accepts. Comm and ids come from the
// time-anchored reading when the line has a time field, else from Perl's
// pattern, which is then the only test.
func parseHeader(line []byte, toks []token) (h header, ok bool) {
	indented := len(line) == 0 || isSpace(line[0])
	h, rest, anchored := anchoredHeader(line, toks)
	if !anchored {
		// Perl's pattern is needed only when the line has no time field.
		comm, d1, d2, perlOK := perlHeader(line)
		if !perlOK || indented {
			return h, false
		}
		h.comm, h.id1, h.cpu = comm, d1, -1
		if len(d2) > 0 {
			h.id2 = d2
		}
		h.period, h.event, _ = perlEvent(line)
		if len(h.period) == 0 {
			h.period = nil
		}
		return h, true
	}
	// Side-band records (--show-task-events): "comm 0 [000] 0.000000:
	// PERF_RECORD_COMM: ...".
	if rest < len(toks) && bytes.HasPrefix(line[toks[rest].start:], []byte("PERF_RECORD_")) {
		h.sideBand = true
		return h, true
	}
	// [period] event: then a frame (no -g), a payload, or nothing.
	r := rest
	var period []byte
	if r < len(toks) && allDigits(line[toks[r].start:toks[r].end]) {
		period = line[toks[r].start:toks[r].end]
		r++
	}
	if r < len(toks) {
		if ev := line[toks[r].start:toks[r].end]; len(ev) >= 2 && ev[len(ev)-1] == ':' {
			h.event, h.period = ev[:len(ev)-1], period
			after := line[toks[r].end:]
			if r+1 < len(toks) {
				if f, text, ok := eventLineFrame(after); ok {
					h.frame, h.hasFrame, h.frameText = f, true, text
					return h, true
				}
			}
			after = bytes.TrimLeft(after, " \t")
			after = bytes.TrimRight(after, " \t\r\n\f\v")
			if len(after) > 0 {
				h.payload = after
			}
		}
	}
	// Only lines starting with a non-space are headers for Perl; an
	// indented line is a header only when it carries its own frame.
	return h, !indented
}
