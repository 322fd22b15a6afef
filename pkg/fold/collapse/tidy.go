package collapse

import "bytes"

// stripOffset removes a trailing "+0x" and lowercase hex digits
// (s/\+0x[\da-f]+$//): "do_syscall_64+0x71" -> "do_syscall_64"; uppercase
// offsets ("+0x1A") and "+0x10/0x20" are kept, as by Perl.
func stripOffset(b []byte) []byte {
	i := len(b)
	for i > 0 && isLowerHex(b[i-1]) {
		i--
	}
	if i < len(b) && i >= 3 && b[i-1] == 'x' && b[i-2] == '0' && b[i-3] == '+' {
		return b[:i-3]
	}
	return b
}

var anonNS = []byte("(anonymous namespace)")

// skipFrame reports whether Perl's "skip process names" rule drops the
// frame: the symbol starts with '('. flamekit keeps C++ symbols that start
// with "(anonymous namespace)" (a deliberate difference).
func skipFrame(raw []byte) bool {
	return len(raw) > 0 && raw[0] == '(' && !bytes.HasPrefix(raw, anonNS)
}

// goMethodShape matches /\.\(.*\)\./: Go names such as
// net/http.(*Client).Do, whose parentheses are part of the name.
func goMethodShape(b []byte) bool {
	i := bytes.Index(b, []byte(".("))
	if i < 0 {
		return false
	}
	j := bytes.LastIndex(b, []byte(")."))
	return j >= i+2
}

// perlCut is Perl's generic tidy cut: s/\((?!anonymous namespace\)).*//.
func perlCut(b []byte) int {
	for i := 0; i < len(b); i++ {
		if b[i] == '(' && !bytes.HasPrefix(b[i:], anonNS) {
			return i
		}
	}
	return len(b)
}

const operatorChars = "<>=!+-*/%^&|~,"

// argsCut returns where the argument list of a C++ symbol starts, or
// len(b) when it has none. Unlike Perl, which cuts at the first '(', only
// the last top-level parenthesised group (outside <>, [], {}) is removed,
// and only when nothing but qualifiers (" const", " [clone .isra.0]")
// follows it. So "std::function<int (int, int)>::operator()(int)" keeps
// "std::function<int (int, int)>::operator()" and
// "main::{lambda(int, int)#1}::operator()(int, int) const" keeps its
// lambda. Unbalanced names fall back to Perl's rule.
func argsCut(b []byte) int {
	open := bytes.IndexByte(b, '(')
	if open < 0 {
		return len(b)
	}
	if goMethodShape(b) {
		return len(b)
	}
	if javaDescriptor(b[open:]) {
		return open
	}
	depth := 0
	open0, close0 := -1, -1
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c == 'o' && bytes.HasPrefix(b[i:], []byte("operator")) && (i == 0 || !isWord(b[i-1])) {
			j := i + len("operator")
			switch {
			case bytes.HasPrefix(b[j:], []byte("()")), bytes.HasPrefix(b[j:], []byte("[]")):
				j += 2
			default:
				for j < len(b) && bytes.IndexByte([]byte(operatorChars), b[j]) >= 0 {
					j++
				}
			}
			i = j - 1
			continue
		}
		switch c {
		case '(', '<', '[', '{':
			if c == '(' && depth == 0 {
				open0 = i
			}
			depth++
		case ')', '>', ']', '}':
			depth--
			if depth < 0 {
				return perlCut(b)
			}
			if c == ')' && depth == 0 && open0 >= 0 {
				close0 = i
			}
		}
	}
	if depth != 0 {
		return perlCut(b)
	}
	if open0 < 0 || close0 < open0 {
		return len(b)
	}
	// What follows the group must be qualifiers, not more of the name.
	suffix := b[close0+1:]
	if bytes.IndexByte(suffix, '(') >= 0 || bytes.Contains(suffix, []byte("::")) ||
		len(suffix) > 0 && !isSpace(suffix[0]) && suffix[0] != '[' && suffix[0] != '&' {
		return len(b)
	}
	return open0
}

// javaDescriptor reports whether b, from a symbol's first '(', is a JVM
// method descriptor: "(ARGS)RET" as perf-map-agent and JVMs without
// -XX:+DumpPerfMapAtExit's readable names print them, e.g. "()V",
// "(Ljava/lang/String;I)Z", "([B)I". Every argument must be a field
// type; the return type may be cut short (perf truncated long symbols:
// "(Ljava/lang/Object;)Lio/netty/chann"). ';' may already be ':'. Perl cuts
// these at the '(' too (a Java method name has no parentheses), where the
// bracket-aware cut of C++ names would keep them whole: the return type
// follows the group.
func javaDescriptor(b []byte) bool {
	end := bytes.IndexByte(b, ')')
	if end < 0 || b[0] != '(' {
		return false
	}
	args, ret := b[1:end], b[end+1:]
	for len(args) > 0 {
		n := fieldType(args, false)
		if n == 0 {
			return false
		}
		args = args[n:]
	}
	if len(ret) == 0 {
		return false
	}
	if len(ret) == 1 && ret[0] == 'V' {
		return true
	}
	return fieldType(ret, true) == len(ret)
}

// fieldType returns the length of the JVM field type at the start of b
// ("[" dimensions, then one of BCDFIJSZ or "Lclass/Name;"), or 0. With
// cut, a type that the end of b cuts short ("[", "Ljava/la") counts.
func fieldType(b []byte, cut bool) int {
	i := 0
	for i < len(b) && b[i] == '[' {
		i++
	}
	if i == len(b) {
		if cut {
			return i
		}
		return 0
	}
	switch b[i] {
	case 'B', 'C', 'D', 'F', 'I', 'J', 'S', 'Z':
		return i + 1
	case 'L':
		j := i + 1
		for j < len(b) && b[j] != ';' && b[j] != ':' {
			if c := b[j]; c == '(' || c == ')' || c == '<' || c == '>' || isSpace(c) {
				return 0
			}
			j++
		}
		switch {
		case j < len(b) && j > i+1:
			return j + 1 // through the ';'
		case j == len(b) && cut:
			return j
		}
	}
	return 0
}

// tidyGeneric applies Perl's generic tidy to the frame at b (in place) and
// returns its new length: ';' -> ':', argument list removed, quotes deleted.
func tidyGeneric(b []byte) int {
	var special bool
	for i, c := range b {
		switch c {
		case ';':
			b[i] = ':'
		case '(', '"', '\'':
			special = true
		}
	}
	if !special {
		return len(b)
	}
	b = b[:argsCut(b)]
	if bytes.IndexByte(b, '"') < 0 && bytes.IndexByte(b, '\'') < 0 {
		return len(b)
	}
	n := 0
	for _, c := range b {
		if c != '"' && c != '\'' {
			b[n] = c
			n++
		}
	}
	return n
}

// isKernelModule is Perl's --kernel test: the module starts with '[' or
// ends with "vmlinux", and does not contain "unknown".
func isKernelModule(mod []byte) bool {
	return (len(mod) > 0 && mod[0] == '[' || bytes.HasSuffix(mod, []byte("vmlinux"))) &&
		!bytes.Contains(mod, []byte("unknown"))
}

// isJITModule is Perl's --jit test: m:/tmp/perf-\d+\.map:.
func isJITModule(mod []byte) bool {
	for {
		i := bytes.Index(mod, []byte("/tmp/perf-"))
		if i < 0 {
			return false
		}
		mod = mod[i+len("/tmp/perf-"):]
		j := 0
		for j < len(mod) && isDigit(mod[j]) {
			j++
		}
		if j > 0 && bytes.HasPrefix(mod[j:], []byte(".map")) {
			return true
		}
	}
}

// inlineEligible is Perl's test for running addr2line on a module:
// m/(perf-\d+.map|kernel\.|\[[^\]]+\])/ must not match.
func inlineEligible(mod []byte) bool {
	if bytes.Contains(mod, []byte("kernel.")) {
		return false
	}
	for i := 0; i < len(mod); i++ {
		if mod[i] == '[' {
			j := i + 1
			for j < len(mod) && mod[j] != ']' {
				j++
			}
			if j < len(mod) && j > i+1 {
				return false
			}
		}
	}
	rest := mod
	for {
		i := bytes.Index(rest, []byte("perf-"))
		if i < 0 {
			return true
		}
		rest = rest[i+5:]
		j := 0
		for j < len(rest) && isDigit(rest[j]) {
			j++
		}
		// \d+ may give back its last digit to '.'.
		if j > 0 && j+4 <= len(rest) && string(rest[j+1:j+4]) == "map" ||
			j >= 2 && bytes.HasPrefix(rest[j:], []byte("map")) {
			return false
		}
	}
}
