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

// mayDemangle reports whether Demangle can change name: false means
// Demangle(name) == name, cheaply.
func mayDemangle(name string) bool {
	if len(name) < 2 {
		return false
	}
	if name[0] == '_' {
		return name[1] == 'R' || name[1] == 'Z' || strings.HasPrefix(name, "_GLOBAL_")
	}
	return len(name) >= 5 && strings.HasPrefix(name, "caml") && name[4] >= 'A' && name[4] <= 'Z'
}

// demangleCxx demangles a C++ name as libiberty's cplus_demangle without
// DMGL_PARAMS prints it, guarding against a panic of the demangler on a
// hostile name. github.com/ianlancetaylor/demangle with NoParams parses
// the same way at the top level; two printing differences are fixed up
// on its tree: libiberty prints the address of a function in a template
// argument with the function's type unless the function's name is a
// plain qualified name ("&(unsigned int f<T>(T const&))" but
// "&Events::log_class_loading"),
// and does not put a space between two closing '>' when the inner list
// ends with an empty argument pack ("SPrintFImpl<std::basic_string_view<
// char, std::char_traits<char> >>").
func demangleCxx(name string) (s string, err error) {
	return demangleCxxWith(name, demangle.NoParams)
}

// demangleCxxWith is demangleCxx with the demangler's options opts
// (demangle.NoParams, or none for addr2line's spelling).
func demangleCxxWith(name string, opts ...demangle.Option) (s string, err error) {
	defer func() {
		if r := recover(); r != nil {
			s, err = "", errDemanglePanic
		}
	}()
	a, err := demangle.ToAST(name, append(opts, demangle.NoRust, maxCxxOption)...)
	if err != nil {
		return "", err
	}
	fixed := false
	if needsLibibertyStyle(a) {
		if c := a.Copy(libibertyStyle(&fixed), noSkip); c != nil {
			a = c
		}
	}
	s = demangle.ASTToString(a, maxCxxOption)
	if fixed {
		s = strings.ReplaceAll(s, ", "+trailingEmptyMark, "")
		s = strings.ReplaceAll(s, trailingEmptyMark, "")
		s = strings.ReplaceAll(s, emptyMark, "")
	}
	return s, nil
}

// libiberty prints an argument list as its first element followed, when
// there are more, by ", " and the rest, taking the ", " back when the
// rest printed nothing; the demangler instead skips empty argument packs
// wherever they are. So an empty pack that is followed by a non-empty
// element is replaced by emptyMark (printed, then deleted, leaving its
// ", "): "CallOnce<, void>"; and a run of empty packs that ends a list is
// replaced by trailingEmptyMark, deleted with the ", " before it, which
// also keeps the printer from putting a space between two closing '>'
// (libiberty's last printed character is then that ' ').
const (
	emptyMark         = "\x01"
	trailingEmptyMark = "\x00"
)

// libibertyList rewrites an argument list (see emptyMark) and its
// elements; it reports whether anything changed.
func libibertyList(args []demangle.AST, rewrite func(demangle.AST) demangle.AST, marked *bool) ([]demangle.AST, bool) {
	k := len(args)
	for k > 0 && emptyPack(args[k-1]) {
		k--
	}
	changed := false
	out := make([]demangle.AST, 0, k+1)
	for i := 0; i < k; i++ {
		a := args[i]
		switch {
		case emptyPack(a):
			a = &demangle.Name{Name: emptyMark}
			changed = true
		default:
			if c := a.Copy(rewrite, noSkip); c != nil {
				a, changed = c, true
			}
		}
		out = append(out, a)
	}
	if k < len(args) && k > 0 {
		out = append(out, &demangle.Name{Name: trailingEmptyMark})
		changed = true
	} else if k < len(args) {
		out = append(out, args[k:]...)
	}
	if changed {
		*marked = true
	}
	return out, changed
}

// needsLibibertyStyle reports whether a tree has what libibertyStyle
// rewrites (most names do not, and the rewrite copies the tree).
func needsLibibertyStyle(a demangle.AST) bool {
	need := false
	a.Traverse(func(x demangle.AST) bool {
		switch x := x.(type) {
		case *demangle.ArgumentPack, *demangle.PackExpansion, *demangle.ExprList:
			need = true
		case *demangle.Unary:
			if op, ok := x.Op.(*demangle.Operator); ok && op.Name == "&" {
				need = true
			}
		}
		return !need
	})
	return need
}

// libibertyStyle returns the tree rewrite of demangleCxx; *marked is set
// when an emptyPackMark was added.
func libibertyStyle(marked *bool) func(demangle.AST) demangle.AST {
	var rewrite func(demangle.AST) demangle.AST
	rewrite = func(a demangle.AST) demangle.AST {
		switch a := a.(type) {
		case *demangle.Unary:
			op, ok := a.Op.(*demangle.Operator)
			if !ok || op.Name != "&" {
				return nil
			}
			t, ok := a.Expr.(*demangle.Typed)
			if !ok {
				return nil
			}
			if _, ok := t.Type.(*demangle.FunctionType); !ok {
				return nil
			}
			if q, ok := t.Name.(*demangle.Qualified); ok && !q.LocalName {
				// libiberty drops the type of a qualified
				// name's function, as the demangler does.
				return nil
			}
			u := *a
			inner := t.Copy(rewrite, noSkip)
			if inner == nil {
				inner = t
			}
			u.Expr = &demangle.Special{Prefix: "", Val: inner}
			return &u
		case *demangle.Template:
			args, changed := libibertyList(a.Args, rewrite, marked)
			name := a.Name.Copy(rewrite, noSkip)
			if !changed && name == nil {
				return nil
			}
			t := *a
			t.Args = args
			if name != nil {
				t.Name = name
			}
			return &t
		case *demangle.FunctionType:
			args, changed := libibertyList(a.Args, rewrite, marked)
			ret := a.Return
			if ret != nil {
				if c := ret.Copy(rewrite, noSkip); c != nil {
					ret, changed = c, true
				}
			}
			if !changed {
				return nil
			}
			f := *a
			f.Args, f.Return = args, ret
			return &f
		}
		return nil
	}
	return rewrite
}

// emptyPack reports whether a template argument prints as nothing (an
// empty argument pack).
func emptyPack(a demangle.AST) bool {
	switch a := a.(type) {
	case *demangle.ArgumentPack:
		for _, x := range a.Args {
			if !emptyPack(x) {
				return false
			}
		}
		return true
	case *demangle.ExprList:
		return len(a.Exprs) == 0
	case *demangle.PackExpansion:
		return a.Pack != nil && emptyPack(a.Base)
	}
	return false
}

// maxCxxOutput bounds a demangled C++ name (substitutions can make the
// output grow exponentially with the input); longer names are cut.
const maxCxxOutput = 1 << 20

var maxCxxOption = demangle.MaxLength(20)

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

func noSkip(demangle.AST) bool { return false }

// ctorVariants reports, without demangling them, that two mangled names
// are two variants of one C++ constructor (C1 and C2: complete and base
// object) or destructor (D0, D1, D2) of a plain nested name:
// "_ZN" ["K"] <source-name>+ C|D <digit> ..., the same but for that
// digit. Demangle prints them alike, or, if it cannot demangle them,
// returns both unchanged (then they are of one length and have one
// leading underscore): choose_best_symbol cannot tell them apart by name
// and keeps the first. The C++ demangler reads the name from the left,
// in nestedName's prefix loop: the N, the K (a cv-qualifier), each
// source-name (its length, then as many bytes; only a 'B' after it would
// start an ABI tag), then the C or D, whose variant digit is checked and
// not kept (Constructor and Destructor do not record it); with
// NoParams nothing after the nested name is read at all. Whatever it
// does before the digit, it does alike with both names. The Rust legacy
// demangler, tried first, is asked about both.
func ctorVariants(a, b string) bool {
	if len(a) != len(b) || len(a) < 7 || a[:3] != "_ZN" || b[:3] != "_ZN" {
		return false
	}
	p := 3 // the position of the variant digit
	if a[p] == 'K' {
		p++
	}
	comps := 0
	for p < len(a) && isDigitByte(a[p]) {
		n := 0
		for p < len(a) && isDigitByte(a[p]) {
			if n = n*10 + int(a[p]-'0'); n > len(a) {
				return false
			}
			p++
		}
		if n == 0 || n > len(a)-p {
			return false
		}
		p += n
		comps++
	}
	if comps == 0 || p+1 >= len(a) || a[:p+1] != b[:p+1] || a[p+2:] != b[p+2:] {
		return false
	}
	variants := "12"
	if a[p] == 'D' {
		variants = "012"
	} else if a[p] != 'C' {
		return false
	}
	if strings.IndexByte(variants, a[p+1]) < 0 || strings.IndexByte(variants, b[p+1]) < 0 {
		return false
	}
	_, okA := demangleRust(a)
	_, okB := demangleRust(b)
	return !okA && !okB
}
