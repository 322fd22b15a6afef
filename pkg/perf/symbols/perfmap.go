package symbols

import (
	"debug/elf"
	"strings"
)

// ParsePerfMap builds the table of a JIT perf map's content
// (/tmp/perf-PID.map: lines "START SIZE name", hexadecimal numbers with
// or without 0x, absolute addresses, names that may hold blanks) the way
// perf 6.1 reads it: the last character of each line is dropped (the
// newline, or the last character of a final line without one), lines
// whose name would be two characters or fewer are skipped, and no end or
// duplicate fix-up is done, so entries that overlap are found as perf's
// tree finds them. It returns the table and the number of lines skipped.
func ParsePerfMap(data []byte) (*Table, int) {
	// The names are cut from one copy of the file.
	text := string(data)
	b := builder{text: text}
	skipped := 0
	for len(text) > 0 {
		var l string
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			l, text = text[:i+1], text[i+1:]
		} else {
			l, text = text, ""
		}
		l = l[:len(l)-1]
		start, n := strtoull16(l)
		n++
		if n+2 >= len(l) {
			skipped++
			continue
		}
		size, m := strtoull16(l[n:])
		n += m + 1
		if n+2 >= len(l) {
			skipped++
			continue
		}
		b.add(start, start+size, l[n:], elf.STB_GLOBAL)
	}
	b.sortByStart()
	return b.build(), skipped
}

// strtoull16 parses a number as C's strtoull(s, &end, 16) does (leading
// blanks, a sign, an optional 0x, hexadecimal digits, saturating at the
// maximum) and returns it with the count of bytes it used (0 when there
// were no digits).
func strtoull16(s string) (uint64, int) {
	i := 0
	for i < len(s) && (s[i] == ' ' || (s[i] >= '\t' && s[i] <= '\r')) {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	if i+2 < len(s) && s[i] == '0' && (s[i+1] == 'x' || s[i+1] == 'X') && isHexByte(s[i+2]) {
		i += 2
	}
	startDigits := i
	var v uint64
	over := false
	for i < len(s) && isHexByte(s[i]) {
		d := uint64(hexVal(s[i]))
		if v > (^uint64(0)-d)/16 {
			over = true
		}
		v = v*16 + d
		i++
	}
	if i == startDigits {
		return 0, 0
	}
	if over {
		return ^uint64(0), i
	}
	if neg {
		v = -v
	}
	return v, i
}
