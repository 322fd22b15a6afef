package perfdata

import (
	"bytes"
	"encoding/binary"
	"strconv"
	"strings"
)

// This file evaluates a tracepoint's "print fmt" (a C format string and C
// argument expressions over REC->field) the way libtraceevent does for
// perf script, for the subset of C the common tracepoints use: integer
// arithmetic, comparisons, the ternary operator, casts, string fields,
// __get_str, __print_flags and __print_symbolic. A format using anything
// else is not compiled, and the payload falls back to name=value fields.

// printProg is a compiled print format.
type printProg struct {
	segs  []printSeg
	funcs int // the number of %pS/%ps conversions
}

// printSeg is literal text, or one conversion with its argument.
type printSeg struct {
	lit   string
	conv  byte // 0 for a literal; else d, u, x, X, o, c, s, p
	flags string
	width int
	prec  int // -1 when absent
	size  int // operand size in bytes for integers: 1, 2, 4 or 8
	arg   *node
	fidx  int // F, f: the number of the function conversion (see funcSyms)
}

type nodeKind uint8

const (
	nNum nodeKind = iota
	nStr
	nField
	nUnary
	nBinary
	nCond
	nCast
	nFlags
	nSymbolic
)

type flagName struct {
	val int64 // -1 for a name libtraceevent does not know
	str string
	b   []byte // str, for eval (not to be written)
}

type node struct {
	kind   nodeKind
	ident  string // nNum: the name of a constant read as 0
	op     string
	num    uint64
	str    string
	bstr   []byte // str, for eval (not to be written)
	field  *tpField
	a, b   *node
	c      *node
	size   int  // nCast
	signed bool // nCast
	delim  string
	names  []flagName
}

// value is an evaluated argument: a number or a string.
type value struct {
	n     uint64
	s     []byte
	isStr bool
}

// maxWidth caps a conversion's width and precision, and maxDepth the
// nesting of expressions, so that a hostile format cannot make the
// printer allocate or recurse without bound.
const (
	maxWidth = 4096
	maxDepth = 200
)

// compilePrint compiles f's print format; nil when it is not understood.
func compilePrint(f *tpFormat) *printProg {
	src := f.printFmt
	if len(src) < 2 || src[0] != '"' || len(src) > 1<<16 {
		return nil
	}
	lx := &lexer{src: src}
	fmtStr, ok := lx.stringLit()
	if !ok {
		return nil
	}
	var args []*node
	for {
		lx.space()
		if lx.pos >= len(lx.src) {
			break
		}
		if lx.src[lx.pos] != ',' {
			return nil
		}
		lx.pos++
		p := &parser{lx: lx, f: f}
		n := p.expr()
		if n == nil || p.err {
			return nil
		}
		args = append(args, fold(n))
	}
	prog := &printProg{}
	ai := 0
	var lit strings.Builder
	for i := 0; i < len(fmtStr); i++ {
		ch := fmtStr[i]
		if ch != '%' {
			lit.WriteByte(ch)
			continue
		}
		if i+1 < len(fmtStr) && fmtStr[i+1] == '%' {
			lit.WriteByte('%')
			i++
			continue
		}
		seg := printSeg{prec: -1, size: 4}
		j := i + 1
		for j < len(fmtStr) && strings.IndexByte("-+ #0", fmtStr[j]) >= 0 {
			seg.flags += string(fmtStr[j])
			j++
		}
		for j < len(fmtStr) && fmtStr[j] >= '0' && fmtStr[j] <= '9' {
			seg.width = seg.width*10 + int(fmtStr[j]-'0')
			j++
			if seg.width > maxWidth {
				return nil
			}
		}
		if j < len(fmtStr) && fmtStr[j] == '.' {
			j++
			seg.prec = 0
			for j < len(fmtStr) && fmtStr[j] >= '0' && fmtStr[j] <= '9' {
				seg.prec = seg.prec*10 + int(fmtStr[j]-'0')
				j++
				if seg.prec > maxWidth {
					return nil
				}
			}
		}
		nl := 0
		for j < len(fmtStr) && strings.IndexByte("hlzLjt", fmtStr[j]) >= 0 {
			switch fmtStr[j] {
			case 'h':
				nl--
			default:
				nl++
			}
			j++
		}
		switch {
		case nl <= -2:
			seg.size = 1
		case nl == -1:
			seg.size = 2
		case nl >= 1:
			seg.size = 8
		}
		if j >= len(fmtStr) {
			return nil
		}
		conv := fmtStr[j]
		switch conv {
		case 'i':
			conv = 'd'
		case 'd', 'u', 'x', 'X', 'o', 'c', 's':
		case 'p':
			seg.size = 8
			// %pS/%pF print a kernel function with its offset, %ps/%pf
			// without; other extensions (%pM, %pI4 …) are not
			// supported.
			if j+1 < len(fmtStr) && isIdentByte(fmtStr[j+1]) {
				switch fmtStr[j+1] {
				case 'S', 'F':
					conv = 'F'
				case 's', 'f':
					conv = 'f'
				default:
					return nil
				}
				j++
			}
		default:
			return nil
		}
		seg.conv = conv
		if conv == 'F' || conv == 'f' {
			seg.fidx = prog.funcs
			prog.funcs++
		}
		if ai >= len(args) {
			return nil
		}
		seg.arg = args[ai]
		ai++
		if lit.Len() > 0 {
			prog.segs = append(prog.segs, printSeg{lit: lit.String()})
			lit.Reset()
		}
		prog.segs = append(prog.segs, seg)
		i = j
	}
	if ai != len(args) {
		return nil
	}
	if lit.Len() > 0 {
		prog.segs = append(prog.segs, printSeg{lit: lit.String()})
	}
	return prog
}

// funcResolver returns the kernel symbol perf prints for a function
// address: "name+0xoff", or nil when there is none.
type funcResolver func(addr uint64) []byte

// appendFuncSyms appends to dst what the %pS/%ps conversions of p print
// for raw but the address, resolved by fn as the reader reads the record
// (the kernel's maps change as the capture goes on): per conversion, in
// order, a uvarint length and the symbol, length 0 when there is none. It
// is the Aux of the sample's sample.Trace, which run reads back.
func (p *printProg) appendFuncSyms(dst, raw []byte, scratch *[]byte, fn funcResolver) []byte {
	*scratch = (*scratch)[:0]
	for i := range p.segs {
		s := &p.segs[i]
		if s.conv != 'F' && s.conv != 'f' {
			continue
		}
		var sym []byte
		if v, ok := eval(s.arg, raw, scratch); ok && !v.isStr && fn != nil {
			sym = fn(v.n)
		}
		dst = binary.AppendUvarint(dst, uint64(len(sym)))
		dst = append(dst, sym...)
	}
	return dst
}

// funcSym returns the symbol of function conversion k in aux (see
// appendFuncSyms), nil when there is none.
func funcSym(aux []byte, k int) []byte {
	for ; len(aux) > 0; k-- {
		n, w := binary.Uvarint(aux)
		if w <= 0 || n > uint64(len(aux)-w) {
			return nil
		}
		if k == 0 {
			if n == 0 {
				return nil
			}
			return aux[w : w+int(n)]
		}
		aux = aux[w+int(n):]
	}
	return nil
}

// run appends the formatted payload of raw to dst. scratch is reused for
// intermediate strings; aux holds the symbols of the function
// conversions (appendFuncSyms). ok is false when an argument could not be
// evaluated (the caller then prints the fields).
func (p *printProg) run(dst []byte, raw []byte, scratch *[]byte, aux []byte) ([]byte, bool) {
	*scratch = (*scratch)[:0]
	for i := range p.segs {
		s := &p.segs[i]
		if s.conv == 0 {
			dst = append(dst, s.lit...)
			continue
		}
		var ok bool
		if dst, ok = s.print(dst, raw, scratch, aux); !ok {
			return dst, false
		}
	}
	return dst, true
}

// print appends the conversion s of raw to dst.
func (s *printSeg) print(dst, raw []byte, scratch *[]byte, aux []byte) ([]byte, bool) {
	v, ok := eval(s.arg, raw, scratch)
	if !ok {
		return dst, false
	}
	if s.conv == 'F' || s.conv == 'f' {
		var sym []byte
		if !v.isStr {
			sym = funcSym(aux, s.fidx)
		}
		return s.function(dst, v, sym), true
	}
	return s.format(dst, v), true
}

// function prints a kernel function address as libtraceevent's
// print_function does: the symbol (with its offset for %pS), else the
// address in hexadecimal.
func (s *printSeg) function(dst []byte, v value, sym []byte) []byte {
	if sym == nil {
		dst = append(dst, "0x"...)
		return strconv.AppendUint(dst, v.n, 16)
	}
	if s.conv == 'f' {
		if i := lastIndex(sym, "+0x"); i >= 0 {
			sym = sym[:i]
		}
	}
	return append(dst, sym...)
}

func lastIndex(b []byte, sub string) int {
	for i := len(b) - len(sub); i >= 0; i-- {
		if string(b[i:i+len(sub)]) == sub {
			return i
		}
	}
	return -1
}

func (s *printSeg) format(dst []byte, v value) []byte {
	var body []byte
	var tmp [72]byte
	switch s.conv {
	case 's':
		if v.isStr {
			body = v.s
			if i := indexNul(body); i >= 0 {
				body = body[:i]
			}
		} else {
			body = strconv.AppendUint(tmp[:0], v.n, 10)
		}
		if s.prec >= 0 && len(body) > s.prec {
			body = body[:s.prec]
		}
		return pad(dst, body, s.width, strings.IndexByte(s.flags, '-') >= 0, false)
	case 'c':
		tmp[0] = byte(v.n)
		return pad(dst, tmp[:1], s.width, strings.IndexByte(s.flags, '-') >= 0, false)
	case 'p':
		if v.n == 0 {
			body = append(tmp[:0], "(nil)"...)
		} else {
			body = strconv.AppendUint(append(tmp[:0], "0x"...), v.n, 16)
		}
		return pad(dst, body, s.width, strings.IndexByte(s.flags, '-') >= 0, false)
	}
	n := v.n
	if v.isStr {
		n = 0
	}
	switch s.size {
	case 1:
		n &= 0xff
	case 2:
		n &= 0xffff
	case 4:
		n &= 0xffffffff
	}
	left := strings.IndexByte(s.flags, '-') >= 0
	zero := strings.IndexByte(s.flags, '0') >= 0 && !left && s.prec < 0
	switch s.conv {
	case 'd':
		var sv int64
		switch s.size {
		case 1:
			sv = int64(int8(n))
		case 2:
			sv = int64(int16(n))
		case 4:
			sv = int64(int32(n))
		default:
			sv = int64(n)
		}
		body = strconv.AppendInt(tmp[:0], sv, 10)
		if sv >= 0 && strings.IndexByte(s.flags, '+') >= 0 {
			body = append([]byte{'+'}, body...)
		} else if sv >= 0 && strings.IndexByte(s.flags, ' ') >= 0 {
			body = append([]byte{' '}, body...)
		}
	case 'u':
		body = strconv.AppendUint(tmp[:0], n, 10)
	case 'x', 'X', 'o':
		base := 16
		if s.conv == 'o' {
			base = 8
		}
		prefix := ""
		if strings.IndexByte(s.flags, '#') >= 0 && n != 0 {
			prefix = "0x"
			if s.conv == 'X' {
				prefix = "0X"
			} else if s.conv == 'o' {
				prefix = "0"
			}
		}
		digits := strconv.AppendUint(tmp[:0], n, base)
		if s.conv == 'X' {
			for i, c := range digits {
				if c >= 'a' && c <= 'f' {
					digits[i] = c - 'a' + 'A'
				}
			}
		}
		if s.prec > len(digits) {
			digits = append([]byte(strings.Repeat("0", s.prec-len(digits))), digits...)
		}
		if zero && s.width > len(prefix)+len(digits) {
			digits = append([]byte(strings.Repeat("0", s.width-len(prefix)-len(digits))), digits...)
		}
		return pad(dst, append([]byte(prefix), digits...), s.width, left, false)
	}
	if s.prec > 0 {
		neg := len(body) > 0 && (body[0] == '-' || body[0] == '+' || body[0] == ' ')
		digits := len(body)
		if neg {
			digits--
		}
		if s.prec > digits {
			z := strings.Repeat("0", s.prec-digits)
			if neg {
				body = append(append([]byte{body[0]}, z...), body[1:]...)
			} else {
				body = append([]byte(z), body...)
			}
		}
	}
	return pad(dst, body, s.width, left, zero)
}

// pad appends body to dst, padded to width with blanks (or zeros after a
// sign when zero is set).
func pad(dst, body []byte, width int, left, zero bool) []byte {
	n := width - len(body)
	if n <= 0 {
		return append(dst, body...)
	}
	if left {
		dst = append(dst, body...)
		for ; n > 0; n-- {
			dst = append(dst, ' ')
		}
		return dst
	}
	if zero {
		if len(body) > 0 && (body[0] == '-' || body[0] == '+' || body[0] == ' ') {
			dst = append(dst, body[0])
			body = body[1:]
		}
		for ; n > 0; n-- {
			dst = append(dst, '0')
		}
		return append(dst, body...)
	}
	for ; n > 0; n-- {
		dst = append(dst, ' ')
	}
	return append(dst, body...)
}

func indexNul(b []byte) int {
	for i, c := range b {
		if c == 0 {
			return i
		}
	}
	return -1
}

// eval evaluates n over the raw record.
func eval(n *node, raw []byte, scratch *[]byte) (value, bool) {
	switch n.kind {
	case nNum:
		return value{n: n.num}, true
	case nStr:
		return value{s: n.bstr, isStr: true}, true
	case nField:
		f := n.field
		if f.array {
			b := fieldBytes(raw, f)
			if b == nil {
				return value{}, false
			}
			return value{s: b, isStr: true}, true
		}
		if f.offset+f.size > len(raw) {
			return value{}, false
		}
		return value{n: fieldNum(raw, f)}, true
	case nCast:
		v, ok := eval(n.a, raw, scratch)
		if !ok || v.isStr {
			return v, ok
		}
		switch n.size {
		case 1:
			v.n = uint64(uint8(v.n))
			if n.signed {
				v.n = uint64(int64(int8(v.n)))
			}
		case 2:
			v.n = uint64(uint16(v.n))
			if n.signed {
				v.n = uint64(int64(int16(v.n)))
			}
		case 4:
			v.n = uint64(uint32(v.n))
			if n.signed {
				v.n = uint64(int64(int32(v.n)))
			}
		}
		return v, true
	case nUnary:
		v, ok := eval(n.a, raw, scratch)
		if !ok || v.isStr {
			return value{}, false
		}
		switch n.op {
		case "-":
			v.n = -v.n
		case "~":
			v.n = ^v.n
		case "!":
			v.n = b2u(v.n == 0)
		}
		return v, true
	case nCond:
		c, ok := eval(n.a, raw, scratch)
		if !ok || c.isStr {
			return value{}, false
		}
		if c.n != 0 {
			return eval(n.b, raw, scratch)
		}
		return eval(n.c, raw, scratch)
	case nBinary:
		l, ok := eval(n.a, raw, scratch)
		if !ok || l.isStr {
			return value{}, false
		}
		// && and || short-circuit.
		switch n.op {
		case "&&":
			if l.n == 0 {
				return value{}, true
			}
		case "||":
			if l.n != 0 {
				return value{n: 1}, true
			}
		}
		r, ok := eval(n.b, raw, scratch)
		if !ok || r.isStr {
			return value{}, false
		}
		a, b := l.n, r.n
		var x uint64
		switch n.op {
		case "+":
			x = a + b
		case "-":
			x = a - b
		case "*":
			x = a * b
		case "/":
			if b == 0 {
				return value{}, false
			}
			x = a / b
		case "%":
			if b == 0 {
				return value{}, false
			}
			x = a % b
		case "<<":
			x = a << (b & 63)
		case ">>":
			x = a >> (b & 63)
		case "&":
			x = a & b
		case "|":
			x = a | b
		case "^":
			x = a ^ b
		case "==":
			x = b2u(a == b)
		case "!=":
			x = b2u(a != b)
		case "<":
			x = b2u(int64(a) < int64(b))
		case ">":
			x = b2u(int64(a) > int64(b))
		case "<=":
			x = b2u(int64(a) <= int64(b))
		case ">=":
			x = b2u(int64(a) >= int64(b))
		case "&&", "||":
			x = b2u(b != 0)
		default:
			return value{}, false
		}
		return value{n: x}, true
	case nFlags:
		v, ok := eval(n.a, raw, scratch)
		if !ok || v.isStr {
			return value{}, false
		}
		start := len(*scratch)
		val := v.n
		printed := false
		// As libtraceevent's TEP_PRINT_FLAGS: a zero value prints the
		// first entry with an unknown name; entries of value 0 never
		// print otherwise.
		for _, fl := range n.names {
			if val == 0 && fl.val < 0 {
				*scratch = append(*scratch, fl.str...)
				break
			}
			if fl.val > 0 && val&uint64(fl.val) == uint64(fl.val) {
				if printed {
					*scratch = append(*scratch, n.delim...)
				}
				*scratch = append(*scratch, fl.str...)
				printed = true
				val &^= uint64(fl.val)
			}
		}
		if val != 0 {
			if printed {
				*scratch = append(*scratch, n.delim...)
			}
			*scratch = append(*scratch, "0x"...)
			*scratch = strconv.AppendUint(*scratch, val, 16)
		}
		return value{s: (*scratch)[start:len(*scratch):len(*scratch)], isStr: true}, true
	case nSymbolic:
		v, ok := eval(n.a, raw, scratch)
		if !ok || v.isStr {
			return value{}, false
		}
		for _, fl := range n.names {
			if uint64(fl.val) == v.n {
				return value{s: fl.b, isStr: true}, true
			}
		}
		start := len(*scratch)
		*scratch = append(*scratch, "0x"...)
		*scratch = strconv.AppendUint(*scratch, v.n, 16)
		return value{s: (*scratch)[start:len(*scratch):len(*scratch)], isStr: true}, true
	}
	return value{}, false
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// lexer scans C tokens of a print format.
type lexer struct {
	src string
	pos int
}

func (l *lexer) space() {
	for l.pos < len(l.src) && (l.src[l.pos] == ' ' || l.src[l.pos] == '\t' || l.src[l.pos] == '\n') {
		l.pos++
	}
}

// stringLit reads one or more adjacent C string literals.
func (l *lexer) stringLit() (string, bool) {
	var sb strings.Builder
	l.space()
	if l.pos >= len(l.src) || l.src[l.pos] != '"' {
		return "", false
	}
	for l.pos < len(l.src) && l.src[l.pos] == '"' {
		l.pos++
		for {
			if l.pos >= len(l.src) {
				return "", false
			}
			ch := l.src[l.pos]
			l.pos++
			if ch == '"' {
				break
			}
			if ch == '\\' && l.pos < len(l.src) {
				e := l.src[l.pos]
				l.pos++
				switch e {
				case 'n':
					ch = '\n'
				case 't':
					ch = '\t'
				case 'r':
					ch = '\r'
				case '0':
					ch = 0
				default:
					ch = e
				}
			}
			sb.WriteByte(ch)
		}
		l.space()
	}
	return sb.String(), true
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// next returns the next token: an identifier, a number, a string literal
// (with its quotes) or an operator.
func (l *lexer) next() string {
	l.space()
	if l.pos >= len(l.src) {
		return ""
	}
	s := l.pos
	c := l.src[s]
	switch {
	case isIdentByte(c):
		for l.pos < len(l.src) && isIdentByte(l.src[l.pos]) {
			l.pos++
		}
		return l.src[s:l.pos]
	case c == '"':
		if _, ok := l.stringLit(); !ok {
			return ""
		}
		return l.src[s:l.pos]
	}
	for _, op := range []string{"->", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||"} {
		if strings.HasPrefix(l.src[s:], op) {
			l.pos += 2
			return op
		}
	}
	l.pos++
	return l.src[s:l.pos]
}

func (l *lexer) peek() string {
	p := l.pos
	t := l.next()
	l.pos = p
	return t
}

// parser builds expression trees (precedence climbing).
type parser struct {
	lx     *lexer
	f      *tpFormat
	err    bool
	errPos int // where the first error was met
	depth  int
}

var binPrec = map[string]int{
	"||": 1, "&&": 2, "|": 3, "^": 4, "&": 5,
	"==": 6, "!=": 6, "<": 7, ">": 7, "<=": 7, ">=": 7,
	"<<": 8, ">>": 8, "+": 9, "-": 9, "*": 10, "/": 10, "%": 10,
}

func (p *parser) fail() *node {
	if !p.err {
		p.err, p.errPos = true, p.lx.pos
	}
	return nil
}

func (p *parser) expr() *node {
	c := p.binary(1)
	if p.err {
		return nil
	}
	if p.lx.peek() == "?" {
		p.lx.next()
		a := p.expr()
		if p.lx.next() != ":" {
			return p.fail()
		}
		b := p.expr()
		if p.err {
			return nil
		}
		return &node{kind: nCond, a: c, b: a, c: b}
	}
	return c
}

func (p *parser) binary(min int) *node {
	l := p.unary()
	for !p.err {
		op := p.lx.peek()
		prec, ok := binPrec[op]
		if !ok || prec < min {
			break
		}
		p.lx.next()
		r := p.binary(prec + 1)
		if p.err {
			return nil
		}
		l = &node{kind: nBinary, op: op, a: l, b: r}
	}
	return l
}

// castTypes are the C types a cast may name, with their size and sign.
var castTypes = map[string]struct {
	size   int
	signed bool
}{
	"int": {4, true}, "unsigned int": {4, false}, "unsigned": {4, false}, "signed": {4, true},
	"long": {8, true}, "unsigned long": {8, false}, "long long": {8, true}, "unsigned long long": {8, false},
	"short": {2, true}, "unsigned short": {2, false}, "char": {1, true}, "unsigned char": {1, false},
	"u8": {1, false}, "u16": {2, false}, "u32": {4, false}, "u64": {8, false},
	"s8": {1, true}, "s16": {2, true}, "s32": {4, true}, "s64": {8, true},
	"__u8": {1, false}, "__u16": {2, false}, "__u32": {4, false}, "__u64": {8, false},
	"__s8": {1, true}, "__s16": {2, true}, "__s32": {4, true}, "__s64": {8, true},
	"bool": {1, false}, "size_t": {8, false}, "pid_t": {4, true}, "gfp_t": {4, false},
}

func (p *parser) unary() *node {
	if p.depth++; p.depth > maxDepth {
		return p.fail()
	}
	defer func() { p.depth-- }()
	t := p.lx.next()
	switch t {
	case "-", "~", "!":
		a := p.unary()
		if p.err {
			return nil
		}
		return &node{kind: nUnary, op: t, a: a}
	case "+":
		return p.unary()
	case "(":
		// A cast, or a parenthesised expression.
		save := p.lx.pos
		var words []string
		for {
			w := p.lx.next()
			if w == ")" {
				break
			}
			if w == "" || !isIdentByte(w[0]) && w != "*" {
				words = nil
				break
			}
			words = append(words, w)
		}
		if len(words) > 0 {
			name := strings.Join(words, " ")
			if strings.HasSuffix(name, "*") {
				a := p.unary()
				if p.err {
					return nil
				}
				return &node{kind: nCast, size: 8, a: a}
			}
			if ct, ok := castTypes[name]; ok {
				a := p.unary()
				if p.err {
					return nil
				}
				return &node{kind: nCast, size: ct.size, signed: ct.signed, a: a}
			}
		}
		p.lx.pos = save
		e := p.expr()
		if p.err || p.lx.next() != ")" {
			return p.fail()
		}
		return e
	case "":
		return p.fail()
	}
	if t[0] == '"' {
		s, _ := (&lexer{src: t}).stringLit()
		return &node{kind: nStr, str: s, bstr: []byte(s)}
	}
	if t[0] >= '0' && t[0] <= '9' {
		return p.number(t)
	}
	if !isIdentByte(t[0]) {
		return p.fail()
	}
	switch t {
	case "REC":
		if p.lx.next() != "->" {
			return p.fail()
		}
		return p.fieldNode(p.lx.next())
	case "__get_str", "__get_dynamic_array":
		if p.lx.next() != "(" {
			return p.fail()
		}
		name := p.lx.next()
		if p.lx.next() != ")" {
			return p.fail()
		}
		return p.fieldNode(name)
	case "__print_flags", "__print_symbolic":
		return p.flags(t == "__print_flags")
	}
	if p.lx.peek() == "(" {
		return p.fail() // a function libtraceevent may know, this parser not
	}
	// Another name (an enum constant the kernel did not replace):
	// libtraceevent reads it as 0 in an expression (strtoull), and
	// looks it up in a table of its own as a flag's value.
	return &node{kind: nNum, ident: t}
}

// flagValue is libtraceevent's eval_flag of a __print_flags or
// __print_symbolic value: a name (under casts) is looked up in a table
// (-1 when unknown), an expression is computed (-1 when negative).
func flagValue(n *node) (int64, bool) {
	for n.kind == nCast {
		n = n.a
	}
	if n.ident != "" {
		if v, ok := knownNames[n.ident]; ok {
			return int64(v), true
		}
		return -1, true
	}
	v, ok := constant(n)
	if !ok {
		return 0, false
	}
	if int64(v) < 0 {
		return -1, true
	}
	return int64(v), true
}

// knownNames are the constants libtraceevent's eval_flag knows.
var knownNames = map[string]uint64{
	"HI_SOFTIRQ": 0, "TIMER_SOFTIRQ": 1, "NET_TX_SOFTIRQ": 2, "NET_RX_SOFTIRQ": 3,
	"BLOCK_SOFTIRQ": 4, "IRQ_POLL_SOFTIRQ": 5, "TASKLET_SOFTIRQ": 6, "SCHED_SOFTIRQ": 7,
	"HRTIMER_SOFTIRQ": 8, "RCU_SOFTIRQ": 9, "HRTIMER_NORESTART": 0, "HRTIMER_RESTART": 1,
}

func (p *parser) number(t string) *node {
	t = strings.TrimRight(t, "uUlL")
	v, err := strconv.ParseUint(t, 0, 64)
	if err != nil {
		return p.fail()
	}
	return &node{kind: nNum, num: v}
}

func (p *parser) fieldNode(name string) *node {
	for _, list := range [][]tpField{p.f.fields, p.f.common} {
		for i := range list {
			if list[i].name == name {
				return &node{kind: nField, field: &list[i]}
			}
		}
	}
	return p.fail()
}

// flags parses the arguments of __print_flags(val, delim, {v, "s"}, …)
// or __print_symbolic(val, {v, "s"}, …).
func (p *parser) flags(isFlags bool) *node {
	if p.lx.next() != "(" {
		return p.fail()
	}
	n := &node{kind: nSymbolic}
	n.a = p.expr()
	if p.err || p.lx.next() != "," {
		return p.fail()
	}
	if isFlags {
		n.kind = nFlags
		d, ok := p.lx.stringLit()
		if !ok || p.lx.next() != "," {
			return p.fail()
		}
		n.delim = d
	}
	for {
		if p.lx.next() != "{" {
			return p.fail()
		}
		v := p.expr()
		if p.err || p.lx.next() != "," {
			return p.fail()
		}
		// The name is a string, or an expression libtraceevent
		// prints as a number ("{ 0, ((void *)0) }" ends some lists).
		sn := p.expr()
		if p.err || p.lx.next() != "}" {
			return p.fail()
		}
		var s string
		if sn.kind == nStr {
			s = sn.str
		} else if c, ok := constant(sn); ok {
			s = strconv.FormatInt(int64(c), 10)
		} else {
			return p.fail()
		}
		val, ok := flagValue(v)
		if !ok {
			return p.fail()
		}
		n.names = append(n.names, flagName{val, s, []byte(s)})
		switch p.lx.next() {
		case ",":
			continue
		case ")":
			return n
		default:
			return p.fail()
		}
	}
}

// fold replaces the parts of n that read no field by their value, once,
// so that a record does not compute them again: sched_switch's
// prev_state masks are twenty operations on constants.
func fold(n *node) *node {
	if n == nil {
		return nil
	}
	n.a, n.b, n.c = fold(n.a), fold(n.b), fold(n.c)
	if n.kind == nNum || n.kind == nStr {
		return n
	}
	reads := false
	walkFields(n, func(*tpField) { reads = true })
	if reads {
		return n
	}
	var scratch []byte
	v, ok := eval(n, nil, &scratch)
	switch {
	case !ok:
		return n // it fails on every record: leave it to fail
	case v.isStr:
		return &node{kind: nStr, str: string(v.s), bstr: bytes.Clone(v.s)}
	}
	return &node{kind: nNum, num: v.n}
}

// constant evaluates an expression without fields.
func constant(n *node) (uint64, bool) {
	var scratch []byte
	v, ok := eval(n, nil, &scratch)
	if !ok || v.isStr {
		return 0, false
	}
	return v.n, true
}
