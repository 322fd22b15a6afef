package symbols

import (
	"strconv"
	"strings"

	"github.com/ianlancetaylor/demangle"
)

// Rust demangling as perf 6.1 prints it on this machine: perf demangles
// through libiberty's cplus_demangle with no options, which tries Rust
// first (legacy `_ZN…17h<hash>E` and v0 `_R…`), without the verbose flag:
// legacy hashes are hidden, v0 crate disambiguators and constant types are
// not printed. Legacy names go to github.com/ianlancetaylor/demangle (see
// demangleRustLegacy). v0 names are decoded here because that library
// gets closures wrong: it fails on an empty identifier followed by a
// name (`_RNvNCNvNtCsjrHSEGnQ3l9_3std9panicking12default_hook011FIRST_PANIC`,
// "expected number", where perf prints
// `std::panicking::default_hook::{closure#0}::FIRST_PANIC`) and numbers
// nested closures in the wrong order
// (`_RNCNCNCNvNtCsjrHSEGnQ3l9_3std2rt19lang_start_internal00s_0B9_` gives
// `…{closure#0}::{closure#1}::{closure#0}`, perf
// `…{closure#0}::{closure#0}::{closure#1}`); TestDemangle holds both. Of
// the 19,883 v0 names rustc 1.95's librustc_driver exports, the library
// prints 513 differently from this code, which agrees with the code it
// replaced on all of them and on the 53 legacy names of testdata's
// rustprog.

// rustMaxDepth bounds the recursion of paths and types, as libiberty
// does (1024), so a hostile name cannot exhaust the stack.
const rustMaxDepth = 1024

// demangleRust returns the demangled form of a Rust symbol name and
// whether name is one.
func demangleRust(name string) (s string, ok bool) {
	// Names are demangled by lookups, far from the loading code's guard:
	// a bug of the demangler on a hostile name must not crash the caller.
	defer func() {
		if r := recover(); r != nil {
			s, ok = "", false
		}
	}()
	switch {
	case strings.HasPrefix(name, "_R"):
		return demangleRustV0(name[2:])
	case strings.HasPrefix(name, "_ZN"):
		return demangleRustLegacy(name[3:])
	}
	return "", false
}

// rustIdent is an identifier of a mangled name: its ASCII bytes and, for
// punycode identifiers, the insertion codes.
type rustIdent struct {
	ascii    string
	punycode string
	ok       bool // false when the identifier was empty
}

// rustState is the parser of one name.
type rustState struct {
	sym      string // the name without its "_R" or "_ZN" prefix
	next     int
	err      bool
	skip     int // > 0 while nothing is printed (impl paths, the instantiating crate)
	depth    int
	bound    uint64 // lifetimes bound by enclosing binders
	out      strings.Builder
	maxBytes int
}

func (st *rustState) peek() byte {
	if st.next < len(st.sym) {
		return st.sym[st.next]
	}
	return 0
}

func (st *rustState) eat(c byte) bool {
	if st.peek() == c {
		st.next++
		return true
	}
	return false
}

func (st *rustState) nextByte() byte {
	c := st.peek()
	if c == 0 {
		st.err = true
	} else {
		st.next++
	}
	return c
}

func (st *rustState) print(s string) {
	if st.err || st.skip > 0 {
		return
	}
	if st.out.Len()+len(s) > st.maxBytes {
		// A name that expands past any sane length (backreferences can
		// multiply) is not demangled.
		st.err = true
		return
	}
	st.out.WriteString(s)
}

func isDigitByte(c byte) bool { return c >= '0' && c <= '9' }
func isLowerByte(c byte) bool { return c >= 'a' && c <= 'z' }
func isUpperByte(c byte) bool { return c >= 'A' && c <= 'Z' }

// integer62 parses `_` (0) or base-62 digits ended by `_` (value+1).
func (st *rustState) integer62() uint64 {
	if st.eat('_') {
		return 0
	}
	var x uint64
	for !st.eat('_') && !st.err {
		c := st.nextByte()
		x *= 62
		switch {
		case isDigitByte(c):
			x += uint64(c - '0')
		case isLowerByte(c):
			x += 10 + uint64(c-'a')
		case isUpperByte(c):
			x += 36 + uint64(c-'A')
		default:
			st.err = true
			return 0
		}
	}
	return x + 1
}

// optInteger62 parses an optional TAG followed by a base-62 number.
func (st *rustState) optInteger62(tag byte) uint64 {
	if !st.eat(tag) {
		return 0
	}
	return 1 + st.integer62()
}

func (st *rustState) disambiguator() uint64 { return st.optInteger62('s') }

// hexNibbles parses lowercase hex digits ended by `_`; it returns the
// value (low 64 bits) and the number of digits.
func (st *rustState) hexNibbles() (uint64, int) {
	var v uint64
	n := 0
	for !st.eat('_') {
		c := st.nextByte()
		v <<= 4
		switch {
		case isDigitByte(c):
			v |= uint64(c - '0')
		case c >= 'a' && c <= 'f':
			v |= uint64(10 + c - 'a')
		default:
			st.err = true
			return 0, 0
		}
		n++
	}
	return v, n
}

// ident parses a length-prefixed identifier, with the v0 `u` (punycode)
// prefix and `_` separator.
func (st *rustState) ident() rustIdent {
	var id rustIdent
	puny := false
	puny = st.eat('u')
	c := st.nextByte()
	if !isDigitByte(c) {
		st.err = true
		return id
	}
	n := int(c - '0')
	if c != '0' {
		for isDigitByte(st.peek()) {
			n = n*10 + int(st.nextByte()-'0')
			if n > len(st.sym) {
				st.err = true
				return id
			}
		}
	}
	st.eat('_')
	start := st.next
	if n > len(st.sym)-start {
		st.err = true
		return id
	}
	st.next += n
	ascii := st.sym[start : start+n]
	if puny {
		i := strings.LastIndexByte(ascii, '_')
		var code string
		if i < 0 {
			code, ascii = ascii, ""
		} else {
			code, ascii = ascii[i+1:], ascii[:i]
		}
		if code == "" {
			st.err = true
			return id
		}
		id.punycode = code
	}
	id.ascii = ascii
	id.ok = ascii != "" || id.punycode != ""
	return id
}

func (st *rustState) printIdent(id rustIdent) {
	if st.err || st.skip > 0 {
		return
	}
	if id.punycode == "" {
		st.print(id.ascii)
		return
	}
	s, ok := decodeRustPunycode(id.ascii, id.punycode)
	if !ok {
		st.err = true
		return
	}
	st.print(s)
}

func lowerHex(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	}
	return -1
}

// decodeRustPunycode decodes RFC 3492 punycode (Rust's variant: the
// basic code points come first, before the last `_`).
func decodeRustPunycode(ascii, code string) (string, bool) {
	const (
		base  = 36
		tMin  = 1
		tMax  = 26
		skew  = 38
		first = 700
	)
	out := []rune(ascii)
	damp := uint64(first)
	bias := uint64(72)
	i := uint64(0)
	c := uint64(0x80)
	for pos := 0; pos < len(code); {
		delta, w, k := uint64(0), uint64(1), uint64(0)
		var t uint64
		for {
			k += base
			switch {
			case k <= bias:
				t = tMin
			case k >= bias+tMax:
				t = tMax
			default:
				t = k - bias
			}
			if pos >= len(code) {
				// libiberty prints nothing for such an
				// identifier and goes on.
				return "", true
			}
			d := code[pos]
			pos++
			var v uint64
			switch {
			case isLowerByte(d):
				v = uint64(d - 'a')
			case isDigitByte(d):
				v = 26 + uint64(d-'0')
			default:
				return "", false
			}
			delta += v * w
			w *= base - t
			if delta > 1<<40 || w > 1<<40 {
				return "", false
			}
			if v < t {
				break
			}
		}
		n := uint64(len(out)) + 1
		i += delta
		c += i / n
		i %= n
		if c > 0x10ffff {
			return "", false
		}
		out = append(out, 0)
		copy(out[i+1:], out[i:])
		out[i] = rune(c)
		if pos == len(code) {
			break
		}
		i++
		delta /= damp
		damp = 2
		delta += delta / n
		k = 0
		for delta > ((base-tMin)*tMax)/2 {
			delta /= base - tMin
			k += base
		}
		bias = k + ((base-tMin+1)*delta)/(delta+skew)
	}
	return string(out), true
}

func (st *rustState) enter() bool {
	st.depth++
	if st.depth > rustMaxDepth {
		st.err = true
		return false
	}
	return true
}

func (st *rustState) leave() { st.depth-- }

// backref runs f at the position a `B<base-62>` backreference names.
func (st *rustState) backref(f func()) {
	pos := st.integer62()
	if st.err || st.skip > 0 {
		return
	}
	if pos >= uint64(st.next) {
		// A backreference points strictly backwards.
		st.err = true
		return
	}
	old := st.next
	st.next = int(pos)
	f()
	st.next = old
}

func (st *rustState) path(inValue bool) {
	if st.err || !st.enter() {
		return
	}
	defer st.leave()
	switch tag := st.nextByte(); tag {
	case 'C':
		st.disambiguator()
		st.printIdent(st.ident())
	case 'N':
		ns := st.nextByte()
		if !isLowerByte(ns) && !isUpperByte(ns) {
			st.err = true
			return
		}
		st.path(inValue)
		dis := st.disambiguator()
		id := st.ident()
		if isUpperByte(ns) {
			st.print("::{")
			switch ns {
			case 'C':
				st.print("closure")
			case 'S':
				st.print("shim")
			default:
				st.print(string(rune(ns)))
			}
			if id.ok {
				st.print(":")
				st.printIdent(id)
			}
			st.print("#")
			st.print(strconv.FormatUint(dis, 10))
			st.print("}")
		} else if id.ok {
			st.print("::")
			st.printIdent(id)
		}
	case 'M', 'X', 'Y':
		if tag != 'Y' {
			st.disambiguator()
			st.skip++
			st.path(inValue)
			st.skip--
		}
		st.print("<")
		st.typ()
		if tag != 'M' {
			st.print(" as ")
			st.path(false)
		}
		st.print(">")
	case 'I':
		st.path(inValue)
		if inValue {
			st.print("::")
		}
		st.print("<")
		for i := 0; !st.err && !st.eat('E'); i++ {
			if i > 0 {
				st.print(", ")
			}
			st.genericArg()
		}
		st.print(">")
	case 'B':
		st.backref(func() { st.path(inValue) })
	default:
		st.err = true
	}
}

func (st *rustState) genericArg() {
	switch {
	case st.eat('L'):
		st.lifetime(st.integer62())
	case st.eat('K'):
		st.constant()
	default:
		st.typ()
	}
}

func (st *rustState) lifetime(lt uint64) {
	st.print("'")
	if lt == 0 {
		st.print("_")
		return
	}
	depth := st.bound - lt
	if depth < 26 {
		st.print(string(rune('a' + depth)))
	} else {
		st.print("_")
		st.print(strconv.FormatUint(depth, 10))
	}
}

// binder parses an optional `G` binder and prints `for<'a, 'b> `.
func (st *rustState) binder() {
	if st.err {
		return
	}
	n := st.optInteger62('G')
	if n == 0 {
		return
	}
	if n > 1<<16 {
		st.err = true
		return
	}
	st.print("for<")
	for i := uint64(0); i < n; i++ {
		if i > 0 {
			st.print(", ")
		}
		st.bound++
		st.lifetime(1)
	}
	st.print("> ")
}

func rustBasicType(c byte) string {
	switch c {
	case 'b':
		return "bool"
	case 'c':
		return "char"
	case 'e':
		return "str"
	case 'u':
		return "()"
	case 'a':
		return "i8"
	case 's':
		return "i16"
	case 'l':
		return "i32"
	case 'x':
		return "i64"
	case 'n':
		return "i128"
	case 'i':
		return "isize"
	case 'h':
		return "u8"
	case 't':
		return "u16"
	case 'm':
		return "u32"
	case 'y':
		return "u64"
	case 'o':
		return "u128"
	case 'j':
		return "usize"
	case 'f':
		return "f32"
	case 'd':
		return "f64"
	case 'z':
		return "!"
	case 'p':
		return "_"
	case 'v':
		return "..."
	}
	return ""
}

func (st *rustState) typ() {
	if st.err {
		return
	}
	tag := st.nextByte()
	if b := rustBasicType(tag); b != "" {
		st.print(b)
		return
	}
	if !st.enter() {
		return
	}
	defer st.leave()
	switch tag {
	case 'R', 'Q':
		st.print("&")
		if st.eat('L') {
			if lt := st.integer62(); lt != 0 {
				st.lifetime(lt)
				st.print(" ")
			}
		}
		if tag != 'R' {
			st.print("mut ")
		}
		st.typ()
	case 'P', 'O':
		st.print("*")
		if tag == 'P' {
			st.print("const ")
		} else {
			st.print("mut ")
		}
		st.typ()
	case 'A', 'S':
		st.print("[")
		st.typ()
		if tag == 'A' {
			st.print("; ")
			st.constant()
		}
		st.print("]")
	case 'T':
		st.print("(")
		i := 0
		for ; !st.err && !st.eat('E'); i++ {
			if i > 0 {
				st.print(", ")
			}
			st.typ()
		}
		if i == 1 {
			st.print(",")
		}
		st.print(")")
	case 'F':
		old := st.bound
		st.fnSig()
		st.bound = old
	case 'D':
		st.print("dyn ")
		old := st.bound
		st.binder()
		for i := 0; !st.err && !st.eat('E'); i++ {
			if i > 0 {
				st.print(" + ")
			}
			st.dynTrait()
		}
		st.bound = old
		if !st.eat('L') {
			st.err = true
			return
		}
		if lt := st.integer62(); lt != 0 {
			st.print(" + ")
			st.lifetime(lt)
		}
	case 'B':
		st.backref(st.typ)
	default:
		if st.err {
			return
		}
		st.next--
		st.path(false)
	}
}

func (st *rustState) fnSig() {
	st.binder()
	if st.eat('U') {
		st.print("unsafe ")
	}
	if st.eat('K') {
		var abi string
		if st.eat('C') {
			abi = "C"
		} else {
			id := st.ident()
			if st.err || id.ascii == "" || id.punycode != "" {
				st.err = true
				return
			}
			abi = id.ascii
		}
		st.print("extern \"")
		st.print(strings.ReplaceAll(abi, "_", "-"))
		st.print("\" ")
	}
	st.print("fn(")
	for i := 0; !st.err && !st.eat('E'); i++ {
		if i > 0 {
			st.print(", ")
		}
		st.typ()
	}
	st.print(")")
	if !st.eat('u') {
		st.print(" -> ")
		st.typ()
	}
}

// pathMaybeOpenGenerics prints a trait path of a `dyn` type, leaving its
// generic argument list open when it has one so that associated type
// bindings can follow; it reports whether the list is open.
func (st *rustState) pathMaybeOpenGenerics() bool {
	if st.err || !st.enter() {
		return false
	}
	defer st.leave()
	open := false
	switch {
	case st.eat('B'):
		st.backref(func() { open = st.pathMaybeOpenGenerics() })
	case st.eat('I'):
		st.path(false)
		st.print("<")
		open = true
		for i := 0; !st.err && !st.eat('E'); i++ {
			if i > 0 {
				st.print(", ")
			}
			st.genericArg()
		}
	default:
		st.path(false)
	}
	return open
}

func (st *rustState) dynTrait() {
	if st.err {
		return
	}
	open := st.pathMaybeOpenGenerics()
	for st.eat('p') {
		if open {
			st.print(", ")
		} else {
			st.print("<")
		}
		open = true
		st.printIdent(st.ident())
		st.print(" = ")
		st.typ()
	}
	if open {
		st.print(">")
	}
}

func (st *rustState) constant() {
	if st.err || !st.enter() {
		return
	}
	defer st.leave()
	if st.eat('B') {
		st.backref(st.constant)
		return
	}
	switch tag := st.nextByte(); tag {
	case 'p':
		st.print("_")
	case 'h', 't', 'm', 'y', 'o', 'j':
		st.constUint()
	case 'a', 's', 'l', 'x', 'n', 'i':
		if st.eat('n') {
			st.print("-")
		}
		st.constUint()
	case 'b':
		v, n := st.hexNibbles()
		switch {
		case n != 1:
			st.err = true
		case v == 0:
			st.print("false")
		case v == 1:
			st.print("true")
		default:
			st.err = true
		}
	case 'c':
		v, n := st.hexNibbles()
		if n == 0 || n > 8 {
			st.err = true
			return
		}
		st.print("'")
		switch {
		case v == '\t':
			st.print(`\t`)
		case v == '\r':
			st.print(`\r`)
		case v == '\n':
			st.print(`\n`)
		case v > ' ' && v < '~':
			st.print(string(rune(v)))
		default:
			st.print(`\u{`)
			st.print(strconv.FormatUint(v, 16))
			st.print("}")
		}
		st.print("'")
	default:
		st.err = true
	}
}

func (st *rustState) constUint() {
	if st.err {
		return
	}
	start := st.next
	v, n := st.hexNibbles()
	switch {
	case st.err:
	case n > 16:
		st.print("0x")
		st.print(st.sym[start : start+n])
	case n > 0:
		st.print(strconv.FormatUint(v, 10))
	default:
		st.err = true
	}
}

// maxRustOutput bounds a demangled name (backreferences can make the
// output grow exponentially with the input).
func maxRustOutput(in int) int { return 64*in + 1024 }

func demangleRustV0(sym string) (string, bool) {
	if sym == "" || !isUpperByte(sym[0]) {
		return "", false
	}
	// A '.' starts a suffix that is ignored; the rest must be [_0-9A-Za-z].
	if i := strings.IndexByte(sym, '.'); i >= 0 {
		sym = sym[:i]
	}
	for i := 0; i < len(sym); i++ {
		c := sym[i]
		if c != '_' && !isDigitByte(c) && !isLowerByte(c) && !isUpperByte(c) {
			return "", false
		}
	}
	st := &rustState{sym: sym, maxBytes: maxRustOutput(len(sym))}
	st.path(true)
	if !st.err && st.next < len(sym) {
		// The instantiating crate is not printed.
		st.skip++
		st.path(false)
		st.skip--
	}
	if st.err || st.next != len(sym) {
		return "", false
	}
	return st.out.String(), true
}

// demangleRustLegacy demangles a legacy name (`_ZN…17h<hash>E`, sym
// without its "_ZN") with github.com/ianlancetaylor/demangle, which prints
// what libiberty prints but for one reading: it takes a '_' right after an
// identifier's length as a separator ("4_foo" is "foo"), where libiberty
// keeps it in the identifier ("_foo"; a leading "_$" loses its '_' in
// both). Such identifiers are given one more '_' first, which the library
// then drops.
func demangleRustLegacy(sym string) (string, bool) {
	for i := 0; i < len(sym); i++ {
		c := sym[i]
		if c == '_' || isDigitByte(c) || isLowerByte(c) || isUpperByte(c) ||
			c == '$' || c == '.' || c == ':' || c == '@' {
			continue
		}
		return "", false
	}
	// The name ends with "E", possibly followed by a ".suffix" that is
	// dropped (".llvm.1234"): strip back to an "E" that ends the name or
	// precedes a '.'.
	n := len(sym)
	dot := true
	for n > 0 && !(dot && sym[n-1] == 'E') {
		dot = sym[n-1] == '.'
		n--
	}
	if n == 0 || n-1 < 19 || sym[n-20:n-17] != "17h" || !isLegacyHash(sym[n-18:n-1]) {
		return "", false
	}
	var b strings.Builder
	b.WriteString("_ZN")
	rest := sym[:n-1]
	for len(rest) > 0 {
		l := 0
		i := 0
		for ; i < len(rest) && isDigitByte(rest[i]); i++ {
			l = l*10 + int(rest[i]-'0')
			if l > len(rest) {
				return "", false
			}
		}
		if i == 0 || l == 0 || l > len(rest)-i {
			return "", false
		}
		id := rest[i : i+l]
		if id[0] == '_' && (len(id) == 1 || id[1] != '$') {
			b.WriteString(strconv.Itoa(l + 1))
			b.WriteByte('_')
		} else {
			b.WriteString(rest[:i])
		}
		b.WriteString(id)
		rest = rest[i+l:]
	}
	b.WriteByte('E')
	out, err := demangle.ToString(b.String())
	if err != nil {
		return "", false
	}
	return out, true
}

// isLegacyHash reports whether s is "h" and 16 lowercase hex digits
// holding at least 5 distinct digits.
func isLegacyHash(s string) bool {
	if len(s) != 17 || s[0] != 'h' {
		return false
	}
	var seen uint16
	for i := 1; i < 17; i++ {
		v := lowerHex(s[i])
		if v < 0 {
			return false
		}
		seen |= 1 << v
	}
	n := 0
	for ; seen != 0; seen &= seen - 1 {
		n++
	}
	return n >= 5
}
