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
