package collapse

import (
	"errors"
	"strings"
	"sync"

	"flamekit/internal/base/safefile"
	"flamekit/pkg/perf/dwarfline"
)

// inliner expands a user-space address into its chain of inlined
// functions, as --inline does in stackcollapse-perf.pl through
// `addr2line -i -f -s -C`, reading the object's DWARF itself (package
// dwarfline) instead of running addr2line per address. Results are cached
// per (address, module), each object read once; it is safe for
// concurrent use.
type inliner struct {
	context bool
	mu      sync.Mutex
	cache   map[string]string
	modules map[string]*dwarfline.Module
	warned  map[string]bool // the causes said once
	warn    func(format string, args ...any)
	opts    dwarfline.Options
	object  func(dso string) (string, bool) // Driver.InlineObject
}

func newInliner(context bool, warn func(string, ...any)) *inliner {
	return &inliner{context: context, cache: map[string]string{}, modules: map[string]*dwarfline.Module{},
		warned: map[string]bool{}, warn: warn}
}

// resolve returns the frames for pc in module, outermost first, joined by
// ';' ("" when addr2line would know nothing).
func (in *inliner) resolve(pc, rawfunc, module []byte) string {
	key := string(pc) + "\x00" + string(module)
	in.mu.Lock()
	r, ok := in.cache[key]
	in.mu.Unlock()
	if ok {
		return r
	}
	if m := in.module(string(module)); m != nil {
		r = in.lookup(scanVMA(pc), string(rawfunc), m)
	}
	in.mu.Lock()
	in.cache[key] = r
	in.mu.Unlock()
	return r
}

// module returns the object frames call path, read on first use; nil
// when Driver.InlineObject forbids reading it.
func (in *inliner) module(path string) *dwarfline.Module {
	in.mu.Lock()
	m, ok := in.modules[path]
	in.mu.Unlock()
	if ok {
		return m
	}
	file, allowed := path, true
	if in.object != nil {
		if f, ok := in.object(path); !ok {
			allowed = false
		} else if f != "" {
			file = f
		}
	}
	if allowed {
		m = dwarfline.Open(file, in.opts)
	}
	in.mu.Lock()
	if prev, ok := in.modules[path]; ok {
		m, allowed = prev, false // another worker opened it first
	} else {
		in.modules[path] = m
	}
	in.mu.Unlock()
	if m != nil && allowed {
		if err := m.Err(); err != nil {
			in.warnOnce(m, err)
		}
	}
	return m
}

// lookup is Perl's addr2line call: the chain of pc, and when addr2line
// would answer ??, the chain at the address of rawfunc's symbol (as nm
// prints it) plus its offset.
func (in *inliner) lookup(pc uint64, rawfunc string, m *dwarfline.Module) string {
	frames := m.Lookup(pc)
	if isUnknown(frames) {
		if i := strings.LastIndex(rawfunc, "+0x"); i > 0 && isLowerHexString(rawfunc[i+3:]) {
			if base, ok := m.SymbolAddr(rawfunc[:i]); ok {
				return in.lookup(base+scanVMA([]byte(rawfunc[i+3:])), "", m)
			}
		}
	}
	var b strings.Builder
	// addr2line prints the innermost function first.
	for i := len(frames) - 1; i >= 0; i-- {
		if b.Len() > 0 {
			b.WriteByte(';')
		}
		b.WriteString(frames[i].Func)
		if in.context {
			b.WriteByte(':')
			b.WriteString(frames[i].Loc)
		}
	}
	return b.String()
}

func isUnknown(frames []dwarfline.Frame) bool {
	for _, f := range frames {
		if f.Func == "??" && f.Loc == "??:0" {
			return true
		}
	}
	return false
}

// scanVMA reads an address as addr2line does (bfd_scan_vma, base 16): an
// optional 0x, then hexadecimal digits up to the first other byte.
func scanVMA(s []byte) uint64 {
	if len(s) > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') {
		s = s[2:]
	}
	var v uint64
	for _, c := range s {
		switch {
		case c >= '0' && c <= '9':
			v = v<<4 | uint64(c-'0')
		case c >= 'a' && c <= 'f':
			v = v<<4 | uint64(c-'a'+10)
		case c >= 'A' && c <= 'F':
			v = v<<4 | uint64(c-'A'+10)
		default:
			return v
		}
	}
	return v
}

func isLowerHexString(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isLowerHex(s[i]) {
			return false
		}
	}
	return true
}

// warnOnce says why an object's frames are not expanded (it cannot be
// read), or are named from its symbol table (its DWARF is corrupt), once
// per kind of cause: the first object's message names it. A file refused
// as unsafe to read (a FIFO, a link to a device, too large: package
// safefile) is said for each such file, as the symbols' refusals are.
func (in *inliner) warnOnce(m *dwarfline.Module, err error) {
	kind, what := "read", "its frames are not expanded (said for the first such object only)"
	if se := (*safefile.Error)(nil); errors.As(err, &se) {
		kind, what = "refused "+se.Path, "its frames are not expanded"
	} else if m.Readable() {
		kind, what = "dwarf", "its frames are named from its symbol table, as addr2line names them (said for the first such object only)"
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.warned[kind] || in.warn == nil {
		return
	}
	in.warned[kind] = true
	in.warn("--inline: %v: %s", err, what)
}
