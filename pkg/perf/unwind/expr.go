package unwind

// DWARF expression operations the CFI of x86-64 objects uses (PLT
// entries, signal trampolines, realigned stacks) and the arithmetic
// around them.
const (
	opAddr       = 0x03
	opDeref      = 0x06
	opConst1u    = 0x08
	opConst1s    = 0x09
	opConst2u    = 0x0a
	opConst2s    = 0x0b
	opConst4u    = 0x0c
	opConst4s    = 0x0d
	opConst8u    = 0x0e
	opConst8s    = 0x0f
	opConstu     = 0x10
	opConsts     = 0x11
	opDup        = 0x12
	opDrop       = 0x13
	opOver       = 0x14
	opPick       = 0x15
	opSwap       = 0x16
	opRot        = 0x17
	opAbs        = 0x19
	opAnd        = 0x1a
	opDiv        = 0x1b
	opMinus      = 0x1c
	opMod        = 0x1d
	opMul        = 0x1e
	opNeg        = 0x1f
	opNot        = 0x20
	opOr         = 0x21
	opPlus       = 0x22
	opPlusUconst = 0x23
	opShl        = 0x24
	opShr        = 0x25
	opShra       = 0x26
	opXor        = 0x27
	opBra        = 0x28
	opEq         = 0x29
	opGe         = 0x2a
	opGt         = 0x2b
	opLe         = 0x2c
	opLt         = 0x2d
	opNe         = 0x2e
	opSkip       = 0x2f
	opLit0       = 0x30
	opLit31      = 0x4f
	opReg0       = 0x50
	opReg31      = 0x6f
	opBreg0      = 0x70
	opBreg31     = 0x8f
	opRegx       = 0x90
	opBregx      = 0x92
	opDerefSize  = 0x94
	opNop        = 0x96
)

// maxExprSteps bounds the operations one expression runs (branches could
// loop).
const maxExprSteps = 1000

// evalExpr runs a DWARF expression with push (when hasPush) already on
// its stack; regs gives register values, mem reads memory.
func evalExpr(e []byte, push uint64, hasPush bool, f *frameRegs, mem memReader) (uint64, Stop) {
	var st [64]uint64
	n := 0
	if hasPush {
		st[0], n = push, 1
	}
	r := &reader{b: e}
	pushv := func(v uint64) bool {
		if n == len(st) {
			return false
		}
		st[n] = v
		n++
		return true
	}
	for steps := 0; r.left() > 0; steps++ {
		if steps > maxExprSteps {
			return 0, BadCFI
		}
		op, _ := r.u8()
		ok := true
		switch {
		case op >= opLit0 && op <= opLit31:
			ok = pushv(uint64(op - opLit0))
		case op >= opBreg0 && op <= opBreg31, op == opBregx:
			regn := uint64(op - opBreg0)
			if op == opBregx {
				regn, ok = r.uleb()
			}
			off, ok2 := r.sleb()
			if !ok || !ok2 {
				return 0, BadCFI
			}
			v, have := f.get(regn)
			if !have {
				return 0, NoRegs
			}
			ok = pushv(v + uint64(off))
		case op >= opReg0 && op <= opReg31, op == opRegx:
			// A register location, not a value: not in CFI.
			return 0, BadCFI
		default:
			if s := evalOp(op, r, &st, &n, mem); s != 0 {
				return 0, s
			}
		}
		if !ok {
			return 0, BadCFI
		}
	}
	if n == 0 {
		return 0, BadCFI
	}
	return st[n-1], 0
}

// evalOp runs one operation other than a literal or a register.
func evalOp(op byte, r *reader, st *[64]uint64, n *int, mem memReader) Stop {
	push := func(v uint64) bool {
		if *n == len(st) {
			return false
		}
		st[*n] = v
		*n++
		return true
	}
	pop := func() (uint64, bool) {
		if *n == 0 {
			return 0, false
		}
		*n--
		return st[*n], true
	}
	constant := func(v uint64, ok bool) Stop {
		if !ok || !push(v) {
			return BadCFI
		}
		return 0
	}
	binop := func(f func(a, b uint64) (uint64, bool)) Stop {
		b, ok1 := pop()
		a, ok2 := pop()
		if !ok1 || !ok2 {
			return BadCFI
		}
		v, ok := f(a, b)
		if !ok {
			return BadCFI
		}
		push(v)
		return 0
	}
	b2u := func(c bool) uint64 {
		if c {
			return 1
		}
		return 0
	}
	switch op {
	case opNop:
		return 0
	case opAddr, opConst8u, opConst8s:
		return constant(r.u64())
	case opConst1u:
		v, ok := r.u8()
		return constant(uint64(v), ok)
	case opConst1s:
		v, ok := r.u8()
		return constant(uint64(int64(int8(v))), ok)
	case opConst2u:
		v, ok := r.u16()
		return constant(uint64(v), ok)
	case opConst2s:
		v, ok := r.u16()
		return constant(uint64(int64(int16(v))), ok)
	case opConst4u:
		v, ok := r.u32()
		return constant(uint64(v), ok)
	case opConst4s:
		v, ok := r.u32()
		return constant(uint64(int64(int32(v))), ok)
	case opConstu:
		return constant(r.uleb())
	case opConsts:
		v, ok := r.sleb()
		return constant(uint64(v), ok)
	case opDup:
		if *n == 0 {
			return BadCFI
		}
		return constant(st[*n-1], true)
	case opDrop:
		if _, ok := pop(); !ok {
			return BadCFI
		}
	case opOver:
		if *n < 2 {
			return BadCFI
		}
		return constant(st[*n-2], true)
	case opPick:
		i, ok := r.u8()
		if !ok || int(i) >= *n {
			return BadCFI
		}
		return constant(st[*n-1-int(i)], true)
	case opSwap:
		if *n < 2 {
			return BadCFI
		}
		st[*n-1], st[*n-2] = st[*n-2], st[*n-1]
	case opRot:
		if *n < 3 {
			return BadCFI
		}
		st[*n-1], st[*n-2], st[*n-3] = st[*n-2], st[*n-3], st[*n-1]
	case opDeref, opDerefSize:
		size := byte(8)
		if op == opDerefSize {
			var ok bool
			if size, ok = r.u8(); !ok || size == 0 || size > 8 {
				return BadCFI
			}
		}
		a, ok := pop()
		if !ok {
			return BadCFI
		}
		v, s := mem.read(a)
		if s != 0 {
			return s
		}
		if size < 8 {
			v &= 1<<(8*uint(size)) - 1
		}
		push(v)
	case opAbs, opNeg, opNot:
		a, ok := pop()
		if !ok {
			return BadCFI
		}
		switch op {
		case opAbs:
			if int64(a) < 0 {
				a = -a
			}
		case opNeg:
			a = -a
		default:
			a = ^a
		}
		push(a)
	case opPlusUconst:
		c, ok := r.uleb()
		a, ok2 := pop()
		if !ok || !ok2 {
			return BadCFI
		}
		push(a + c)
	case opAnd:
		return binop(func(a, b uint64) (uint64, bool) { return a & b, true })
	case opOr:
		return binop(func(a, b uint64) (uint64, bool) { return a | b, true })
	case opXor:
		return binop(func(a, b uint64) (uint64, bool) { return a ^ b, true })
	case opPlus:
		return binop(func(a, b uint64) (uint64, bool) { return a + b, true })
	case opMinus:
		return binop(func(a, b uint64) (uint64, bool) { return a - b, true })
	case opMul:
		return binop(func(a, b uint64) (uint64, bool) { return a * b, true })
	case opDiv:
		return binop(func(a, b uint64) (uint64, bool) {
			if b == 0 {
				return 0, false
			}
			return uint64(int64(a) / int64(b)), true
		})
	case opMod:
		return binop(func(a, b uint64) (uint64, bool) {
			if b == 0 {
				return 0, false
			}
			return a % b, true
		})
	case opShl:
		return binop(func(a, b uint64) (uint64, bool) { return a << (b & 63), true })
	case opShr:
		return binop(func(a, b uint64) (uint64, bool) { return a >> (b & 63), true })
	case opShra:
		return binop(func(a, b uint64) (uint64, bool) { return uint64(int64(a) >> (b & 63)), true })
	case opEq:
		return binop(func(a, b uint64) (uint64, bool) { return b2u(a == b), true })
	case opNe:
		return binop(func(a, b uint64) (uint64, bool) { return b2u(a != b), true })
	case opGe:
		return binop(func(a, b uint64) (uint64, bool) { return b2u(int64(a) >= int64(b)), true })
	case opGt:
		return binop(func(a, b uint64) (uint64, bool) { return b2u(int64(a) > int64(b)), true })
	case opLe:
		return binop(func(a, b uint64) (uint64, bool) { return b2u(int64(a) <= int64(b)), true })
	case opLt:
		return binop(func(a, b uint64) (uint64, bool) { return b2u(int64(a) < int64(b)), true })
	case opSkip, opBra:
		v, ok := r.u16()
		if !ok {
			return BadCFI
		}
		if op == opBra {
			c, ok := pop()
			if !ok {
				return BadCFI
			}
			if c == 0 {
				return 0
			}
		}
		to := int64(r.pos) + int64(int16(v))
		if to < 0 || to > int64(len(r.b)) {
			return BadCFI
		}
		r.pos = uint64(to)
	default:
		return BadCFI
	}
	return 0
}
