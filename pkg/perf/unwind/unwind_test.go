package unwind

import (
	"encoding/binary"
	"reflect"
	"testing"
)

// testSpace maps sampleTable's object at base, and a JIT's anonymous
// memory at jit.
type testSpace struct {
	t *Table
}

const (
	base = 0x555500000000
	jit  = 0x70000000
	sp0  = 0x7ffe0000
)

func (s testSpace) Find(addr uint64) (*Table, uint64, Stop) {
	switch {
	case addr >= base && addr < base+0x4000:
		return s.t, addr - base, 0
	case addr >= jit && addr < jit+0x1000:
		return nil, 0, JIT
	}
	return nil, 0, NoMap
}

// testStack is the stack of three frames: g (at 0x1110, CFA rsp+48),
// called by f (CFA rbp+16), called by main, which has no CFI: the
// frame-pointer guess finds a null return address there, which perf's
// libunwind gives as one more frame, 0 minus one (seen in perf script of
// a process early in ld.so: "ffffffffffffffff [unknown]" after
// handle_amd, whose CFI perf's lookup misses).
func testStack(raOfG uint64) (*Regs, []byte) {
	st := make([]byte, 128)
	put := func(at, v uint64) { binary.LittleEndian.PutUint64(st[at-sp0:], v) }
	put(sp0+40, raOfG)
	put(sp0+32, 0x1234) // rbx of f
	put(sp0+64, sp0+96) // rbp of main
	put(sp0+72, base+0x1501)
	put(sp0+96, 0)
	put(sp0+104, 0)
	var r Regs
	set := func(n int, v uint64) { r.V[n], r.Valid = v, r.Valid|1<<n }
	set(16, base+0x1110)
	set(7, sp0)
	set(6, sp0+64)
	set(3, 99)
	return &r, st
}

func TestUnwind(t *testing.T) {
	tb := sampleTable(t, true)
	space := testSpace{tb}
	noSP := func() (*Regs, []byte) {
		r, st := testStack(base + 0x1021)
		r.Valid &^= 1 << 7
		return r, st
	}
	for _, c := range []struct {
		name  string
		regs  func() (*Regs, []byte)
		cut   int // stack bytes kept, 0 for all
		depth int
		want  []uint64
		stop  Stop
	}{
		{"three frames", func() (*Regs, []byte) { return testStack(base + 0x1021) }, 0, 0,
			[]uint64{base + 0x1110, base + 0x1020, base + 0x1500, ^uint64(0)}, End},
		{"dump too short", func() (*Regs, []byte) { return testStack(base + 0x1021) }, 60, 0,
			[]uint64{base + 0x1110, base + 0x1020, ^uint64(0)}, StackEnd},
		{"last word out of reach", func() (*Regs, []byte) { return testStack(base + 0x1021) }, 48, 0,
			[]uint64{base + 0x1110, ^uint64(0)}, StackEnd},
		{"JIT caller", func() (*Regs, []byte) { return testStack(jit + 0x10) }, 0, 0,
			[]uint64{base + 0x1110, jit + 0xf}, JIT},
		{"caller in no map", func() (*Regs, []byte) { return testStack(0x1000) }, 0, 0,
			[]uint64{base + 0x1110, 0xfff}, NoMap},
		{"max depth", func() (*Regs, []byte) { return testStack(base + 0x1021) }, 0, 2,
			[]uint64{base + 0x1110, base + 0x1020}, MaxDepth},
		{"no rsp", noSP, 0, 0, nil, NoRegs},
	} {
		t.Run(c.name, func(t *testing.T) {
			regs, st := c.regs()
			if c.cut > 0 {
				st = st[:c.cut]
			}
			u := Unwinder{MaxDepth: c.depth}
			got, stop := u.Unwind(regs, st, space, nil)
			if !reflect.DeepEqual(got, c.want) || stop != c.stop {
				t.Errorf("got %#x, %v; want %#x, %v", got, stop, c.want, c.stop)
			}
		})
	}
}

func TestUnwindPLT(t *testing.T) {
	// In the PLT from 0x1210 the expression gives CFA = rsp+16 when
	// (rip&15) >= 11 (after the push of the lazy binding stub's index),
	// else rsp+8.
	tb := sampleTable(t, true)
	st := make([]byte, 64)
	binary.LittleEndian.PutUint64(st[0:], base+0x1111) // ra when CFA = rsp+8
	binary.LittleEndian.PutUint64(st[8:], base+0x1121) // ra when CFA = rsp+16
	for _, c := range []struct {
		ip, want uint64
	}{{0x1212, base + 0x1110}, {0x121c, base + 0x1120}} {
		var r Regs
		r.V[16], r.V[7], r.Valid = base+c.ip, sp0, 1<<16|1<<7
		var u Unwinder
		got, _ := u.Unwind(&r, st, testSpace{tb}, nil)
		if len(got) < 2 || got[1] != c.want {
			t.Errorf("ip %#x: frames %#x, want the caller %#x", c.ip, got, c.want)
		}
	}
}

func TestPerfRegs(t *testing.T) {
	// perf's x86-64 mask of --call-graph dwarf: AX..GS without DS ES FS
	// GS, then R8..R15.
	mask := uint64(0xff0fff)
	vals := make([]uint64, 20)
	for i := range vals {
		vals[i] = uint64(100 + i)
	}
	r := PerfRegs(mask, vals)
	want := map[int]uint64{0: 100, 3: 101, 2: 102, 1: 103, 4: 104, 5: 105, 6: 106, 7: 107, 16: 108, 8: 112, 15: 119}
	for n, v := range want {
		if r.V[n] != v || r.Valid&(1<<n) == 0 {
			t.Errorf("register %d: %d (valid %v), want %d", n, r.V[n], r.Valid&(1<<n) != 0, v)
		}
	}
	if r := PerfRegs(mask, vals[:8]); r.Valid&(1<<16) != 0 {
		t.Errorf("rip valid with 8 values")
	}
}

func TestStopString(t *testing.T) {
	for s := End; s <= NoRegs; s++ {
		if s.String() == "not stopped" {
			t.Errorf("stop %d has no name", s)
		}
	}
	if Stop(0).String() != "not stopped" {
		t.Errorf("0: %q", Stop(0).String())
	}
}

// BenchmarkUnwind unwinds the three frames of testStack again and again,
// as samples repeat a stack: the rows come from the Unwinder's cache, the
// maps from the Space.
func BenchmarkUnwind(b *testing.B) {
	tb := sampleTable(b, true)
	space := testSpace{tb}
	regs, st := testStack(base + 0x1021)
	var u Unwinder
	var pcs []uint64
	for b.Loop() {
		pcs, _ = u.Unwind(regs, st, space, pcs[:0])
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(pcs)), "ns/frame")
}

// TestUnwindAsPerf checks rules of perf's libunwind that only its output
// shows (each was seen in perf script of a system-wide capture):
//
//   - a signal handler's caller is the trampoline (glibc's __restore_rt,
//     CIE "S", its FDE starting one byte early): perf prints the
//     trampoline's address less one, and the interrupted function's
//     address as it is;
//   - rbp saved at address 0 (it was read as 0 from below the dump, and
//     the caller's CFA is rbp+16) ends the stack, with no frame for the
//     return address.
func TestUnwindAsPerf(t *testing.T) {
	put := func(st []byte, at, v uint64) { binary.LittleEndian.PutUint64(st[at-sp0:], v) }
	regs := func(ip uint64) *Regs {
		r := &Regs{}
		r.V[16], r.V[7], r.V[6] = ip, sp0, 0x5555
		r.Valid = 1<<16 | 1<<7 | 1<<6
		return r
	}

	// Signal: handler h (0x1100) called by the trampoline (0x1300),
	// which returns to i (0x1010), interrupted there.
	e := &ehBuilder{at: 0x2000}
	e.cie("zR", nil)
	fi := e.fde(0x1000, 0x40, nil)
	fh := e.fde(0x1100, 0x30, nil)
	e.cie("zRS", nil)
	ft := e.fde(0x12ff, 0x20, []byte{cfaDefCFA, 7, 64, cfaOffset | 16, 3, cfaOffset | 7, 2})
	sig := NewTable(Sections{EHFrame: e.b, EHFrameAddr: e.at, Segments: []Segment{{Filesz: 0x4000}},
		EHFrameHdr: e.hdr(0x3000, []uint64{0x1000, 0x1100, 0x12ff}, []int{fi, fh, ft}), EHFrameHdrAddr: 0x3000}, Options{})
	sigStack := make([]byte, 256)
	put(sigStack, sp0, base+0x1300)    // h's return address
	put(sigStack, sp0+48, base+0x1010) // the interrupted rip (CFA-24)
	put(sigStack, sp0+56, sp0+80)      // the interrupted rsp (CFA-16)
	put(sigStack, sp0+80, 0)           // i's return address: the end

	// rbp at 0: k (0x1110: CFA rsp+16, rbp at CFA-24, below the dump)
	// called by f (CFA rbp+16, rbp at CFA-16).
	e = &ehBuilder{at: 0x2000}
	e.cie("zR", nil)
	ff := e.fde(0x1000, 0x40, []byte{cfaDefCFA, 6, 16, cfaOffset | 6, 2})
	fk := e.fde(0x1100, 0x30, []byte{cfaDefCFAOffset, 16, cfaOffset | 6, 3})
	zero := NewTable(Sections{EHFrame: e.b, EHFrameAddr: e.at, Segments: []Segment{{Filesz: 0x4000}},
		EHFrameHdr: e.hdr(0x3000, []uint64{0x1000, 0x1100}, []int{ff, fk}), EHFrameHdrAddr: 0x3000}, Options{})
	zeroStack := make([]byte, 64)
	put(zeroStack, sp0+8, base+0x1021)

	for _, c := range []struct {
		name  string
		t     *Table
		ip    uint64
		stack []byte
		want  []uint64
		stop  Stop
	}{
		{"signal frame", sig, base + 0x1100, sigStack, []uint64{base + 0x1100, base + 0x12ff, base + 0x1010, ^uint64(0)}, End},
		{"rbp saved at 0", zero, base + 0x1110, zeroStack, []uint64{base + 0x1110, base + 0x1020}, End},
	} {
		t.Run(c.name, func(t *testing.T) {
			var u Unwinder
			got, stop := u.Unwind(regs(c.ip), c.stack, testSpace{c.t}, nil)
			if !reflect.DeepEqual(got, c.want) || stop != c.stop {
				t.Errorf("got %#x, %v; want %#x, %v", got, stop, c.want, c.stop)
			}
		})
	}
}
