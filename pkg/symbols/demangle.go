package symbols

import (
	"strings"

	"github.com/ianlancetaylor/demangle"
)

// Demangle returns name as perf 6.1 built without libbfd prints it
// (Debian's build, which demangles through libiberty's cplus_demangle
// with no options): Rust legacy and v0 names first, then C++ names
// without their parameters, return types or clone suffixes
// (`ns::Acc<long>::work`), then OCaml names (`camlStdlib__array__map_154`
// becomes `Stdlib.array.map_154`). Any other name, Go's included, is
// returned unchanged. Kernel symbols are never demangled by perf.
func Demangle(name string) string {
	if len(name) < 2 {
		return name
	}
	if name[0] == '_' && (name[1] == 'R' || name[1] == 'Z') {
		if s, ok := demangleRust(name); ok {
			return s
		}
	}
	if strings.HasPrefix(name, "_Z") || strings.HasPrefix(name, "_GLOBAL_") {
		if s, err := demangleCxx(name); err == nil {
			return s
		}
	}
	if s, ok := demangleOCaml(name); ok {
		return s
	}
	return name
}

// demangleCxx demangles a C++ name without parameters, guarding against
// a panic of the demangler on a hostile name.
func demangleCxx(name string) (s string, err error) {
	defer func() {
		if r := recover(); r != nil {
			s, err = "", errDemanglePanic
		}
	}()
	return demangle.ToString(name, demangle.NoParams, demangle.NoRust)
}

type demangleError string

func (e demangleError) Error() string { return string(e) }

const errDemanglePanic = demangleError("demangler panicked")

// demangleOCaml decodes an OCaml name ("caml" and an upper-case letter):
// "__" becomes "." and "$xx" the byte of that hexadecimal value.
func demangleOCaml(name string) (string, bool) {
	if len(name) < 5 || !strings.HasPrefix(name, "caml") || name[4] < 'A' || name[4] > 'Z' {
		return "", false
	}
	var b strings.Builder
	b.Grow(len(name))
	for i := 4; i < len(name); {
		switch {
		case name[i] == '_' && i+1 < len(name) && name[i+1] == '_':
			b.WriteByte('.')
			i += 2
		case name[i] == '$' && i+2 < len(name) && isHexByte(name[i+1]) && isHexByte(name[i+2]):
			b.WriteByte(hexVal(name[i+1])<<4 | hexVal(name[i+2]))
			i += 3
		default:
			b.WriteByte(name[i])
			i++
		}
	}
	return b.String(), true
}

func isHexByte(c byte) bool {
	return isDigitByte(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

func hexVal(c byte) byte {
	switch {
	case isDigitByte(c):
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}
