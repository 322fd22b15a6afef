package perfscript

import (
	"hash/maphash"
	"sync"
	"sync/atomic"

	"flamekit/internal/base/hugepage"
	"flamekit/pkg/perf/sample"
)

// This file numbers the distinct frame lines of one text, so that a sample
// reaches the fold driver as a list of frame numbers (collapse.Sink.AddChain)
// rather than as frames: a frame line met before costs a hash of its bytes
// and a lookup, not a parse, and the driver runs the naming rules once per
// number. A system-wide capture prints each of a few tens of thousands of
// distinct lines hundreds of times, and a few thousand of them make nine
// tenths of its frame lines.

// Bounds of what a text numbers: past frameLinesMax distinct lines (an
// input whose frames never repeat; a variable for the tests), or
// maxLinePieces pieces of their bytes (256 MB), samples with new lines
// are handed over as frames, parsed each time, as are lines longer than
// maxNumberedLine.
var frameLinesMax uint32 = maxFrameLines

const (
	maxFrameLines   = 1 << 20
	maxNumberedLine = 1<<16 - 1
)

// The frameTable keeps its frames in blocks of 2^frameBlockBits, and the
// lines' bytes in pieces of 2^linePieceBits, which never move: a line is
// named by its offset in their sequence.
const (
	frameBlockBits = 12
	linePieceBits  = 20
	maxLinePieces  = 256
)

// frameTable numbers the distinct frame lines of one text, shared by the
// workers that parse its chunks: it is the collapse.Frames of the text's
// samples. Equal lines, equal numbers; a line's bytes and its frame are
// kept (copied) for the run. Its memory grows with the distinct lines.
//
// The workers look lines up without a lock (number); a line not found is
// added under mu. A worker reads only the frames and lines of numbers it
// found: their blocks, pieces and slots were set before it found them.
type frameTable struct {
	seed   maphash.Seed
	slots  atomic.Pointer[[]lineSlot] // a power of two of them, at most half used
	max    uint32                     // frameLinesMax when made
	mu     sync.Mutex
	used   int
	n      uint32 // numbers given
	end    uint32 // where the next line's bytes go (an offset, see line)
	blocks [maxFrameLines >> frameBlockBits]atomic.Pointer[frameBlock]
	spans  [maxFrameLines >> frameBlockBits]atomic.Pointer[spanBlock]
	pieces [maxLinePieces]atomic.Pointer[[1 << linePieceBits]byte]
}

type (
	frameBlock [1 << frameBlockBits]sample.Frame
	spanBlock  [1 << frameBlockBits]lineSpan
)

// lineSpan is where the bytes of a line are kept (see frameTable.line).
type lineSpan struct{ off, len uint32 }

// lineSlot is one slot of a frameTable's hash table: the high bits of the
// line's hash and its number plus one (0: a free slot). It is set once
// the line's entries are, so that a worker that sees it sees them.
type lineSlot = atomic.Uint64

// tagMask is the part of a hash a lineSlot keeps.
const tagMask = ^uint64(1<<32 - 1)

func newFrameTable() *frameTable {
	t := &frameTable{seed: maphash.MakeSeed(), max: frameLinesMax}
	slots := make([]lineSlot, 1024)
	t.slots.Store(&slots)
	return t
}

// Frame implements collapse.Frames.
func (t *frameTable) Frame(n uint32) *sample.Frame {
	return &t.blocks[n>>frameBlockBits].Load()[n&(1<<frameBlockBits-1)]
}

// lineOf returns the bytes of the line numbered n.
func (t *frameTable) lineOf(n uint32) []byte {
	sp := t.span(n)
	return t.line(sp.off, sp.len)
}

// line returns the bytes of the line kept at offset off, of length n.
func (t *frameTable) line(off, n uint32) []byte {
	p := t.pieces[off>>linePieceBits].Load()
	o := off & (1<<linePieceBits - 1)
	return p[o : o+n : o+n]
}

// number returns the number of the frame line line, ok false when it is
// not a frame line, is too long, or t is full. A line met before costs a
// hash and a lookup; a new one is parsed, then numbered.
func (t *frameTable) number(line []byte) (uint32, bool) {
	h := maphash.Bytes(t.seed, line)
	if n, ok := t.find(*t.slots.Load(), h, line); ok {
		return n, true
	}
	if len(line) > maxNumberedLine {
		return 0, false
	}
	if _, ok := parseFrame(line); !ok {
		return 0, false
	}
	return t.add(h, line)
}

// find looks line, of hash h, up in slots.
func (t *frameTable) find(slots []lineSlot, h uint64, line []byte) (uint32, bool) {
	mask := len(slots) - 1
	for i := int(h) & mask; ; i = (i + 1) & mask {
		k := slots[i].Load()
		if k == 0 {
			return 0, false
		}
		if k&tagMask == h&tagMask {
			n := uint32(k) - 1
			sp := t.span(n)
			if int(sp.len) == len(line) && string(t.line(sp.off, sp.len)) == string(line) {
				return n, true
			}
		}
	}
}

// span returns where line n is kept.
func (t *frameTable) span(n uint32) *lineSpan {
	return &t.spans[n>>frameBlockBits].Load()[n&(1<<frameBlockBits-1)]
}

// add numbers line, of hash h, a frame line not found, unless another
// worker did meanwhile.
func (t *frameTable) add(h uint64, line []byte) (uint32, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	slots := *t.slots.Load()
	if n, ok := t.find(slots, h, line); ok {
		return n, true
	}
	if t.n >= t.max {
		return 0, false
	}
	size := uint32(len(line))
	if t.end&(1<<linePieceBits-1)+size > 1<<linePieceBits {
		t.end = (t.end>>linePieceBits + 1) << linePieceBits // the next piece
	}
	if t.end>>linePieceBits >= maxLinePieces {
		return 0, false
	}
	pp := &t.pieces[t.end>>linePieceBits]
	if pp.Load() == nil {
		pp.Store(new([1 << linePieceBits]byte))
	}
	off := t.end
	t.end += size
	b := t.line(off, size)
	copy(b, line)
	f, _ := parseFrame(b)
	n := t.n
	t.n++
	bp := &t.blocks[n>>frameBlockBits]
	if bp.Load() == nil {
		bp.Store(new(frameBlock))
	}
	bp.Load()[n&(1<<frameBlockBits-1)] = sample.Frame{Addr: f.pc, Symbol: f.rawfunc, DSO: f.module}
	sp := &t.spans[n>>frameBlockBits]
	if sp.Load() == nil {
		sp.Store(new(spanBlock))
	}
	sp.Load()[n&(1<<frameBlockBits-1)] = lineSpan{off, size}
	if t.used+1 > len(slots)/2 {
		slots = t.grow(slots)
	}
	put(slots, h, h&tagMask|uint64(n+1))
	t.used++
	return n, true
}

// put sets the first free slot of slots from where the search for hash h
// starts to key.
func put(slots []lineSlot, h, key uint64) {
	mask := len(slots) - 1
	i := int(h) & mask
	for slots[i].Load() != 0 {
		i = (i + 1) & mask
	}
	slots[i].Store(key)
}

// grow returns a table twice the size of slots, with its lines, and makes
// it the one looked in.
func (t *frameTable) grow(slots []lineSlot) []lineSlot {
	bigger := hugepage.Table[lineSlot](2 * len(slots))
	for i := range slots {
		if k := slots[i].Load(); k != 0 {
			sp := t.span(uint32(k) - 1)
			put(bigger, maphash.Bytes(t.seed, t.line(sp.off, sp.len)), k)
		}
	}
	t.slots.Store(&bigger)
	return bigger
}

// frameHints is one worker's guesses of the frame line that follows
// each frame line: the two that followed it last. The frames of a call
// graph are printed from the leaf out, and the caller of a frame is most
// often one it had before (in a system-wide capture, the last for 85% of
// the lines that follow a frame line, one of the last two for 90%): the
// next line is then compared with the lines guessed, and neither looked
// for (its end) nor hashed nor looked up.
type frameHints struct {
	// next[2n] and next[2n+1]: the lines that followed line n last and
	// before.
	next []hint
}

// hint is a line guessed to follow another: its number, and where its
// bytes are kept (frameTable.line), so that the guess is checked without
// looking its number up. They are packed in 64 bits: the number from bit
// 44, the offset from bit 16, the length below; 0 is no hint (no frame
// line is empty).
type hint uint64

// The parts of a hint fit: numbers below 2^20, offsets below 2^28,
// lengths below 2^16.
const (
	_ = uint(1<<20 - maxFrameLines)
	_ = uint(1<<28 - maxLinePieces<<linePieceBits)
	_ = uint(1<<16 - 1 - maxNumberedLine)
)

func makeHint(n, off, size uint32) hint {
	return hint(uint64(n)<<44 | uint64(off)<<16 | uint64(size))
}

func (h hint) n() uint32    { return uint32(h >> 44) }
func (h hint) off() uint32  { return uint32(h>>16) & (1<<28 - 1) }
func (h hint) size() uint32 { return uint32(h) & (1<<16 - 1) }

// guess returns the line guessed to follow line n, the last (way 0) or
// the one before (way 1); 0 when there is none.
func (h *frameHints) guess(n uint32, way int) hint {
	if i := 2*int(n) + way; i < len(h.next) {
		return h.next[i]
	}
	return 0
}

// note notes that line m, kept at offset off (frameTable.line), of
// length size, followed line n.
func (h *frameHints) note(n, m, off, size uint32) {
	i := 2 * int(n)
	if i >= len(h.next) {
		h.next = append(h.next, make([]hint, max(i+2, 2*len(h.next), 2048)-len(h.next))...)
	}
	if h.next[i] == 0 || h.next[i].n() != m {
		h.next[i], h.next[i+1] = makeHint(m, off, size), h.next[i]
	}
}
