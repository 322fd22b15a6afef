package collapse

import (
	"bytes"

	"flamekit/pkg/perf/sample"
)

// This file holds stackcollapse-perf.pl's naming rules: how a sample
// becomes one folded stack, "root;outermost;...;leaf".

var (
	question   = []byte("?")
	unknownSym = []byte("[unknown]")
	arrow      = []byte("->")
)

// ids applies Perl's rule to the ids a sample printed: without a second id,
// or with a second id of "0" (false in Perl), the only id is the tid and
// the pid is "?".
func ids(s *sample.Sample) (pid, tid []byte) {
	switch {
	case s.PID == nil:
		return question, s.TID
	case len(s.TID) == 0 || len(s.TID) == 1 && s.TID[0] == '0':
		return question, s.PID
	}
	return s.PID, s.TID
}

// appendRoot appends the root frame of a sample with the given comm and
// ids: "comm", "comm-PID" or "comm-PID/TID", spaces made '_'.
func appendRoot(dst []byte, opt *Options, comm, pid, tid []byte) []byte {
	start := len(dst)
	dst = append(dst, comm...)
	switch {
	case opt.TID:
		dst = append(dst, '-')
		dst = append(dst, pid...)
		dst = append(dst, '/')
		dst = append(dst, tid...)
	case opt.PID:
		dst = append(dst, '-')
		dst = append(dst, pid...)
	}
	for i := start; i < len(dst); i++ {
		if dst[i] == ' ' {
			dst[i] = '_'
		}
	}
	return dst
}

// folder applies the naming rules; one per goroutine (the inliner is
// shared and safe for concurrent use).
type folder struct {
	opt *Options
	inl *inliner
	// memo holds what frame appends for each distinct frame seen (its
	// symbol, module and, where --addrs uses it, address, and the java
	// rule), when nothing else decides it (no --inline, no --srcline):
	// samples repeat their frames, and the rules run once per distinct
	// frame. Its memory grows with the distinct frames of the input.
	memo    map[string]memoPiece
	memoKey []byte
	// ids does the same for frames that carry an ID (sample.Frame.ID):
	// ids[java][ID] says where in idText what frame appends is. A slice
	// index replaces the hashing and comparing of strings per frame.
	ids    [2][]idPiece
	idText []byte
	// chains does the same by frame number, for samples given as numbers
	// of a reader's frames (Sink.AddChain): the number of the piece
	// frame n gives (pieceTable, shared by the workers: many frames give
	// one piece), and the frame's class, shared by the workers of the
	// input (see chainMemo). The piece's text is kept in localText at
	// local[piece]. A few thousand distinct pieces stay in the caches,
	// where a text per frame number did not.
	chains    *chainMemo
	table     *pieceTable
	local     []localPiece
	localText []byte
	buf       []byte
	// chainJ is the j of chains (java or not) of the stack folded last
	// from frame numbers (see chainClass).
	chainJ int
}

// idPiece is what frame appends for the frames of one ID: idText[start :
// end-1], end 0 when not known yet.
type idPiece struct{ start, end uint32 }

// localPiece is where the text of a piece is in folder.localText (end
// 0: not there).
type localPiece struct{ start, end uint32 }

// memoPiece is what frame appends for one frame.
type memoPiece struct {
	text []byte
	id   uint32 // its number in the pieceTable, once asked (framePiece)
}

// resetIDs forgets the frames known by ID: the next frames come from
// another reader.
func (f *folder) resetIDs() {
	for j := range f.ids {
		clear(f.ids[j])
		f.ids[j] = f.ids[j][:0]
	}
	f.idText = f.idText[:0]
}

// frameByID is frame for a frame with an ID.
func (f *folder) frameByID(dst []byte, fr *sample.Frame, java bool) []byte {
	j := 0
	if java {
		j = 1
	}
	id := int(fr.ID)
	dst, ok := f.recall(dst, slot(&f.ids[j], id))
	if ok {
		return dst
	}
	start := len(dst)
	dst = f.frameRules(dst, fr, java)
	f.remember(&f.ids[j], id, dst[start:])
	return dst
}

// slot returns the memo of number n in *tab (grown to hold it), nil for
// numbers too large to keep (past 2^26).
func slot(tab *[]idPiece, n int) *idPiece {
	if n >= len(*tab) {
		if n >= 1<<26 {
			return nil
		}
		m := max(n+1, 2*len(*tab), 1024)
		*tab = append(*tab, make([]idPiece, m-len(*tab))...)
	}
	return &(*tab)[n]
}

// recall appends the piece p keeps; false when p keeps none (nil, or
// not made yet).
func (f *folder) recall(dst []byte, p *idPiece) ([]byte, bool) {
	if p == nil || p.end == 0 {
		return dst, false
	}
	return append(dst, f.idText[p.start:p.end-1]...), true
}

// remember keeps piece, the text the rules just appended for number n,
// as n's memo in *tab (unless n is too large, or the memo's text is
// full).
func (f *folder) remember(tab *[]idPiece, n int, piece []byte) {
	if n >= len(*tab) || len(f.idText) >= 1<<30 {
		return
	}
	p := idPiece{start: uint32(len(f.idText))}
	f.idText = append(f.idText, piece...)
	p.end = uint32(len(f.idText)) + 1
	(*tab)[n] = p
}

// maxMemo bounds the memo of a folder, for inputs whose frames never
// repeat (every address a new symbol+offset).
const maxMemo = 1 << 20

// fold appends the folded stack of s to dst: the root frame, then the
// frames from the outermost to the leaf.
func (f *folder) fold(dst []byte, s *sample.Sample) []byte {
	dst, j := f.root(dst, s)
	java := j == 1
	for i := len(s.Frames) - 1; i >= 0; i-- {
		dst = f.frame(dst, &s.Frames[i], java)
	}
	return dst
}

// root appends the root of the stack of s (appendRoot) and returns the
// Java naming rule its frames follow: 1 when the root starts with "java",
// else 0.
func (f *folder) root(dst []byte, s *sample.Sample) ([]byte, int) {
	pid, tid := ids(s)
	start := len(dst)
	dst = appendRoot(dst, f.opt, s.Comm, pid, tid)
	if bytes.HasPrefix(dst[start:], []byte("java")) {
		return dst, 1
	}
	return dst, 0
}

// frame appends ";" and the frames one frame line gives (none when Perl
// drops it, several for "->" pieces and inlined functions), following
// stackcollapse-perf.pl's per-frame rules in their order.
func (f *folder) frame(dst []byte, fr *sample.Frame, java bool) []byte {
	if f.opt.Inline || f.opt.Srcline {
		return f.frameRules(dst, fr, java)
	}
	if fr.ID != 0 {
		return f.frameByID(dst, fr, java)
	}
	k := f.memoKeyOf(fr, java)
	if v, ok := f.memo[string(k)]; ok { // no allocation on a hit
		return append(dst, v.text...)
	}
	start := len(dst)
	dst = f.frameRules(dst, fr, java)
	piece := dst[start:]
	if f.memo == nil {
		f.memo = make(map[string]memoPiece)
	}
	if len(f.memo) < maxMemo {
		f.memo[string(k)] = memoPiece{text: bytes.Clone(piece)}
	}
	return dst
}

// memoKeyOf returns the key of frame line fr in the memo of frame: what
// the naming rules read of it. They read the symbol without its offset
// (stripOffset), so the key leaves it out: the frames of one function at
// different offsets share one entry, which keeps the memo small enough to
// stay in the caches.
func (f *folder) memoKeyOf(fr *sample.Frame, java bool) []byte {
	k := append(f.memoKey[:0], stripOffset(fr.Symbol)...)
	k = append(k, 0)
	k = append(k, fr.DSO...)
	if java {
		k = append(k, 0, 'j')
	}
	if f.opt.Addrs && bytes.Contains(fr.Symbol, unknownSym) {
		k = append(k, 0)
		k = append(k, fr.Addr...)
	}
	f.memoKey = k
	return k
}

// framePiece returns the number (pieceTable) of the piece of text frame
// line fr gives a stack (pieceEmpty for none): what frame appends, found
// through the same memo, for the classic sums by key (see keysums.go).
// Frames with an ID (Sink.Add of a reader's numbered frames) run the
// rules each time.
func (f *folder) framePiece(fr *sample.Frame, java bool) uint32 {
	var k []byte
	if fr.ID == 0 {
		k = f.memoKeyOf(fr, java)
		if v, ok := f.memo[string(k)]; ok && v.id != pieceUnknown {
			return v.id
		}
	}
	f.buf = f.frameRules(f.buf[:0], fr, java)
	p := uint32(pieceEmpty)
	if len(f.buf) > 0 {
		p = f.table.intern(f.buf)
	}
	if fr.ID != 0 {
		return p
	}
	if v, ok := f.memo[string(k)]; ok {
		v.id = p
		f.memo[string(k)] = v
	} else if len(f.memo) < maxMemo {
		v := memoPiece{text: bytes.Clone(f.buf), id: p}
		if f.memo == nil {
			f.memo = make(map[string]memoPiece)
		}
		f.memo[string(k)] = v
	}
	return p
}

// frameRules is frame without the memo.
func (f *folder) frameRules(dst []byte, fr *sample.Frame, java bool) []byte {
	if f.opt.Inline && f.inl != nil && inlineEligible(fr.DSO) {
		if res := f.inl.resolve(fr.Addr, fr.Symbol, fr.DSO); res != "" && res != "??" && res != "??:??:0" {
			dst = append(dst, ';')
			return append(dst, res...)
		}
	}
	raw := stripOffset(fr.Symbol)
	if skipFrame(raw) {
		return dst
	}
	for bytes.HasSuffix(raw, arrow) { // split drops trailing empty fields
		raw = raw[:len(raw)-2]
	}
	if len(raw) == 0 {
		return dst
	}
	src := fr.Srcline
	unknown := false
	for i := 0; ; i++ {
		piece := raw
		j := bytes.Index(raw, arrow)
		if j >= 0 {
			piece, raw = raw[:j], raw[j+2:]
		}
		dst = append(dst, ';')
		dst, unknown = f.piece(dst, i, piece, fr, java, unknown)
		if f.opt.Srcline && !unknown {
			var line []byte
			line, src, _ = bytes.Cut(src, []byte{'\n'})
			if line = tidySrcline(line); len(line) > 0 {
				dst = append(dst, ':')
				dst = append(dst, line...)
			}
		}
		if j < 0 {
			return dst
		}
	}
}

// piece appends one "->" piece of a frame line. unknown is Perl's "is
// unknown" flag of the line, which a piece naming no module sets.
func (f *folder) piece(dst []byte, i int, piece []byte, fr *sample.Frame, java, unknown bool) ([]byte, bool) {
	ps := len(dst)
	if bytes.Equal(piece, unknownSym) {
		dst = append(dst, '[')
		if !bytes.Equal(fr.DSO, unknownSym) {
			mod := fr.DSO
			if k := bytes.LastIndexByte(mod, '/'); k >= 0 {
				mod = mod[k+1:]
			}
			dst = append(dst, mod...)
		} else {
			dst = append(dst, "unknown"...)
			unknown = true
		}
		if f.opt.Addrs {
			dst = append(dst, " <"...)
			dst = append(dst, fr.Addr...)
			dst = append(dst, '>')
		}
		dst = append(dst, ']')
	} else {
		dst = append(dst, piece...)
	}
	n := tidyGeneric(dst[ps:])
	dst = dst[:ps+n]
	if java && len(dst) > ps && dst[ps] == 'L' && bytes.IndexByte(dst[ps:], '/') >= 0 {
		copy(dst[ps:], dst[ps+1:])
		dst = dst[:len(dst)-1]
	}
	switch {
	case i > 0:
		if !bytes.Contains(dst[ps:], []byte("_[i]")) {
			dst = append(dst, "_[i]"...)
		}
	case f.opt.Kernel && isKernelModule(fr.DSO):
		dst = append(dst, "_[k]"...)
	case f.opt.JIT && isJITModule(fr.DSO):
		if !bytes.Contains(dst[ps:], []byte("_[j]")) {
			dst = append(dst, "_[j]"...)
		}
	}
	return dst, unknown
}

// SrclineCount returns how many `perf script -F+srcline` lines follow the
// frame line of fr, as stackcollapse-perf.pl consumes them: one per "->"
// piece of the symbol, up to the first piece that names no module
// ("[unknown]" in "[unknown]"); none for a frame it drops or that --inline
// expands (inlined reports whether it does). The text reader calls it to
// know which lines belong to a frame.
func SrclineCount(fr *sample.Frame, inlined bool) int {
	if inlined {
		return 0
	}
	raw := stripOffset(fr.Symbol)
	if skipFrame(raw) {
		return 0
	}
	for bytes.HasSuffix(raw, arrow) {
		raw = raw[:len(raw)-2]
	}
	if len(raw) == 0 {
		return 0
	}
	n := 0
	for {
		piece := raw
		j := bytes.Index(raw, arrow)
		if j >= 0 {
			piece, raw = raw[:j], raw[j+2:]
		}
		if bytes.Equal(piece, unknownSym) && bytes.Equal(fr.DSO, unknownSym) {
			return n
		}
		n++
		if j < 0 {
			return n
		}
	}
}

// tidySrcline tidies a perf script -F+srcline line as Perl does: every
// [...] group removed (non-greedy), blanks trimmed.
func tidySrcline(b []byte) []byte {
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
