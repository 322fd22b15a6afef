package unwind

import (
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"sync"
)

// maxSection is the largest CFI section a Table reads: the objects a
// capture names are untrusted, and no real .eh_frame comes close.
const maxSection = 256 << 20

// Sections are the CFI sections of an object, with the addresses they are
// loaded at (the base of pc-relative and data-relative pointers).
type Sections struct {
	EHFrame        []byte
	EHFrameAddr    uint64
	EHFrameHdr     []byte
	EHFrameHdrAddr uint64
	DebugFrame     []byte
	// Segments are the object's PT_LOAD segments, which map a file offset
	// to the address the CFI uses.
	Segments []Segment
}

// Segment is a PT_LOAD program header: Filesz bytes at file offset Off
// are loaded at Vaddr.
type Segment struct {
	Off, Vaddr, Filesz uint64
}

// Table is the CFI of one ELF object. Its methods are safe for concurrent
// use.
type Table struct {
	segs  []Segment
	eh    []byte
	ehAt  uint64
	hdrAt uint64
	dbg   []byte

	// ehIndex and dbgIndex are the FDEs sorted by start address: from
	// .eh_frame_hdr's table, or from a scan of the section.
	ehIndex  []fdeRef
	dbgIndex []fdeRef
	hasHdr   bool   // the .eh_frame_hdr table is valid
	hdrBytes []byte // .eh_frame_hdr (for the tests)

	mu   sync.Mutex
	cies map[cieKey]*cie
	rows map[uint64]*row
}

// fdeRef is one FDE of an index: the address its range starts at and its
// offset in its section.
type fdeRef struct {
	start uint64
	off   uint64
}

type cieKey struct {
	debug bool
	off   uint64
}

// Options say which CFI a Table uses.
type Options struct {
	// DebugFrame makes the Table use .debug_frame (of the object or its
	// debug file) and an .eh_frame without .eh_frame_hdr too. perf's
	// libunwind, as Debian builds it, uses neither: without it a Table
	// finds what perf finds (Go binaries, which have only .debug_frame,
	// then unwind no further than their first frame, as in perf script).
	DebugFrame bool
}

// Open reads the CFI of the ELF object at path, and, with
// Options.DebugFrame, the .debug_frame of its separate debug file debug
// when that is not empty. An object without any CFI gives a Table that
// finds none: the unwinder then stops there with NoCFI.
func Open(path, debug string, opt Options) (*Table, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	s, err := readSections(path, f, opt.DebugFrame)
	if err != nil {
		return nil, err
	}
	if opt.DebugFrame && debug != "" && s.DebugFrame == nil {
		if df, err := os.Open(debug); err == nil {
			if d, err := readSections(debug, df, true); err == nil {
				s.DebugFrame = d.DebugFrame
			}
			df.Close()
		}
	}
	return NewTable(s, opt), nil
}

// Load reads the CFI of the ELF object r; name names it in errors.
func Load(name string, r io.ReaderAt, opt Options) (*Table, error) {
	s, err := readSections(name, r, opt.DebugFrame)
	if err != nil {
		return nil, err
	}
	return NewTable(s, opt), nil
}

// readSections reads the CFI sections (.debug_frame only with debug) and
// the loaded segments of one ELF file. debug/elf is not trusted with a
// hostile file: a panic becomes an error naming the file.
func readSections(path string, r io.ReaderAt, debug bool) (s Sections, err error) {
	defer func() {
		if p := recover(); p != nil {
			s, err = Sections{}, fmt.Errorf("%s: malformed ELF file (%v)", path, p)
		}
	}()
	ef, err := elf.NewFile(r)
	if err != nil {
		return s, fmt.Errorf("%s: %w", path, err)
	}
	if ef.Machine != elf.EM_X86_64 {
		return s, fmt.Errorf("%s: %v object: only x86-64 is unwound", path, ef.Machine)
	}
	for _, p := range ef.Progs {
		if p.Type == elf.PT_LOAD {
			s.Segments = append(s.Segments, Segment{Off: p.Off, Vaddr: p.Vaddr, Filesz: p.Filesz})
		}
	}
	read := func(name string) ([]byte, uint64) {
		sec := ef.Section(name)
		if sec == nil || sec.Type == elf.SHT_NOBITS || sec.Size > maxSection {
			return nil, 0
		}
		b, err := sec.Data()
		if err != nil {
			return nil, 0
		}
		return b, sec.Addr
	}
	s.EHFrame, s.EHFrameAddr = read(".eh_frame")
	s.EHFrameHdr, s.EHFrameHdrAddr = read(".eh_frame_hdr")
	if debug {
		s.DebugFrame, _ = read(".debug_frame")
	}
	return s, nil
}

// NewTable makes a Table of the CFI sections of an object. It indexes the
// FDEs (from .eh_frame_hdr's table when it is valid); it parses them when
// an address needs them. Damaged sections give a Table that finds less
// (the unwinder stops with BadCFI or NoCFI), never an error.
func NewTable(s Sections, opt Options) *Table {
	t := &Table{
		segs:     s.Segments,
		eh:       s.EHFrame,
		ehAt:     s.EHFrameAddr,
		hdrAt:    s.EHFrameHdrAddr,
		dbg:      s.DebugFrame,
		hdrBytes: s.EHFrameHdr,
		cies:     map[cieKey]*cie{},
		rows:     map[uint64]*row{},
	}
	if len(t.eh) > 0 {
		t.ehIndex = t.hdrIndex(s.EHFrameHdr)
		t.hasHdr = t.ehIndex != nil
		if t.ehIndex == nil && opt.DebugFrame {
			t.ehIndex = t.scan(false)
		}
	}
	if len(t.dbg) > 0 && opt.DebugFrame {
		t.dbgIndex = t.scan(true)
	}
	return t
}

// HasCFI reports whether the table has any FDE.
func (t *Table) HasCFI() bool { return len(t.ehIndex)+len(t.dbgIndex) > 0 }

// Vaddr returns the address, in the object's own address space (the one
// its CFI and symbols use), of the byte at file offset off; false when no
// loaded segment holds it.
func (t *Table) Vaddr(off uint64) (uint64, bool) {
	for _, s := range t.segs {
		if off >= s.Off && off-s.Off < s.Filesz {
			return s.Vaddr + off - s.Off, true
		}
	}
	return 0, false
}

// Addresses returns the addresses (in the object's own address space)
// whose rows the table computed so far, sorted: what unwinding a capture
// needed of the object.
func (t *Table) Addresses() []uint64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Sorted(maps.Keys(t.rows))
}

// BaseAddr returns the address of the object's first loaded segment less
// its file offset (perf's elf_base_address): an object loaded at B holds
// its address A at B+A-BaseAddr.
func (t *Table) BaseAddr() uint64 {
	if len(t.segs) == 0 {
		return 0
	}
	return t.segs[0].Vaddr - t.segs[0].Off
}

// hdrIndex decodes the binary search table of .eh_frame_hdr into an
// index; nil when there is none or it is not valid.
func (t *Table) hdrIndex(hdr []byte) []fdeRef {
	if len(hdr) < 4 || hdr[0] != 1 {
		return nil
	}
	ptrEnc, countEnc, tableEnc := hdr[1], hdr[2], hdr[3]
	r := &reader{b: hdr, pos: 4}
	base := pointerBase{pc: t.hdrAt, data: t.hdrAt}
	if _, ok := r.pointer(ptrEnc, base); !ok {
		return nil
	}
	n, ok := r.pointer(countEnc, base)
	if !ok || tableEnc == 0xff || n == 0 {
		return nil
	}
	size := encSize(tableEnc)
	if size == 0 || n > uint64(len(hdr))/uint64(2*size) {
		return nil
	}
	idx := make([]fdeRef, 0, n)
	for range n {
		start, ok1 := r.pointer(tableEnc, base)
		fde, ok2 := r.pointer(tableEnc, base)
		if !ok1 || !ok2 || fde < t.ehAt || fde-t.ehAt >= uint64(len(t.eh)) {
			return nil
		}
		idx = append(idx, fdeRef{start: start, off: fde - t.ehAt})
	}
	if !slices.IsSortedFunc(idx, func(a, b fdeRef) int { return cmpU64(a.start, b.start) }) {
		slices.SortFunc(idx, func(a, b fdeRef) int { return cmpU64(a.start, b.start) })
	}
	return idx
}

func cmpU64(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// scan indexes every FDE of .eh_frame (debug false) or .debug_frame.
func (t *Table) scan(debug bool) []fdeRef {
	sec := t.eh
	if debug {
		sec = t.dbg
	}
	var idx []fdeRef
	for off := uint64(0); off < uint64(len(sec)); {
		e, next, err := t.entry(debug, off)
		if err != nil || next <= off {
			break
		}
		if e.isFDE {
			if f, err := t.fde(debug, off); err == nil && f.end > f.start {
				idx = append(idx, fdeRef{start: f.start, off: off})
			}
		}
		off = next
	}
	slices.SortFunc(idx, func(a, b fdeRef) int { return cmpU64(a.start, b.start) })
	return idx
}

// errCFI is the error of damaged CFI.
var errCFI = errors.New("corrupt CFI")

// entryHead is the head of a CIE or FDE: where its body starts and ends,
// and for an FDE the offset of its CIE.
type entryHead struct {
	isFDE      bool
	body, end  uint64
	cieOff     uint64
	dwarf64    bool
	idFieldOff uint64
}

// entry reads the head of the entry at off; next is the offset of the
// entry after it.
func (t *Table) entry(debug bool, off uint64) (entryHead, uint64, error) {
	sec := t.eh
	if debug {
		sec = t.dbg
	}
	r := &reader{b: sec, pos: off}
	var h entryHead
	l32, ok := r.u32()
	if !ok {
		return h, 0, errCFI
	}
	length := uint64(l32)
	if l32 == 0xffffffff {
		if length, ok = r.u64(); !ok {
			return h, 0, errCFI
		}
		h.dwarf64 = true
	}
	if length == 0 {
		// A terminator in .eh_frame.
		return h, 0, io.EOF
	}
	start := r.pos
	if length > uint64(len(sec))-start {
		return h, 0, errCFI
	}
	h.end = start + length
	h.idFieldOff = start
	var id uint64
	if h.dwarf64 {
		id, ok = r.u64()
	} else {
		var v uint32
		v, ok = r.u32()
		id = uint64(v)
	}
	if !ok || r.pos > h.end {
		return h, 0, errCFI
	}
	h.body = r.pos
	switch {
	case !debug && id == 0, debug && (id == 0xffffffff || h.dwarf64 && id == ^uint64(0)):
		h.isFDE = false
	case !debug:
		h.isFDE = true
		if id > h.idFieldOff {
			return h, 0, errCFI
		}
		h.cieOff = h.idFieldOff - id
	default:
		h.isFDE = true
		h.cieOff = id
	}
	return h, h.end, nil
}

// cie is a parsed Common Information Entry.
type cie struct {
	codeAlign uint64
	dataAlign int64
	raReg     uint64
	fdeEnc    byte
	lsdaEnc   byte
	hasAug    bool // augmentation "z": FDEs have augmentation data
	signal    bool // "S": frames of signal handlers
	addrSize  int
	initial   []byte
	init      *row // the row after the initial instructions
}

// fdeInfo is a parsed Frame Description Entry.
type fdeInfo struct {
	start, end uint64
	cie        *cie
	insns      []byte
}

// getCIE parses (once) the CIE at off.
func (t *Table) getCIE(debug bool, off uint64) (*cie, error) {
	k := cieKey{debug, off}
	if c, ok := t.cies[k]; ok {
		if c == nil {
			return nil, errCFI
		}
		return c, nil
	}
	c, err := t.parseCIE(debug, off)
	if len(t.cies) < 1<<16 {
		t.cies[k] = c
	}
	return c, err
}

func (t *Table) parseCIE(debug bool, off uint64) (*cie, error) {
	h, _, err := t.entry(debug, off)
	if err != nil || h.isFDE {
		return nil, errCFI
	}
	sec := t.eh
	if debug {
		sec = t.dbg
	}
	r := &reader{b: sec[:h.end], pos: h.body}
	c := &cie{addrSize: 8, fdeEnc: encAbsptr}
	ver, ok := r.u8()
	if !ok || (ver != 1 && ver != 3 && ver != 4) {
		return nil, errCFI
	}
	aug, ok := r.cstring()
	if !ok {
		return nil, errCFI
	}
	if len(aug) >= 2 && aug[0] == 'e' && aug[1] == 'h' {
		// Old GCC "eh": a pointer-sized EH data field.
		if !r.skip(8) {
			return nil, errCFI
		}
	}
	if ver == 4 {
		as, ok1 := r.u8()
		_, ok2 := r.u8()
		if !ok1 || !ok2 || (as != 4 && as != 8) {
			return nil, errCFI
		}
		c.addrSize = int(as)
	}
	if c.codeAlign, ok = r.uleb(); !ok {
		return nil, errCFI
	}
	if c.dataAlign, ok = r.sleb(); !ok {
		return nil, errCFI
	}
	if ver == 1 {
		b, ok := r.u8()
		if !ok {
			return nil, errCFI
		}
		c.raReg = uint64(b)
	} else if c.raReg, ok = r.uleb(); !ok {
		return nil, errCFI
	}
	if len(aug) > 0 && aug[0] == 'z' {
		c.hasAug = true
		n, ok := r.uleb()
		if !ok || n > uint64(len(r.b))-r.pos {
			return nil, errCFI
		}
		end := r.pos + n
		ar := &reader{b: r.b[:end], pos: r.pos}
		for _, a := range aug[1:] {
			switch a {
			case 'R':
				if c.fdeEnc, ok = ar.u8(); !ok {
					return nil, errCFI
				}
			case 'L':
				if c.lsdaEnc, ok = ar.u8(); !ok {
					return nil, errCFI
				}
			case 'P':
				enc, ok := ar.u8()
				if !ok {
					return nil, errCFI
				}
				if _, ok := ar.pointer(enc, pointerBase{}); !ok {
					return nil, errCFI
				}
			case 'S':
				c.signal = true
			case 'B', 'G':
				// arm64's BTI and MTE marks: nothing to do here.
			default:
				// An augmentation we do not know: its data is
				// skipped as a whole by the "z" length.
			}
		}
		r.pos = end
	} else if len(aug) > 0 && aug != "eh" {
		// Without "z" an unknown augmentation cannot be skipped.
		return nil, errCFI
	}
	if debug && c.fdeEnc == encAbsptr && c.addrSize == 4 {
		c.fdeEnc = encUdata4
	}
	c.initial = r.b[r.pos:h.end]
	c.init, err = runCFA(c, c.initial, nil, 0, ^uint64(0))
	if err != nil {
		return nil, err
	}
	return c, nil
}

// fde parses the FDE at off.
func (t *Table) fde(debug bool, off uint64) (fdeInfo, error) {
	var f fdeInfo
	h, _, err := t.entry(debug, off)
	if err != nil || !h.isFDE {
		return f, errCFI
	}
	c, err := t.getCIE(debug, h.cieOff)
	if err != nil {
		return f, err
	}
	sec, at := t.eh, t.ehAt
	if debug {
		sec, at = t.dbg, 0
	}
	r := &reader{b: sec[:h.end], pos: h.body}
	base := pointerBase{pc: at, data: t.hdrAt}
	start, ok := r.pointer(c.fdeEnc, base)
	if !ok {
		return f, errCFI
	}
	n, ok := r.pointer(c.fdeEnc&0x0f, base)
	if !ok {
		return f, errCFI
	}
	if c.hasAug {
		l, ok := r.uleb()
		if !ok || !r.skip(l) {
			return f, errCFI
		}
	}
	f.start, f.end, f.cie, f.insns = start, start+n, c, r.b[r.pos:h.end]
	if f.end < f.start {
		return f, errCFI
	}
	return f, nil
}

// find returns the FDE whose range holds pc: in .eh_frame first, then in
// .debug_frame.
func (t *Table) find(pc uint64) (fdeInfo, bool, error) {
	var firstErr error
	for _, debug := range [2]bool{false, true} {
		idx := t.ehIndex
		if debug {
			idx = t.dbgIndex
		}
		i, _ := slices.BinarySearchFunc(idx, pc, func(e fdeRef, pc uint64) int {
			if e.start <= pc {
				return -1
			}
			return 1
		})
		// Entries starting at or before pc, nearest first (FDEs may
		// overlap empty ones; look at a few).
		for j := i - 1; j >= 0 && j >= i-4; j-- {
			f, err := t.fde(debug, idx[j].off)
			if err != nil {
				if firstErr == nil {
					firstErr = err
				}
				continue
			}
			if pc >= f.start && pc < f.end {
				return f, true, nil
			}
			if f.end > f.start {
				break
			}
		}
	}
	return fdeInfo{}, false, firstErr
}

// Rows of the addresses without one, shared by all tables.
var (
	rowNoCFI  = &row{stop: NoCFI}
	rowNoFDE  = &row{stop: noFDE}
	rowBadCFI = &row{stop: BadCFI}
)

// maxRows bounds the rows a Table caches (a capture of a huge program
// touches far fewer distinct addresses).
const maxRows = 1 << 20

// rowFor returns the CFI row of pc (an address in the object's own address
// space), cached. Its stop is NoCFI when the object has no unwind table,
// noFDE when its table has no entry for pc, BadCFI when the entry is
// corrupt.
func (t *Table) rowFor(pc uint64) *row {
	t.mu.Lock()
	defer t.mu.Unlock()
	if r, ok := t.rows[pc]; ok {
		return r
	}
	var rw *row
	f, ok, err := t.find(pc)
	switch {
	case ok:
		if rw, err = runCFA(f.cie, f.insns, f.cie.init, f.start, pc); err != nil {
			rw = rowBadCFI
		} else {
			rw.setChanged()
		}
	case err != nil:
		rw = rowBadCFI
	case t.HasCFI():
		rw = rowNoFDE
	default:
		rw = rowNoCFI
	}
	if len(t.rows) < maxRows {
		t.rows[pc] = rw
	}
	return rw
}

// Pointer encodings (DW_EH_PE_*).
const (
	encAbsptr  = 0x00
	encUleb    = 0x01
	encUdata2  = 0x02
	encUdata4  = 0x03
	encUdata8  = 0x04
	encSleb    = 0x09
	encSdata2  = 0x0a
	encSdata4  = 0x0b
	encSdata8  = 0x0c
	encPcrel   = 0x10
	encTextrel = 0x20
	encDatarel = 0x30
	encFuncrel = 0x40
	encAligned = 0x50
	encOmit    = 0xff
)

// encSize is the size of a fixed-size encoded pointer; 0 for variable
// sizes.
func encSize(enc byte) int {
	switch enc & 0x0f {
	case encAbsptr, encUdata8, encSdata8:
		return 8
	case encUdata4, encSdata4:
		return 4
	case encUdata2, encSdata2:
		return 2
	}
	return 0
}

// pointerBase holds the bases of relative pointer encodings: pc is the
// address of the section the reader reads (pcrel adds the address of the
// field), data that of .eh_frame_hdr.
type pointerBase struct {
	pc, data uint64
}

// reader reads little-endian DWARF values from b, never past its end.
type reader struct {
	b   []byte
	pos uint64
}

func (r *reader) left() uint64 {
	if r.pos > uint64(len(r.b)) {
		return 0
	}
	return uint64(len(r.b)) - r.pos
}

func (r *reader) skip(n uint64) bool {
	if n > r.left() {
		return false
	}
	r.pos += n
	return true
}

func (r *reader) u8() (byte, bool) {
	if r.left() < 1 {
		return 0, false
	}
	v := r.b[r.pos]
	r.pos++
	return v, true
}

func (r *reader) u16() (uint16, bool) {
	if r.left() < 2 {
		return 0, false
	}
	v := binary.LittleEndian.Uint16(r.b[r.pos:])
	r.pos += 2
	return v, true
}

func (r *reader) u32() (uint32, bool) {
	if r.left() < 4 {
		return 0, false
	}
	v := binary.LittleEndian.Uint32(r.b[r.pos:])
	r.pos += 4
	return v, true
}

func (r *reader) u64() (uint64, bool) {
	if r.left() < 8 {
		return 0, false
	}
	v := binary.LittleEndian.Uint64(r.b[r.pos:])
	r.pos += 8
	return v, true
}

func (r *reader) uleb() (uint64, bool) {
	var v uint64
	for shift := uint(0); ; shift += 7 {
		b, ok := r.u8()
		if !ok {
			return 0, false
		}
		if shift < 64 {
			v |= uint64(b&0x7f) << shift
		}
		if b&0x80 == 0 {
			return v, true
		}
	}
}

func (r *reader) sleb() (int64, bool) {
	var v int64
	var shift uint
	for {
		b, ok := r.u8()
		if !ok {
			return 0, false
		}
		if shift < 64 {
			v |= int64(b&0x7f) << shift
		}
		shift += 7
		if b&0x80 == 0 {
			if shift < 64 && b&0x40 != 0 {
				v |= -1 << shift
			}
			return v, true
		}
	}
}

func (r *reader) cstring() (string, bool) {
	for i := r.pos; i < uint64(len(r.b)); i++ {
		if r.b[i] == 0 {
			s := string(r.b[r.pos:i])
			r.pos = i + 1
			return s, true
		}
	}
	return "", false
}

// pointer reads a pointer of encoding enc.
func (r *reader) pointer(enc byte, base pointerBase) (uint64, bool) {
	if enc == encOmit {
		return 0, true
	}
	at := r.pos
	var v uint64
	ok := true
	switch enc & 0x0f {
	case encAbsptr, encUdata8, encSdata8:
		v, ok = r.u64()
	case encUleb:
		v, ok = r.uleb()
	case encUdata2:
		var x uint16
		x, ok = r.u16()
		v = uint64(x)
	case encUdata4:
		var x uint32
		x, ok = r.u32()
		v = uint64(x)
	case encSleb:
		var x int64
		x, ok = r.sleb()
		v = uint64(x)
	case encSdata2:
		var x uint16
		x, ok = r.u16()
		v = uint64(int64(int16(x)))
	case encSdata4:
		var x uint32
		x, ok = r.u32()
		v = uint64(int64(int32(x)))
	default:
		return 0, false
	}
	if !ok {
		return 0, false
	}
	switch enc & 0x70 {
	case 0:
	case encPcrel:
		v += base.pc + at
	case encDatarel:
		v += base.data
	default:
		// textrel, funcrel and aligned are not used on x86-64 Linux.
		return 0, false
	}
	return v, true
}
