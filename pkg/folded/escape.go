package folded

// AppendStack appends stack to dst as a line of kind must hold it to be
// read back as that stack, by flamekit and by the Perl tools: the one
// escaping rule of every writer. A blank that would make the line misread
// is written '_':
//   - in a classic line, the blank before a trailing number ("Evil 5", a
//     perf-map symbol): "Evil 5 10" reads as differential, in flamegraph.pl
//     as here, and "Evil_5 10" does not;
//   - in any line, the blank after the '#' of a stack that begins as a
//     metadata line ("# flamekit v1 timed x;leaf"), which a reader would
//     take for one.
//
// Timed and differential lines need no other escape: their counts are
// read from the end, a fixed number of fields. escaped says whether
// stack was changed.
func AppendStack(dst, stack []byte, kind Kind) (out []byte, escaped bool) {
	start := len(dst)
	dst = append(dst, stack...)
	s := dst[start:]
	if IsMeta(s) {
		s[1] = '_'
		escaped = true
	}
	if kind == Classic {
		if i := trailingNumber(s); i > 0 {
			s[i-1] = '_'
			escaped = true
		}
	}
	return dst, escaped
}

// NeedsEscape reports whether AppendStack would change stack.
func NeedsEscape(stack []byte, kind Kind) bool {
	return IsMeta(stack) || kind == Classic && trailingNumber(stack) > 0
}

// trailingNumber returns where the number that ends stack after a blank
// starts, when a classic line of stack would read it as a count (or fail
// on it as one); 0 for none.
func trailingNumber(stack []byte) int {
	_, num, ok := lastCount(stack)
	if !ok {
		return 0
	}
	if _, ok := ParseCount(num); ok || CountSyntax(num) {
		return len(stack) - len(num)
	}
	return 0
}

// TrimStack returns stack without its trailing empty frames: "a;b;;" is
// "a;b", as Perl's split reads it (flamegraph.pl draws no empty leaf).
// Empty frames inside a stack ("a;;b") stay. Every tool that splits a
// stack into frames applies it.
func TrimStack[S ~string | ~[]byte](stack S) S {
	n := len(stack)
	for n > 0 && stack[n-1] == ';' {
		n--
	}
	return stack[:n]
}
