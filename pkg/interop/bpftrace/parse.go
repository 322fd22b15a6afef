package bpftrace

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"flamekit/pkg/folded"
)

// Options says which map to fold and how to name frames.
type Options struct {
	// Map names the map to fold: "@name", "name", or "@" for the unnamed
	// map. Empty: the first map with a stack in its key.
	Map string
	// Kernel appends "_[k]" to the frames of kernel stacks.
	Kernel bool
	// Addrs names unresolved frames with their address:
	// "[unknown <0x7f3a…>]" or "[libc.so.6 <0x7f3a…>]".
	Addrs bool
}

// MapInfo describes one map of a dump.
type MapInfo struct {
	Name    string // "@" or "@name"
	Entries int    // entries read (a histogram counts as one)
	Stacks  bool   // some key holds a stack
	Folded  bool   // this is the map that was folded
	// Unfoldable says why the map cannot be folded, or is "": "histogram",
	// "non-integer values" (stats, strings…).
	Unfoldable string
}

// Summary says what Fold read.
type Summary struct {
	// Map is the name of the folded map, or "" when none was.
	Map string
	// Entries is the number of entries folded, Total the sum of their
	// values.
	Entries int
	Total   float64
	// Maps lists every map of the input in the order first seen.
	Maps []MapInfo
	// Skipped counts the entries of the folded map (or of any map, for
	// truncated entries) that could not be folded: a negative or
	// non-integer value, an integer beyond 2^53 (a *folded.CountError:
	// no float64 holds it exactly), an entry cut short by the end of the
	// input or by the next map. Zero values are dropped without being
	// counted here.
	Skipped folded.Skips
	// Other counts the non-blank lines outside any map ("Attaching 1
	// probe...", printf output).
	Other int
}

// Errors wrapped in the *folded.ParseError of Summary.Skipped, and returned
// by Fold.
var (
	ErrTruncated = errors.New("map entry cut short (no \"]: value\" line)")
	ErrValue     = errors.New("value is not a non-negative integer")
	// ErrNoStackMap is returned when the input has maps but none with a
	// stack in its key and Options.Map did not name one.
	ErrNoStackMap = errors.New("no map has a stack in its key")
	// ErrNoSuchMap is returned when Options.Map names no map of the input.
	ErrNoSuchMap = errors.New("no such map")
	// ErrUnfoldable is returned when Options.Map names a map that holds
	// histograms or non-integer values.
	ErrUnfoldable = errors.New("map cannot be folded")
)

// element is one element of a map key: a scalar (frames empty, text set)
// or a stack (frames, leaf first).
type element struct {
	stack  bool
	text   span    // scalar text in the entry's arena
	frames []frame // stack frames, names pointing into the arena
}

type span struct{ start, end int }

// pending is an entry kept until its map is known to be the folded one.
type pending struct {
	stack []byte
	value float64
}

type mapState struct {
	info     *MapInfo
	pending  []pending // entries with an empty element, before the map showed a stack
	noStacks bool      // an entry had neither a stack nor an empty element
}

// parser is the state of one Fold.
type parser struct {
	opt   Options
	name  string
	emit  func(*folded.Record) error
	sum   Summary
	maps  map[string]*mapState
	order []string

	// the entry being read
	inEntry   bool // an entry is open: always reading one of its stacks
	inStack   bool
	entryLine int
	entryText []byte // start of the entry's first line, for messages
	mapName   string
	arena     []byte
	elems     []element
	frames    []frame // frames of the stack being read
	skipBlock bool    // inside a histogram's lines
	selected  string  // the folded map, once known
	lineNo    int
	stackBuf  []byte
	rec       folded.Record
}

// Fold reads a bpftrace dump from r and calls emit for each entry of the
// chosen map, in input order, with a Classic record (its Stack is valid
// only during the call). name is used in messages. Fold stops at the first
// error from r or emit.
//
// Each map entry is "@name[key]: value". A key is its elements joined by
// ", "; a stack element is a newline followed by one line per frame, leaf
// first (see parseFrame), and an empty stack prints as nothing:
//
//	@[
//	    do_syscall_64+113
//	    entry_SYSCALL_64_after_hwframe+118
//	,
//	    __GI___write+79
//	    main+849
//	, cpu spin]: 12
//	@[, , swapper/0]: 3
//
// The folded stack of an entry:
//
//   - The key's scalar elements (comm, pid, strings) become the root
//     frames, in key order. Then come the user stacks, then the kernel
//     stacks, each root first; two stacks of the same kind are put as the
//     key lists them read backwards (keys are written leaf first, like
//     the frames of a stack). So @[kstack, ustack, comm] gives
//     comm;user frames;kernel frames, as does @[comm, ustack(perf),
//     kstack(perf)].
//   - A stack is a kernel stack when its addresses are in the kernel half
//     of the address space (perf and raw modes, unresolved frames). A stack
//     without any address (bpftrace mode, every frame resolved) is taken as
//     the kernel stack when it is the first stack of its key, as in
//     @[kstack], @[kstack, ustack] and @[comm, kstack]; an empty element
//     counts as an empty stack here ("@[, " is an empty kstack).
//   - Offsets ("+113") are removed, so that samples at different places in
//     one function add up, as stackcollapse-perf.pl does for perf. Unresolved
//     frames become "[unknown]", or "[module]" when bpftrace names the
//     module; Options.Addrs keeps their address.
//   - Options.Kernel appends "_[k]" to the frames of kernel stacks.
//   - ';' in a name becomes ':' (';' separates frames); blanks are kept.
//   - The value is the count: count() samples, sum() of bytes… Entries are
//     emitted one by one, in input order; callers sum equal stacks (see
//     Collapse).
//
// A dump may hold several maps (bpftrace prints every map at exit, sorted
// by name). One is folded: the one named by Options.Map, or by default the
// first map that has a stack in its key (failing that, the first whose
// keys all have an empty element, which is how an empty stack prints).
// Maps holding histograms, stats or strings cannot be folded. Concatenated
// dumps (cat a.bt b.bt) and maps printed periodically (print(@)) fold every
// occurrence of the chosen map.
func Fold(r io.Reader, name string, opt Options, emit func(*folded.Record) error) (Summary, error) {
	if opt.Map != "" && !strings.HasPrefix(opt.Map, "@") {
		opt.Map = "@" + opt.Map
	}
	p := &parser{opt: opt, name: name, emit: emit, maps: make(map[string]*mapState)}
	if opt.Map != "" {
		p.selected = opt.Map
	}
	br := bufio.NewReaderSize(r, 64<<10)
	var long []byte
	for {
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			long = append(long[:0], line...)
			for err == bufio.ErrBufferFull {
				line, err = br.ReadSlice('\n')
				long = append(long, line...)
			}
			line = long
		}
		if len(line) > 0 {
			p.lineNo++
			line = bytes.TrimSuffix(line, []byte("\n"))
			line = bytes.TrimSuffix(line, []byte("\r"))
			if perr := p.line(line); perr != nil {
				return p.finishSummary(), perr
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return p.finishSummary(), fmt.Errorf("%s: line %d: %w", name, p.lineNo+1, err)
		}
	}
	if p.inEntry {
		p.truncated()
	}
	if err := p.selectPending(); err != nil {
		return p.finishSummary(), err
	}
	return p.finish()
}

// selectPending chooses, at the end of an input where no map showed a
// stack, the first map whose every entry has an empty element (such as
// "@[, , swapper/0]: 7", where both stacks are empty) and folds it.
func (p *parser) selectPending() error {
	if p.selected != "" {
		return nil
	}
	for _, name := range p.order {
		m := p.maps[name]
		if m.noStacks || len(m.pending) == 0 {
			continue
		}
		p.selected = name
		m.info.Folded = true
		for _, e := range m.pending {
			if err := p.emitStack(e.stack, e.value); err != nil {
				return err
			}
		}
		m.pending = nil
		return nil
	}
	return nil
}

// Collapse folds a dump as Fold does and writes the stacks, summed and
// sorted, as classic folded lines to w.
func Collapse(r io.Reader, name string, opt Options, w io.Writer) (Summary, error) {
	var prof folded.Profile
	sum, err := Fold(r, name, opt, func(rec *folded.Record) error {
		prof.Add(rec)
		return nil
	})
	if err != nil {
		return sum, err
	}
	_, err = prof.WriteTo(w)
	return sum, err
}

func (p *parser) finishSummary() Summary {
	s := p.sum
	s.Maps = make([]MapInfo, len(p.order))
	for i, n := range p.order {
		s.Maps[i] = *p.maps[n].info
	}
	return s
}

// finish checks the choice of map at the end of the input.
func (p *parser) finish() (Summary, error) {
	s := p.finishSummary()
	if len(s.Maps) == 0 {
		return s, nil
	}
	if p.opt.Map != "" {
		m, ok := p.maps[p.opt.Map]
		if !ok {
			return s, fmt.Errorf("%s: %w %s (maps: %s)", p.name, ErrNoSuchMap, p.opt.Map, mapList(s.Maps))
		}
		if m.info.Unfoldable != "" && m.info.Entries > 0 && s.Entries == 0 {
			return s, fmt.Errorf("%s: %w: %s holds %s", p.name, ErrUnfoldable, p.opt.Map, m.info.Unfoldable)
		}
		return s, nil
	}
	if p.selected == "" {
		return s, fmt.Errorf("%s: %w (maps: %s); name the one to fold", p.name, ErrNoStackMap, mapList(s.Maps))
	}
	return s, nil
}

func mapList(maps []MapInfo) string {
	var b strings.Builder
	for i, m := range maps {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(m.Name)
		if m.Unfoldable != "" {
			fmt.Fprintf(&b, " (%s)", m.Unfoldable)
		}
	}
	return b.String()
}

// mapHeader recognises the start of a map entry: "@name[" or "@name:". It
// returns the map name and the text after the '[' or ':'.
func mapHeader(line []byte) (name string, rest []byte, keyed, ok bool) {
	if len(line) == 0 || line[0] != '@' {
		return "", nil, false, false
	}
	i := 1
	for i < len(line) && isIdent(line[i]) {
		i++
	}
	if i == len(line) || (line[i] != '[' && line[i] != ':') {
		return "", nil, false, false
	}
	return string(line[:i]), line[i+1:], line[i] == '[', true
}

func isIdent(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func (p *parser) mapOf(name string) *mapState {
	m, ok := p.maps[name]
	if !ok {
		m = &mapState{info: &MapInfo{Name: name}}
		p.maps[name] = m
		p.order = append(p.order, name)
	}
	return m
}

// line handles one input line.
func (p *parser) line(line []byte) error {
	if p.inEntry { // keyText leaves an entry open only to read a stack
		if len(line) > 0 && (line[0] == ',' || line[0] == ']') {
			p.endStack()
			return p.keyText(line, true)
		}
		if _, _, _, ok := mapHeader(line); ok {
			p.truncated()
			return p.line(line)
		}
		if f, ok := parseFrame(line); ok {
			p.frames = append(p.frames, p.keepFrame(f))
		}
		return nil
	}
	if name, rest, keyed, ok := mapHeader(line); ok {
		p.skipBlock = false
		m := p.mapOf(name)
		if !keyed {
			rest = bytes.TrimSpace(rest)
			if len(rest) == 0 { // "@name:" then histogram lines
				m.info.Entries++
				m.info.Unfoldable = "histogram"
				p.skipBlock = true
				return nil
			}
			p.startEntry(name, line)
			return p.endEntry(rest)
		}
		p.startEntry(name, line)
		return p.keyText(rest, false)
	}
	if len(bytes.TrimSpace(line)) == 0 {
		p.skipBlock = false
		return nil
	}
	if !p.skipBlock {
		p.sum.Other++
	}
	return nil
}

func (p *parser) startEntry(name string, line []byte) {
	p.inEntry, p.inStack = true, false
	p.mapName = name
	p.entryLine = p.lineNo
	p.entryText = append(p.entryText[:0], line...)
	p.arena = p.arena[:0]
	p.elems = p.elems[:0]
	p.frames = p.frames[:0]
}

// keepFrame copies the bytes f points to into the entry's arena.
func (p *parser) keepFrame(f frame) frame {
	if f.name != nil {
		start := len(p.arena)
		p.arena = append(p.arena, f.name...)
		f.name = p.arena[start:len(p.arena):len(p.arena)]
	}
	if f.module != nil {
		start := len(p.arena)
		p.arena = append(p.arena, f.module...)
		f.module = p.arena[start:len(p.arena):len(p.arena)]
	}
	return f
}

func (p *parser) endStack() {
	p.inStack = false
	p.elems = append(p.elems, element{stack: true, frames: append([]frame(nil), p.frames...)})
	p.frames = p.frames[:0]
}

// keyText reads the key text of a line: after "@name[" (afterStack false)
// or a line following a stack, which starts with ", " or "]".
func (p *parser) keyText(s []byte, afterStack bool) error {
	if afterStack {
		if s[0] == ']' {
			return p.endEntry(s)
		}
		s = s[1:] // the ','
		if len(s) > 0 && s[0] == ' ' {
			s = s[1:]
		}
	}
	// A key line either ends the entry ("…]: value") or ends with ", "
	// (or is empty): a stack follows on the next lines.
	trimmed := bytes.TrimRight(s, " ")
	if len(trimmed) == 0 {
		p.inStack = true
		return nil
	}
	if end := valueStart(s); end >= 0 {
		p.scalars(s[:end])
		return p.endEntry(s[end:])
	}
	if trimmed[len(trimmed)-1] == ',' {
		p.scalars(trimmed[:len(trimmed)-1])
		p.inStack = true
		return nil
	}
	// Neither: a multi-line scalar or something unknown. Read the next
	// lines as if they were a stack, so that the entry's end is found.
	p.scalars(s)
	p.inStack = true
	return nil
}

// valueStart returns the index of the "]:" that ends a key (the last one
// on the line, since keys may contain "]: "), or -1.
func valueStart(s []byte) int {
	i := bytes.LastIndex(s, []byte("]:"))
	if i < 0 {
		return -1
	}
	rest := s[i+2:]
	if len(rest) > 0 && rest[0] != ' ' {
		return -1
	}
	return i
}

// scalars adds the ", "-separated scalar elements of s.
func (p *parser) scalars(s []byte) {
	for {
		i := bytes.Index(s, []byte(", "))
		part := s
		if i >= 0 {
			part = s[:i]
		}
		start := len(p.arena)
		p.arena = append(p.arena, part...)
		p.elems = append(p.elems, element{text: span{start, len(p.arena)}})
		if i < 0 {
			return
		}
		s = s[i+2:]
	}
}

// endEntry finishes the entry with s = "]: value" (or the value alone for
// keyless entries).
func (p *parser) endEntry(s []byte) error {
	p.inEntry, p.inStack = false, false
	if len(s) > 0 && s[0] == ']' {
		s = s[1:]
	}
	s = bytes.TrimPrefix(s, []byte(":"))
	s = bytes.TrimSpace(s)
	m := p.mapOf(p.mapName)
	if len(s) == 0 { // "@name[key]:" then histogram lines
		m.info.Entries++
		m.info.Unfoldable = "histogram"
		p.skipBlock = true
		return nil
	}
	m.info.Entries++
	hasStack, hasEmpty := false, false
	for i := range p.elems {
		e := &p.elems[i]
		if e.stack {
			hasStack = true
		} else if e.text.start == e.text.end {
			hasEmpty = true
		}
	}
	if hasStack {
		m.info.Stacks = true
	}
	value, ok := parseValue(s)
	// An integer beyond 2^53 (bpftrace's counts are u64: an underflowed
	// count prints as 18446744073709551615) is no float64 exactly: the
	// entry is skipped, and counted, in a map that stays foldable.
	var big error
	if !ok && folded.CountSyntax(s) && bytes.IndexByte(s, '.') < 0 {
		big = folded.NewCountError(s)
	}
	if !ok && big == nil {
		if m.info.Unfoldable == "" {
			m.info.Unfoldable = "non-integer values"
		}
		if p.selected == p.mapName {
			p.skip(ErrValue)
		}
		return nil
	}
	if value == 0 && big == nil {
		return nil
	}
	switch {
	case p.selected == p.mapName:
		return p.fold(m, value, big)
	case p.selected != "":
		return nil
	case hasStack:
		p.selected = p.mapName
		m.info.Folded = true
		for _, e := range m.pending {
			if err := p.emitStack(e.stack, e.value); err != nil {
				return err
			}
		}
		m.pending = nil
		return p.fold(m, value, big)
	case hasEmpty && !m.noStacks && big != nil:
		p.skip(big)
	case hasEmpty && !m.noStacks:
		m.pending = append(m.pending, pending{stack: p.stackOf(nil), value: value})
	default:
		m.noStacks = true
		m.pending = nil
	}
	return nil
}

// fold emits the entry just read, or skips it for big (a value beyond
// 2^53), in the folded map m.
func (p *parser) fold(m *mapState, value float64, big error) error {
	m.info.Folded = true
	if big != nil {
		p.skip(big)
		return nil
	}
	p.stackBuf = p.stackOf(p.stackBuf[:0])
	return p.emitStack(p.stackBuf, value)
}

func (p *parser) emitStack(stack []byte, value float64) error {
	p.sum.Entries++
	p.sum.Total += value
	p.sum.Map = p.selected
	p.rec = folded.Record{Stack: stack, Count: value, Kind: folded.Classic}
	return p.emit(&p.rec)
}

// parseValue reads a map value: a non-negative integer up to
// folded.MaxCount (2^53), which a float64 holds exactly.
func parseValue(s []byte) (float64, bool) {
	if u, err := strconv.ParseUint(string(s), 10, 64); err == nil && u <= folded.MaxCount {
		return float64(u), true
	}
	return 0, false
}

// stackOf appends the folded stack of the current entry to dst: scalars
// in key order, then the user stacks, then the kernel stacks, each group
// from the last stack of the key to the first, each stack root first.
func (p *parser) stackOf(dst []byte) []byte {
	start0 := len(dst)
	n := 0
	add := func() {
		if n > 0 {
			dst = append(dst, ';')
		}
		n++
	}
	for i := range p.elems {
		e := &p.elems[i]
		if e.stack || e.text.start == e.text.end {
			continue
		}
		add()
		start := len(dst)
		dst = append(dst, p.arena[e.text.start:e.text.end]...)
		for j := start; j < len(dst); j++ {
			if dst[j] == ';' {
				dst[j] = ':'
			}
		}
	}
	for _, kernel := range []bool{false, true} {
		for i := len(p.elems) - 1; i >= 0; i-- {
			e := &p.elems[i]
			if !e.stack || p.isKernel(i) != kernel {
				continue
			}
			for j := len(e.frames) - 1; j >= 0; j-- {
				add()
				dst = appendName(dst, &e.frames[j], p.opt.Addrs)
				if kernel && p.opt.Kernel {
					dst = append(dst, "_[k]"...)
				}
			}
		}
	}
	return guardCount(dst[start0:], dst)
}

// guardCount makes sure a folded reader will not take the end of stack
// for a count: flamegraph.pl reads "comm 2 7" as the differential line
// "comm" 2 -> 7. When the text after the stack's last blank is a number,
// that blank becomes '_' ("Worker 2" -> "Worker_2"), as
// stackcollapse-perf.pl does to every blank of a comm. It returns dst.
func guardCount(stack, dst []byte) []byte {
	for i := len(stack) - 1; i >= 0; i-- {
		c := stack[i]
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' {
			if folded.CountSyntax(stack[i+1:]) {
				stack[i] = '_'
			}
			break
		}
	}
	return dst
}

// isKernel tells whether the stack element i is a kernel stack: by its
// addresses when it has any, else when it is the key's first stack (an
// empty element before it is taken as an empty stack, as in "@[, ").
func (p *parser) isKernel(i int) bool {
	for _, f := range p.elems[i].frames {
		if f.hasAddr {
			return f.addr >= kernelHalf
		}
	}
	for j := 0; j < i; j++ {
		if e := &p.elems[j]; e.stack || e.text.start == e.text.end {
			return false
		}
	}
	return true
}

// truncated records the entry being read as cut short.
func (p *parser) truncated() {
	p.inEntry, p.inStack = false, false
	p.mapOf(p.mapName).info.Entries++
	p.skip(ErrTruncated)
}

func (p *parser) skip(err error) {
	p.sum.Skipped.Add(&folded.ParseError{File: p.name, Line: p.entryLine, Text: folded.QuoteLine(p.entryText), Err: err})
}
