package unwind

// numRegs is the number of DWARF registers the unwinder tracks on x86-64:
// rax..r15 (0 to 15) and the return address (16).
const numRegs = 17

// regRA is the DWARF number of x86-64's return address column.
const regRA = 16

// regSP is the DWARF number of rsp.
const regSP = 7

// regBP is the DWARF number of rbp.
const regBP = 6

// ruleKind is how a register of the caller is found (DWARF 6.4.1).
type ruleKind uint8

const (
	ruleSame       ruleKind = iota // same value (callee-saved, untouched)
	ruleUndefined                  // not recoverable
	ruleOffset                     // saved at CFA+off
	ruleValOffset                  // the value CFA+off
	ruleRegister                   // in register reg
	ruleExpression                 // saved at the address expr computes
	ruleValExpr                    // the value expr computes
)

// rule is the rule of one register.
type rule struct {
	kind ruleKind
	reg  uint8
	off  int64
	expr []byte
}

// row is one row of the CFI table: how to find the CFA and the caller's
// registers at an address.
type row struct {
	cfaReg  uint8 // the CFA is cfaReg+cfaOff, unless cfaExpr is set
	cfaOff  int64
	cfaExpr []byte
	regs    [numRegs]rule
	signal  bool   // the frame of a signal handler's trampoline ("S")
	stop    Stop   // not 0: there is no row (see Table.rowFor)
	changed uint32 // bit n: regs[n] is not ruleSame (see setChanged)
}

// setChanged records which registers the row changes, for step to visit
// those only (most rows change two or three of the seventeen).
func (rw *row) setChanged() {
	rw.changed = 0
	for n := range rw.regs {
		if rw.regs[n].kind != ruleSame {
			rw.changed |= 1 << n
		}
	}
}

// DWARF call frame instructions.
const (
	cfaAdvanceLoc        = 0x40
	cfaOffset            = 0x80
	cfaRestore           = 0xc0
	cfaNop               = 0x00
	cfaSetLoc            = 0x01
	cfaAdvanceLoc1       = 0x02
	cfaAdvanceLoc2       = 0x03
	cfaAdvanceLoc4       = 0x04
	cfaOffsetExtended    = 0x05
	cfaRestoreExtended   = 0x06
	cfaUndefined         = 0x07
	cfaSameValue         = 0x08
	cfaRegister          = 0x09
	cfaRememberState     = 0x0a
	cfaRestoreState      = 0x0b
	cfaDefCFA            = 0x0c
	cfaDefCFARegister    = 0x0d
	cfaDefCFAOffset      = 0x0e
	cfaDefCFAExpression  = 0x0f
	cfaExpression        = 0x10
	cfaOffsetExtendedSF  = 0x11
	cfaDefCFASF          = 0x12
	cfaDefCFAOffsetSF    = 0x13
	cfaValOffset         = 0x14
	cfaValOffsetSF       = 0x15
	cfaValExpression     = 0x16
	cfaGNUWindowSave     = 0x2d
	cfaGNUArgsSize       = 0x2e
	cfaGNUNegOffsetExtSF = 0x2f
)

// maxStates bounds DW_CFA_remember_state nesting (corrupt CFI could push
// without end).
const maxStates = 64

// runCFA runs the instructions insns of a CIE (init nil: it starts from
// the default row) or an FDE (init: the row of its CIE's initial
// instructions), from address loc, until the row of pc is known.
func runCFA(c *cie, insns []byte, init *row, loc, pc uint64) (*row, error) {
	cur := &row{signal: c.signal}
	if init != nil {
		*cur = *init
	}
	var stack []row
	r := &reader{b: insns}
	reg := func() (uint64, bool) { return r.uleb() }
	// set sets the rule of register n, ignoring registers past rip.
	set := func(n uint64, ru rule) {
		if n < numRegs {
			cur.regs[n] = ru
		}
	}
	restore := func(n uint64) {
		if n >= numRegs {
			return
		}
		if init != nil {
			cur.regs[n] = init.regs[n]
		} else {
			cur.regs[n] = rule{}
		}
	}
	advance := func(delta uint64) bool {
		loc += delta * c.codeAlign
		return loc > pc
	}
	for r.left() > 0 {
		op, _ := r.u8()
		switch op & 0xc0 {
		case cfaAdvanceLoc:
			if advance(uint64(op & 0x3f)) {
				return cur, nil
			}
			continue
		case cfaOffset:
			off, ok := r.uleb()
			if !ok {
				return nil, errCFI
			}
			set(uint64(op&0x3f), rule{kind: ruleOffset, off: int64(off) * c.dataAlign})
			continue
		case cfaRestore:
			restore(uint64(op & 0x3f))
			continue
		}
		var ok = true
		switch op {
		case cfaNop:
		case cfaSetLoc:
			var v uint64
			if v, ok = r.pointer(c.fdeEnc&0x0f, pointerBase{}); ok {
				loc = v
				if loc > pc {
					return cur, nil
				}
			}
		case cfaAdvanceLoc1:
			var v byte
			if v, ok = r.u8(); ok && advance(uint64(v)) {
				return cur, nil
			}
		case cfaAdvanceLoc2:
			var v uint16
			if v, ok = r.u16(); ok && advance(uint64(v)) {
				return cur, nil
			}
		case cfaAdvanceLoc4:
			var v uint32
			if v, ok = r.u32(); ok && advance(uint64(v)) {
				return cur, nil
			}
		case cfaOffsetExtended, cfaValOffset:
			n, ok1 := reg()
			off, ok2 := r.uleb()
			ok = ok1 && ok2
			k := ruleOffset
			if op == cfaValOffset {
				k = ruleValOffset
			}
			set(n, rule{kind: k, off: int64(off) * c.dataAlign})
		case cfaOffsetExtendedSF, cfaValOffsetSF:
			n, ok1 := reg()
			off, ok2 := r.sleb()
			ok = ok1 && ok2
			k := ruleOffset
			if op == cfaValOffsetSF {
				k = ruleValOffset
			}
			set(n, rule{kind: k, off: off * c.dataAlign})
		case cfaGNUNegOffsetExtSF:
			n, ok1 := reg()
			off, ok2 := r.uleb()
			ok = ok1 && ok2
			set(n, rule{kind: ruleOffset, off: -int64(off) * c.dataAlign})
		case cfaRestoreExtended:
			var n uint64
			if n, ok = reg(); ok {
				restore(n)
			}
		case cfaUndefined:
			var n uint64
			if n, ok = reg(); ok {
				set(n, rule{kind: ruleUndefined})
			}
		case cfaSameValue:
			var n uint64
			if n, ok = reg(); ok {
				set(n, rule{kind: ruleSame})
			}
		case cfaRegister:
			n, ok1 := reg()
			m, ok2 := reg()
			ok = ok1 && ok2
			if m < numRegs {
				set(n, rule{kind: ruleRegister, reg: uint8(m)})
			} else {
				set(n, rule{kind: ruleUndefined})
			}
		case cfaRememberState:
			if len(stack) >= maxStates {
				return nil, errCFI
			}
			stack = append(stack, *cur)
		case cfaRestoreState:
			if len(stack) == 0 {
				return nil, errCFI
			}
			// The whole row, CFA rule included, as libgcc and
			// libunwind restore it.
			top := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			*cur = top
		case cfaDefCFA:
			n, ok1 := reg()
			off, ok2 := r.uleb()
			ok = ok1 && ok2
			cur.cfaReg, cur.cfaOff, cur.cfaExpr = cfaRegNum(n), int64(off), nil
		case cfaDefCFASF:
			n, ok1 := reg()
			off, ok2 := r.sleb()
			ok = ok1 && ok2
			cur.cfaReg, cur.cfaOff, cur.cfaExpr = cfaRegNum(n), off*c.dataAlign, nil
		case cfaDefCFARegister:
			var n uint64
			if n, ok = reg(); ok {
				cur.cfaReg, cur.cfaExpr = cfaRegNum(n), nil
			}
		case cfaDefCFAOffset:
			var off uint64
			if off, ok = r.uleb(); ok {
				cur.cfaOff, cur.cfaExpr = int64(off), nil
			}
		case cfaDefCFAOffsetSF:
			var off int64
			if off, ok = r.sleb(); ok {
				cur.cfaOff, cur.cfaExpr = off*c.dataAlign, nil
			}
		case cfaDefCFAExpression:
			var e []byte
			if e, ok = r.block(); ok {
				cur.cfaExpr = e
			}
		case cfaExpression, cfaValExpression:
			n, ok1 := reg()
			e, ok2 := r.block()
			ok = ok1 && ok2
			k := ruleExpression
			if op == cfaValExpression {
				k = ruleValExpr
			}
			set(n, rule{kind: k, expr: e})
		case cfaGNUArgsSize:
			_, ok = r.uleb()
		case cfaGNUWindowSave:
		default:
			return nil, errCFI
		}
		if !ok {
			return nil, errCFI
		}
	}
	return cur, nil
}

// cfaRegNum returns the register of a CFA rule; a register the unwinder
// does not track becomes numRegs, which no frame has a value for.
func cfaRegNum(n uint64) uint8 {
	if n >= numRegs {
		return numRegs
	}
	return uint8(n)
}

// block reads a uleb128 length and that many bytes.
func (r *reader) block() ([]byte, bool) {
	n, ok := r.uleb()
	if !ok || n > r.left() {
		return nil, false
	}
	b := r.b[r.pos : r.pos+n]
	r.pos += n
	return b, true
}
