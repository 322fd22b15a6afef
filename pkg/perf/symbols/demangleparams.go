package symbols

import "strings"

// DemangleParams returns name as binutils' addr2line -C and nm -C print
// it (bfd_demangle, libiberty's cplus_demangle with DMGL_PARAMS and
// DMGL_ANSI): leading dots and dollars and any "@suffix" (versions,
// @plt) set aside and put back, then Rust legacy and v0 names, then C++
// names with their parameters and clone suffixes
// ("ns::Acc<long>::work(int) [clone .isra.0]"). Any other name is
// returned unchanged.
func DemangleParams(name string) string {
	i := 0
	for i < len(name) && (name[i] == '.' || name[i] == '$') {
		i++
	}
	pre, core, suf := name[:i], name[i:], ""
	if j := strings.IndexByte(core, '@'); j >= 0 {
		core, suf = core[:j], core[j:]
	}
	if len(core) < 2 || core[0] != '_' {
		return name
	}
	if core[1] == 'R' || core[1] == 'Z' {
		if s, ok := demangleRust(core); ok {
			return pre + s + suf
		}
	}
	if core[1] == 'Z' || strings.HasPrefix(core, "_GLOBAL_") {
		if s, err := demangleCxxWith(core); err == nil {
			return pre + s + suf
		}
	}
	return name
}
