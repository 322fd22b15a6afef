package unwind_test

import (
	"encoding/binary"
	"fmt"

	"flamekit/pkg/perf/unwind"
)

// oneObject is a process with one object, mapped at 0x400000 with file
// offset 0 (its file offsets are its addresses).
type oneObject struct{ t *unwind.Table }

func (o oneObject) Find(addr uint64) (*unwind.Table, uint64, unwind.Stop) {
	if addr < 0x400000 || addr >= 0x500000 {
		return nil, 0, unwind.NoMap
	}
	return o.t, addr - 0x400000, 0
}

// A sample taken in a function whose CFI says "CFA = rsp+16, return
// address at CFA-8" (after a push), called from 0x400123; the caller's
// own return address lies past the end of the 24 bytes of stack dump.
func ExampleUnwinder_Unwind() {
	eh := []byte{
		// CIE: version 1, "zR", code 1, data -8, ra 16, pc-relative sdata4; CFA rsp+8, ra at CFA-8
		20, 0, 0, 0, 0, 0, 0, 0, 1, 'z', 'R', 0, 1, 0x78, 16, 1, 0x1b, 0x0c, 7, 8, 0x90, 1, 0, 0,
		// FDE for [0x100, 0x200): after 1 byte, CFA rsp+16
		20, 0, 0, 0, 28, 0, 0, 0, 0xe0, 0xf0, 0xff, 0xff, 0, 1, 0, 0, 0, 0x41, 0x0e, 16, 0, 0, 0, 0,
	}
	// The .eh_frame is loaded at 0x1000; without .eh_frame_hdr it needs
	// Options.DebugFrame to be read.
	t := unwind.NewTable(unwind.Sections{EHFrame: eh, EHFrameAddr: 0x1000}, unwind.Options{DebugFrame: true})
	stack := make([]byte, 24)
	binary.LittleEndian.PutUint64(stack[8:], 0x400124) // return address, at CFA-8
	var regs unwind.Regs
	regs.V[16], regs.V[7] = 0x400110, 0x7ff000 // rip, rsp
	regs.Valid = 1<<16 | 1<<7
	var u unwind.Unwinder
	pcs, stop := u.Unwind(&regs, stack, oneObject{t}, nil)
	for _, pc := range pcs {
		fmt.Printf("%#x\n", pc)
	}
	fmt.Println(stop)
	// Output:
	// 0x400110
	// 0x400123
	// 0xffffffffffffffff
	// stack dump ran out
}
