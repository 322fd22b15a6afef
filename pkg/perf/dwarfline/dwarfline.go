// Package dwarfline reads the inlined functions and source lines of an
// address from an ELF object's DWARF (.debug_info, .debug_line; DWARF 2
// to 5, compressed sections), as binutils' `addr2line -i -f -s -C`
// prints them, without running addr2line: the innermost function first,
// with the line table's file:line of the address, then each function it
// was inlined into, with the call site (DW_AT_call_file, DW_AT_call_line)
// of the inlined subroutine. File names are base names, function names
// demangled with their parameters (symbols.DemangleParams), "??" and
// "??:0" where addr2line prints them, no discriminators.
//
//	m := dwarfline.Open("/usr/bin/prog", dwarfline.Options{})
//	for _, f := range m.Lookup(0x401136) {
//		fmt.Println(f.Func, f.Loc) // leaf inl.c:2, mid inl.c:3, outer inl.c:4
//	}
//
// The debug information is found where binutils finds it: in the object,
// else in its separate debug file by build-id under
// /usr/lib/debug/.build-id, else by .gnu_debuglink. A module is parsed
// lazily, each compilation unit on the first address inside it, and is
// safe for concurrent use. Its files are untrusted (a capture names
// them): they are opened as package safefile rules, their sizes bounded,
// and corrupt DWARF never panics: the module then answers as addr2line
// does without it (the symbol table's function, "??:0"), and Err says why.
package dwarfline

import (
	"debug/dwarf"
	"fmt"
	"strconv"
	"sync"

	"flamekit/pkg/perf/symbols"
)

// Frame is one function of an address's inline chain as addr2line
// prints it: the function's name ("??" when unknown) and its place,
// "file:line" ("??:0" when the address is in no section nor symbol,
// "file:?" when the line is unknown).
type Frame struct {
	Func string
	Loc  string
}

// Unknown is what addr2line prints for an address it knows nothing of.
var Unknown = []Frame{{Func: "??", Loc: "??:0"}}

// Options says where separate debug files are.
type Options struct {
	// DebugDir is binutils' debug directory (default /usr/lib/debug).
	DebugDir string
	// MaxDebug bounds the uncompressed size of the DWARF sections read
	// (default 2 GiB); a larger object is read without its DWARF.
	MaxDebug uint64
}

func (o *Options) defaults() {
	if o.DebugDir == "" {
		o.DebugDir = "/usr/lib/debug"
	}
	if o.MaxDebug == 0 {
		o.MaxDebug = 2 << 30
	}
}

// Module is one ELF object's symbols and DWARF, read on first use.
type Module struct {
	path   string
	opts   Options
	image  []byte // the object's bytes, for the fuzz target (no debug file)
	opened bool   // the object's ELF headers were read

	once   sync.Once
	errMu  sync.Mutex
	err    error // why the DWARF (or the object) could not be read
	secs   []section
	funcs  []elfSym // function-like symbols, in symbol table order
	byName map[string]uint64
	dw     *dwarf.Data
	units  []*unit
}

// section is an allocated section of the object: addresses in it are
// "found".
type section struct {
	index      int
	start, end uint64
}

// elfSym is a symbol of the object's table as BFD's elf_find_function
// reads it.
type elfSym struct {
	name     string
	value    uint64
	size     uint64
	shndx    int
	local    bool
	file     bool // STT_FILE
	function bool // may be a function (maybe_function_sym)
}

// Open returns the module of the ELF object at path; nothing is read
// until the first Lookup.
func Open(path string, opts Options) *Module {
	opts.defaults()
	return &Module{path: path, opts: opts}
}

// Readable reports whether the object itself could be read (its ELF
// headers); when it could not, Lookup returns nothing, as addr2line
// prints nothing for it.
func (m *Module) Readable() bool {
	m.load()
	return m.opened
}

// Err reports why the module's DWARF or symbols could not be read (nil
// when they were, or when the object has none): its lookups then answer
// as addr2line does without them.
func (m *Module) Err() error {
	m.load()
	m.errMu.Lock()
	defer m.errMu.Unlock()
	return m.err
}

// Lookup returns the inline chain of pc, innermost first, as
// `addr2line -i -f -s -C -e MODULE pc` prints it; Unknown when the
// address is in no section of the object or nothing names it; nil when
// the object cannot be read at all (addr2line prints nothing then).
func (m *Module) Lookup(pc uint64) []Frame {
	m.load()
	if !m.opened {
		return nil
	}
	sec := m.sectionOf(pc)
	if sec < 0 {
		return Unknown
	}
	var r result
	if m.dw != nil {
		m.lookupDWARF(pc, &r)
	}
	fn := r.fn
	name, file := "", r.file
	if fn != nil && fn.linkage {
		name = fn.name
	} else {
		// No function, or one without a linkage name: the symbol
		// table's function holding pc, as BFD 2.40's
		// _bfd_dwarf2_find_nearest_line (and, when no DWARF knows
		// pc, _bfd_elf_find_nearest_line) looks it up; its file
		// symbol when the line table gave no file.
		sym := m.findFunction(sec, pc)
		switch {
		case sym != nil:
			name = sym.name
			if !r.hasFile {
				file, r.hasFile = m.symFile(sym)
			}
		case fn != nil:
			name = fn.name
		case !r.line:
			return Unknown
		}
	}
	frames := []Frame{{Func: funcName(name), Loc: loc(file, r.hasFile, r.lineNo)}}
	if fn != nil && fn.inlined {
		u := r.unit
		for f := fn; f.caller >= 0; f = &u.funcs[f.caller] {
			c := &u.funcs[f.caller]
			frames = append(frames, Frame{Func: funcName(c.name), Loc: loc(f.callFile, f.hasCallFile, f.callLine)})
		}
	}
	return frames
}

// result is what the DWARF says of an address.
type result struct {
	unit    *unit
	fn      *function
	line    bool // the line table has the address
	file    string
	hasFile bool
	lineNo  uint64
}

func funcName(name string) string {
	if name == "" {
		return "??"
	}
	return symbols.DemangleParams(name)
}

// loc prints a place as addr2line -s does.
func loc(file string, ok bool, line uint64) string {
	if !ok {
		file = "??"
	} else if i := lastSlash(file); i >= 0 {
		file = file[i+1:] // addr2line -s: what follows the last '/'
	}
	if line == 0 {
		return file + ":?"
	}
	return file + ":" + strconv.FormatUint(line, 10)
}

func lastSlash(s string) int {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '/' {
			return i
		}
	}
	return -1
}

// sectionOf returns the index in m.secs of the first allocated section
// holding pc, -1 for none.
func (m *Module) sectionOf(pc uint64) int {
	for _, s := range m.secs {
		if pc >= s.start && pc < s.end {
			return s.index
		}
	}
	return -1
}

// findFunction is BFD's _bfd_elf_find_function: the function-like
// symbol of section sec with the highest address at or below pc (the
// larger on a tie), whatever its size.
func (m *Module) findFunction(sec int, pc uint64) *elfSym {
	var best *elfSym
	var low, size uint64
	for i := range m.funcs {
		s := &m.funcs[i]
		if !s.function || s.shndx != sec || s.value > pc {
			continue
		}
		sz := s.size
		if sz == 0 {
			sz = 1
		}
		if best == nil || s.value > low || (s.value == low && sz > size) {
			best, low, size = s, s.value, sz
		}
	}
	return best
}

// symFile returns the name of the file symbol (STT_FILE) that
// elf_find_function gives sym, and whether there is one (its name may be
// empty: the linker's own).
func (m *Module) symFile(sym *elfSym) (string, bool) {
	const (
		nothingSeen = iota
		symbolSeen
		fileAfterSymbol
	)
	state := nothingSeen
	file := ""
	hasFile := false
	var best *elfSym
	bestFile, bestHas := "", false
	for i := range m.funcs {
		s := &m.funcs[i]
		if s.file {
			file, hasFile = s.name, true
			if state == symbolSeen {
				state = fileAfterSymbol
			}
			continue
		}
		if s == sym {
			best = s
			bestFile, bestHas = "", false
			if hasFile && (s.local || state != fileAfterSymbol) {
				bestFile, bestHas = file, true
			}
		}
		if state == nothingSeen {
			state = symbolSeen
		}
	}
	if best == nil {
		return "", false
	}
	return bestFile, bestHas
}

// SymbolAddr returns the address of the symbol called name in the
// object's symbol table, as `nm MODULE` prints it (the first one), and
// whether there is one.
func (m *Module) SymbolAddr(name string) (uint64, bool) {
	m.load()
	v, ok := m.byName[name]
	return v, ok
}

// lookupDWARF fills r from the first unit, in .debug_info order, that
// holds pc (by its ranges, or any unit without ranges) and knows it, as
// BFD reads units in order.
func (m *Module) lookupDWARF(pc uint64, r *result) {
	for _, u := range m.units {
		if !u.contains(pc) {
			continue
		}
		u.parse(m)
		if u.lookup(pc, r) {
			return
		}
	}
}

// String names the module.
func (m *Module) String() string { return m.path }

// guard runs f, turning a panic of debug/dwarf or debug/elf on a corrupt
// file into an error.
func guard(what string, f func() error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%s: corrupt (%v)", what, p)
		}
	}()
	return f()
}
