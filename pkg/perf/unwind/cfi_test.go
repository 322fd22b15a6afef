package unwind

import (
	"encoding/binary"
	"reflect"
	"testing"
)

// ehBuilder writes .eh_frame sections for the tests: one CIE ("zR",
// pc-relative sdata4 pointers, code alignment 1, data alignment -8, return
// address in r16) and FDEs after it.
type ehBuilder struct {
	b    []byte
	at   uint64 // the section's address
	cies []int  // offsets of the CIEs
}

// cie appends the CIE with initial instructions insns (x86-64's usual
// ones when nil: CFA = rsp+8, ra at CFA-8) and augmentation aug.
func (e *ehBuilder) cie(aug string, insns []byte) {
	if insns == nil {
		insns = []byte{cfaDefCFA, 7, 8, cfaOffset | 16, 1}
	}
	body := []byte{0, 0, 0, 0, 1}
	body = append(body, aug...)
	body = append(body, 0, 1, 0x78, 16) // code 1, data -8, ra 16
	if aug != "" && aug[0] == 'z' {
		var ad []byte
		for _, c := range aug[1:] {
			switch c {
			case 'R':
				ad = append(ad, encPcrel|encSdata4)
			case 'P':
				ad = append(ad, encUdata4, 0, 0, 0, 0)
			case 'L':
				ad = append(ad, encPcrel|encSdata4)
			}
		}
		body = append(body, byte(len(ad)))
		body = append(body, ad...)
	}
	body = append(body, insns...)
	e.cies = append(e.cies, len(e.b))
	e.entry(body)
}

// fde appends an FDE of the last CIE covering [start, start+n).
func (e *ehBuilder) fde(start, n uint64, insns []byte) int {
	off := len(e.b)
	body := make([]byte, 4+4+4+1)
	binary.LittleEndian.PutUint32(body, uint32(off+4-e.cies[len(e.cies)-1]))
	field := e.at + uint64(off) + 8
	binary.LittleEndian.PutUint32(body[4:], uint32(int32(int64(start)-int64(field))))
	binary.LittleEndian.PutUint32(body[8:], uint32(n))
	body[12] = 0 // augmentation data length
	body = append(body, insns...)
	e.entry(body)
	return off
}

func (e *ehBuilder) entry(body []byte) {
	for (len(body)+4)%8 != 0 {
		body = append(body, cfaNop)
	}
	e.b = binary.LittleEndian.AppendUint32(e.b, uint32(len(body)))
	e.b = append(e.b, body...)
}

// hdr returns an .eh_frame_hdr at address at for the FDEs at offs, whose
// ranges start at starts.
func (e *ehBuilder) hdr(at uint64, starts []uint64, offs []int) []byte {
	h := []byte{1, encPcrel | encSdata4, encUdata4, encDatarel | encSdata4}
	h = binary.LittleEndian.AppendUint32(h, uint32(int32(int64(e.at)-int64(at+4))))
	h = binary.LittleEndian.AppendUint32(h, uint32(len(starts)))
	for i := range starts {
		h = binary.LittleEndian.AppendUint32(h, uint32(int32(int64(starts[i])-int64(at))))
		h = binary.LittleEndian.AppendUint32(h, uint32(int32(int64(e.at)+int64(offs[i])-int64(at))))
	}
	return h
}

// sampleTable is a table of two functions as GCC describes them:
//
//	0x1000 f: push rbp; mov rbp,rsp; ... (CFA rbp+16), remember/restore
//	          around an early return
//	0x1100 g: push rbx; sub rsp,32; ... (CFA rsp+48)
//	0x1200 plt: the PLT expression
func sampleTable(t testing.TB, withHdr bool) *Table {
	t.Helper()
	e := &ehBuilder{at: 0x2000}
	e.cie("zR", nil)
	f := e.fde(0x1000, 0x40, []byte{
		cfaAdvanceLoc | 1, cfaDefCFAOffset, 16, cfaOffset | 6, 2,
		cfaAdvanceLoc | 3, cfaDefCFARegister, 6,
		cfaAdvanceLoc | 8, cfaRememberState, cfaDefCFA, 7, 8,
		cfaAdvanceLoc | 1, cfaRestoreState,
	})
	g := e.fde(0x1100, 0x30, []byte{
		cfaAdvanceLoc | 1, cfaDefCFAOffset, 16, cfaOffset | 3, 2,
		cfaAdvanceLoc | 4, cfaDefCFAOffset, 48,
	})
	plt := e.fde(0x1200, 0x20, []byte{
		cfaDefCFAOffset, 16, cfaAdvanceLoc | 6, cfaDefCFAOffset, 24, cfaAdvanceLoc | 10,
		cfaDefCFAExpression, 11, opBreg0 + 7, 8, opBreg0 + 16, 0, opLit0 + 15, opAnd, opLit0 + 11, opGe, opLit0 + 3, opShl, opPlus,
	})
	s := Sections{EHFrame: e.b, EHFrameAddr: e.at, Segments: []Segment{{Off: 0, Vaddr: 0, Filesz: 0x4000}}}
	if withHdr {
		s.EHFrameHdrAddr = 0x3000
		s.EHFrameHdr = e.hdr(0x3000, []uint64{0x1000, 0x1100, 0x1200}, []int{f, g, plt})
	}
	return NewTable(s, Options{DebugFrame: !withHdr})
}

func TestRows(t *testing.T) {
	type want struct {
		stop   Stop
		cfaReg uint8
		cfaOff int64
		expr   bool
		rbp    rule
		rbx    rule
	}
	ra := rule{kind: ruleOffset, off: -8}
	for _, hdr := range []bool{true, false} {
		tb := sampleTable(t, hdr)
		for _, c := range []struct {
			pc uint64
			w  want
		}{
			{0x1000, want{cfaReg: 7, cfaOff: 8}},
			{0x1001, want{cfaReg: 7, cfaOff: 16, rbp: rule{kind: ruleOffset, off: -16}}},
			{0x1004, want{cfaReg: 6, cfaOff: 16, rbp: rule{kind: ruleOffset, off: -16}}},
			{0x100c, want{cfaReg: 7, cfaOff: 8, rbp: rule{kind: ruleOffset, off: -16}}},
			{0x100d, want{cfaReg: 6, cfaOff: 16, rbp: rule{kind: ruleOffset, off: -16}}},
			{0x103f, want{cfaReg: 6, cfaOff: 16, rbp: rule{kind: ruleOffset, off: -16}}},
			{0x1040, want{stop: noFDE}},
			{0x1104, want{cfaReg: 7, cfaOff: 16, rbx: rule{kind: ruleOffset, off: -16}}},
			{0x1105, want{cfaReg: 7, cfaOff: 48, rbx: rule{kind: ruleOffset, off: -16}}},
			{0x1205, want{cfaReg: 7, cfaOff: 16}},
			{0x1206, want{cfaReg: 7, cfaOff: 24}},
			{0x1210, want{expr: true}},
			{0x0fff, want{stop: noFDE}},
			{0x5000, want{stop: noFDE}},
		} {
			r := tb.rowFor(c.pc)
			got := want{stop: r.stop, cfaReg: r.cfaReg, cfaOff: r.cfaOff, expr: r.cfaExpr != nil, rbp: r.regs[6], rbx: r.regs[3]}
			if c.w.expr {
				got.cfaReg, got.cfaOff = 0, 0
			}
			if !reflect.DeepEqual(got, c.w) {
				t.Errorf("hdr %v: row of %#x: got %+v, want %+v", hdr, c.pc, got, c.w)
			}
			if r.stop == 0 && !reflect.DeepEqual(r.regs[16], ra) {
				t.Errorf("hdr %v: row of %#x: ra rule %+v", hdr, c.pc, r.regs[16])
			}
		}
	}
}

func TestNoUnwindTable(t *testing.T) {
	// Without .eh_frame_hdr (and without Options.DebugFrame) perf's
	// libunwind finds no table: NoCFI, not the frame-pointer guess.
	e := &ehBuilder{at: 0x2000}
	e.cie("zR", nil)
	e.fde(0x1000, 0x40, nil)
	tb := NewTable(Sections{EHFrame: e.b, EHFrameAddr: e.at}, Options{})
	if r := tb.rowFor(0x1000); r.stop != NoCFI {
		t.Errorf("stop %v, want NoCFI", r.stop)
	}
	tb = NewTable(Sections{EHFrame: e.b, EHFrameAddr: e.at}, Options{DebugFrame: true})
	if r := tb.rowFor(0x1000); r.stop != 0 {
		t.Errorf("with DebugFrame: stop %v, want a row", r.stop)
	}
}

func TestDebugFrame(t *testing.T) {
	// .debug_frame: CIE id 0xffffffff, absolute 8-byte addresses.
	var b []byte
	cie := []byte{0xff, 0xff, 0xff, 0xff, 4, 0, 8, 0, 1, 0x78, 16, cfaDefCFA, 7, 8, cfaOffset | 16, 1, 0, 0, 0}
	b = binary.LittleEndian.AppendUint32(b, uint32(len(cie)))
	b = append(b, cie...)
	fde := binary.LittleEndian.AppendUint32(nil, 0) // CIE at offset 0
	fde = binary.LittleEndian.AppendUint64(fde, 0x4000)
	fde = binary.LittleEndian.AppendUint64(fde, 0x100)
	fde = append(fde, cfaAdvanceLoc|4, cfaDefCFAOffset, 32, 0, 0, 0)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(fde)))
	b = append(b, fde...)
	tb := NewTable(Sections{DebugFrame: b}, Options{DebugFrame: true})
	if r := tb.rowFor(0x4005); r.stop != 0 || r.cfaOff != 32 || r.cfaReg != 7 {
		t.Errorf("row %+v", r)
	}
	if r := tb.rowFor(0x4100); r.stop != noFDE {
		t.Errorf("past the FDE: %+v", r)
	}
	if r := NewTable(Sections{DebugFrame: b}, Options{}).rowFor(0x4005); r.stop != NoCFI {
		t.Errorf("without DebugFrame: %v", r.stop)
	}
}

func TestCorruptCFI(t *testing.T) {
	e := &ehBuilder{at: 0x2000}
	e.cie("zR", nil)
	off := e.fde(0x1000, 0x40, []byte{cfaAdvanceLoc | 1, cfaRestoreState})
	off2 := e.fde(0x1100, 0x40, []byte{cfaAdvanceLoc | 1, 0x3f}) // not an instruction
	hdr := e.hdr(0x3000, []uint64{0x1000, 0x1100}, []int{off, off2})
	tb := NewTable(Sections{EHFrame: e.b, EHFrameAddr: e.at, EHFrameHdr: hdr, EHFrameHdrAddr: 0x3000}, Options{})
	for _, pc := range []uint64{0x1002, 0x1101} {
		if r := tb.rowFor(pc); r.stop != BadCFI {
			t.Errorf("%#x: stop %v, want BadCFI", pc, r.stop)
		}
	}
	for _, pc := range []uint64{0x1000, 0x1100} {
		if r := tb.rowFor(pc); r.stop != 0 {
			t.Errorf("%#x, before the bad instruction: stop %v", pc, r.stop)
		}
	}
}

func TestVaddr(t *testing.T) {
	tb := NewTable(Sections{Segments: []Segment{{Off: 0, Vaddr: 0, Filesz: 0x1000}, {Off: 0x1000, Vaddr: 0x201000, Filesz: 0x500}}}, Options{})
	for _, c := range []struct {
		off, want uint64
		ok        bool
	}{{0x10, 0x10, true}, {0x1010, 0x201010, true}, {0x1500, 0, false}} {
		got, ok := tb.Vaddr(c.off)
		if got != c.want || ok != c.ok {
			t.Errorf("Vaddr(%#x) = %#x, %v; want %#x, %v", c.off, got, ok, c.want, c.ok)
		}
	}
}
