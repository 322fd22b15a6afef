package unwind

import (
	"encoding/binary"
	"math/bits"
	"unsafe"
)

// Stop says why an unwind stopped: the frames found before it are kept, as
// perf keeps them.
type Stop uint8

// Why an unwind stops. End is the normal end of a stack; the others are
// the causes the missing-symbol diagnosis counts.
const (
	// End: the outermost frame (the CFI leaves the return address
	// undefined, it is 0, or the frame-pointer chain ends).
	End Stop = iota + 1
	// StackEnd: the stack dump ran out (perf record --call-graph
	// dwarf,SIZE with a SIZE too small for the stack).
	StackEnd
	// NoMap: an address in no mapping of the process.
	NoMap
	// JIT: an address in anonymous executable memory, a JIT's code,
	// which has no CFI perf can read.
	JIT
	// NoObject: the object mapped there is not on this machine or not
	// an ELF file of this architecture.
	NoObject
	// Replaced: the object's file here has another build-id than the
	// capture recorded (rebuilt or upgraded since).
	Replaced
	// NoCFI: the object has no unwind table (.eh_frame_hdr), or no CFI
	// for the address and the frame-pointer guess failed.
	NoCFI
	// BadCFI: the CFI of the address is corrupt.
	BadCFI
	// NoProgress: a step left the address and the CFA unchanged.
	NoProgress
	// MaxDepth: the stack is deeper than Unwinder.MaxDepth.
	MaxDepth
	// NoRegs: the sample lacks a register the CFI needs.
	NoRegs

	// noFDE: the object's table has no entry for the address (the
	// unwinder then guesses with the frame pointer, as libunwind does).
	noFDE
)

var stopNames = [...]string{
	End:        "end of stack",
	StackEnd:   "stack dump ran out",
	NoMap:      "address in no mapping",
	JIT:        "JIT code (anonymous memory)",
	NoObject:   "object not found",
	Replaced:   "object replaced since the capture (build-id differs)",
	NoCFI:      "no CFI for the address",
	BadCFI:     "corrupt CFI",
	NoProgress: "unwinding made no progress",
	MaxDepth:   "too deep",
	NoRegs:     "registers missing",
	noFDE:      "no FDE for the address",
}

// String says what the Stop means, in a few words.
func (s Stop) String() string {
	if int(s) < len(stopNames) && stopNames[s] != "" {
		return stopNames[s]
	}
	return "not stopped"
}

// Regs are the user registers of a sample in DWARF numbering (0 rax, 1
// rdx, 2 rcx, 3 rbx, 4 rsi, 5 rdi, 6 rbp, 7 rsp, 8 to 15 r8 to r15, 16
// rip); Valid has bit n set when register n is known.
type Regs struct {
	V     [numRegs]uint64
	Valid uint32
}

// perfToDWARF maps the bits of perf's x86-64 sample_regs_user (AX BX CX DX
// SI DI BP SP IP FLAGS CS SS DS ES FS GS, then R8 to R15) to DWARF
// register numbers; -1 for the registers the CFI does not use.
var perfToDWARF = [24]int8{0, 3, 2, 1, 4, 5, 6, 7, 16, -1, -1, -1, -1, -1, -1, -1, 8, 9, 10, 11, 12, 13, 14, 15}

// PerfRegs returns the registers of a sample's PERF_SAMPLE_REGS_USER: mask
// is the event's sample_regs_user, vals one value per bit set, in bit
// order (fewer values leave the rest unknown).
func PerfRegs(mask uint64, vals []uint64) Regs {
	var r Regs
	i := 0
	for bit := 0; bit < 64 && i < len(vals); bit++ {
		if mask&(1<<bit) == 0 {
			continue
		}
		if bit < len(perfToDWARF) && perfToDWARF[bit] >= 0 {
			n := perfToDWARF[bit]
			r.V[n] = vals[i]
			r.Valid |= 1 << n
		}
		i++
	}
	return r
}

// Space says what is mapped at the addresses of the sampled process.
type Space interface {
	// Find returns the CFI of the object mapped at addr and the address
	// addr has in that object's own address space (its file offset
	// through Table.Vaddr); else a Stop: NoMap, JIT, NoObject.
	Find(addr uint64) (t *Table, objAddr uint64, s Stop)
}

// DefaultMaxDepth is the number of frames perf script keeps of a user
// stack (PERF_MAX_STACK_DEPTH).
const DefaultMaxDepth = 127

// Unwinder walks user stacks. It is not safe for concurrent use: use one
// per goroutine (the Tables it reads may be shared).
type Unwinder struct {
	// MaxDepth is the most frames Unwind returns; 0 means
	// DefaultMaxDepth.
	MaxDepth int

	rows *rowCache
}

// rowCache remembers the rows an Unwinder was given last, direct-mapped by
// table and address, so that the addresses every sample repeats (a
// process's main loop, libc's entry) are found without the Table's lock.
type rowCache [rowCacheSize]struct {
	t  *Table
	pc uint64
	rw *row
}

const rowCacheSize = 1 << 12

// row returns the row of pc in t, from the cache if it is there.
func (u *Unwinder) row(t *Table, pc uint64) *row {
	if u.rows == nil {
		u.rows = new(rowCache)
	}
	e := &u.rows[(pc^pc>>12^uint64(uintptr(unsafe.Pointer(t))>>4))%rowCacheSize]
	if e.t == t && e.pc == pc {
		return e.rw
	}
	rw := t.rowFor(pc)
	e.t, e.pc, e.rw = t, pc, rw
	return rw
}

// frameRegs are the registers of one frame: values, and which are known.
type frameRegs struct {
	v     [numRegs]uint64
	valid uint32
	undef uint32 // registers the CFI marks undefined
}

func (f *frameRegs) get(n uint64) (uint64, bool) {
	if n >= numRegs || f.valid&(1<<n) == 0 {
		return 0, false
	}
	return f.v[n], true
}

func (f *frameRegs) set(n int, v uint64) {
	f.v[n] = v
	f.valid |= 1 << n
	f.undef &^= 1 << n
}

// memReader reads the stack dump of a sample: the bytes at sp and above.
type memReader struct {
	sp   uint64
	data []byte
}

// read reads the 8 bytes at addr. Like perf's access_mem, the last word of
// the dump is out of reach (perf checks addr+8 >= end).
func (m memReader) read(addr uint64) (uint64, Stop) {
	if addr < m.sp || addr+8 < addr || addr+8 >= m.sp+uint64(len(m.data)) {
		return 0, StackEnd
	}
	return binary.LittleEndian.Uint64(m.data[addr-m.sp:]), 0
}

// Unwind walks the stack of one sample from its registers and stack dump
// (the valid bytes, dyn_size of them, starting at the sampled rsp), with
// the objects space maps. It appends to pcs the addresses perf prints:
// the sampled rip first, then, for each caller, its return address minus
// one (the call instruction's last byte, which finds the call's line and
// function). It returns them with the reason it stopped.
func (u *Unwinder) Unwind(regs *Regs, stack []byte, space Space, pcs []uint64) ([]uint64, Stop) {
	const ip, sp, bp = regRA, regSP, regBP
	max := u.MaxDepth
	if max <= 0 {
		max = DefaultMaxDepth
	}
	if regs.Valid&(1<<ip) == 0 || regs.Valid&(1<<sp) == 0 {
		return pcs, NoRegs
	}
	f := frameRegs{v: regs.V, valid: regs.Valid}
	mem := memReader{sp: f.v[sp], data: stack}
	pcs = append(pcs, f.v[ip])
	caller := false // the current frame is a caller: look up pc-1
	cfa := f.v[sp]  // libunwind's CFA of the current frame: its rsp
	for n := 1; ; n++ {
		if n >= max {
			return pcs, MaxDepth
		}
		pc := f.v[ip]
		look := pc
		if caller {
			look--
		}
		t, objAddr, s := space.Find(look)
		if s != 0 {
			return pcs, s
		}
		rw := u.row(t, objAddr)
		prevPC, prevCFA := pc, cfa
		var next frameRegs
		switch rw.stop {
		case 0:
			var s Stop
			var lost bool
			if next, cfa, lost, s = step(rw, &f, mem); s != 0 {
				return pcs, s
			}
			if next.undef&(1<<bp) != 0 {
				// libunwind ends the stack where rbp is undefined
				// (or saved at address 0, see step), before it
				// looks at the return address.
				return pcs, End
			}
			if next.v[ip] == 0 {
				// A null return address, or one past the dump (read
				// as 0): perf's libunwind gives one more frame,
				// address 0 minus one, printed as [unknown].
				pcs = append(pcs, ^uint64(0))
				if lost {
					return pcs, StackEnd
				}
				return pcs, End
			}
		case noFDE:
			// libunwind's guess for code without CFI: the frame
			// pointer chain, if rbp points into the stack a little
			// above rsp.
			rbp, ok := f.get(bp)
			if !ok || rbp == 0 || rbp < cfa || rbp-cfa > 0x4000 {
				return pcs, NoCFI
			}
			// As in step, a word out of the dump reads as 0, and
			// a return address of 0 is one more frame, 0 minus one.
			saved, s1 := mem.read(rbp)
			ra, s2 := mem.read(rbp + 8)
			if ra == 0 {
				pcs = append(pcs, ^uint64(0))
				if s1 != 0 || s2 != 0 {
					return pcs, StackEnd
				}
				return pcs, End
			}
			next = f
			next.set(bp, saved)
			next.set(sp, rbp+16)
			next.set(ip, ra)
			cfa = rbp + 16
		default:
			return pcs, rw.stop
		}
		if next.undef&(1<<bp) != 0 {
			// libunwind ends the stack where rbp is undefined.
			return pcs, End
		}
		if next.v[ip] == 0 {
			return pcs, End
		}
		if next.v[ip] == prevPC && cfa == prevCFA {
			return pcs, NoProgress
		}
		f = next
		// The caller's address less one (the call's last byte), but
		// for the frame a signal trampoline returns to: it was
		// interrupted at that address, which libunwind, hence perf,
		// keeps (and looks up as it is). The trampoline's own frame is
		// printed less one, as any caller's.
		caller = !rw.signal
		out := f.v[ip]
		if caller {
			out--
		}
		pcs = append(pcs, out)
	}
}

// step computes the caller's registers from the row of the current frame,
// and the current frame's CFA. As with perf's libunwind, a register saved
// where the dump does not reach reads as 0 (perf's access_mem gives 0
// there, and libunwind goes on with it); lost says that happened.
func step(rw *row, f *frameRegs, mem memReader) (next frameRegs, cfa uint64, lost bool, stop Stop) {
	read := func(a uint64) uint64 {
		v, s := mem.read(a)
		if s != 0 {
			lost = true
		}
		return v
	}
	if rw.cfaExpr != nil {
		v, s := evalExpr(rw.cfaExpr, 0, false, f, mem)
		switch {
		case s == StackEnd:
			lost = true
		case s != 0:
			return next, 0, false, s
		}
		cfa = v
	} else {
		base, ok := f.get(uint64(rw.cfaReg))
		if !ok {
			return next, 0, false, NoRegs
		}
		cfa = base + uint64(rw.cfaOff)
	}
	next = *f
	for m := rw.changed; m != 0; m &= m - 1 {
		n := bits.TrailingZeros32(m)
		ru := &rw.regs[n]
		switch ru.kind {
		case ruleSame:
		case ruleUndefined:
			next.valid &^= 1 << n
			next.undef |= 1 << n
		case ruleOffset:
			if a := cfa + uint64(ru.off); a != 0 || n != regBP {
				next.set(n, read(a))
			} else {
				// rbp saved at address 0: libunwind takes its
				// location, DWARF_LOC(0), for the null location
				// of an undefined register, which ends the stack
				// on x86-64. It happens when rbp was read as 0
				// from outside the dump and the CFA is rbp+16.
				next.valid &^= 1 << n
				next.undef |= 1 << n
			}
		case ruleValOffset:
			next.set(n, cfa+uint64(ru.off))
		case ruleRegister:
			if v, ok := f.get(uint64(ru.reg)); ok {
				next.set(n, v)
			} else {
				next.valid &^= 1 << n
			}
		case ruleExpression, ruleValExpr:
			a, s := evalExpr(ru.expr, cfa, true, f, mem)
			if s == 0 && ru.kind == ruleExpression {
				a = read(a)
			}
			switch {
			case s == 0:
				next.set(n, a)
			case s == StackEnd:
				lost = true
				next.set(n, 0)
			default:
				next.valid &^= 1 << n
			}
		}
	}
	if rw.regs[regRA].kind == ruleUndefined {
		return next, cfa, lost, End
	}
	if next.valid&(1<<regRA) == 0 {
		return next, cfa, lost, NoRegs
	}
	if rw.regs[regSP].kind == ruleSame {
		// The caller's rsp is the CFA, unless a rule says otherwise.
		next.set(regSP, cfa)
	}
	return next, cfa, lost, 0
}
