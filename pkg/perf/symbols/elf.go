package symbols

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"flamekit/internal/base/safefile"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
)

// elfFile is an open ELF file.
type elfFile struct {
	path string
	f    *elf.File
	c    io.Closer
	size int64    // of the file
	file *os.File // nil when the ELF file is in memory
}

// openELF opens an ELF file. debug/elf is not trusted with a hostile
// file: a panic becomes an error naming the file.
//
// It is opened as every file a capture names is (safefile): a regular
// file only, of bounded size, so that a FIFO or a device never blocks
// nor fills memory.
func openELF(path string) (*elfFile, error) {
	osf, size, err := safefile.Open(path, ruleELF)
	if err != nil {
		return nil, err
	}
	ef, err := newELF(path, osf)
	if err != nil {
		osf.Close()
		return nil, err
	}
	ef.c, ef.size, ef.file = osf, size, osf
	return ef, nil
}

// newELF reads the ELF headers of r; path names it in errors.
func newELF(path string, r io.ReaderAt) (ef *elfFile, err error) {
	defer func() {
		if p := recover(); p != nil {
			ef, err = nil, fmt.Errorf("%s: malformed ELF file (%v)", path, p)
		}
	}()
	f, err := elf.NewFile(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &elfFile{path: path, f: f, c: io.NopCloser(nil)}, nil
}

// ELFTable builds the table perf 6.1 builds from one ELF file's content,
// as if it were found for an object with no recorded build-id and no
// debug file: its .symtab (else .dynsym), the fix-ups, and its PLT. It
// is what the Resolver does with one file, for callers that have the
// bytes; name is used in errors.
func ELFTable(name string, data []byte) (*Table, error) {
	ef, err := newELF(name, bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	ef.size = int64(len(data))
	return elfTable(ef, ef, 1)
}

// elfTable builds the table of symbols from syms with runtime as the
// file mapped at run time, on up to workers goroutines.
func elfTable(syms, runtime *elfFile, workers int) (t *Table, err error) {
	// The names may be in a mapped file: reading it after it was
	// truncated is an error, not a crash.
	defer faultsPanic()()
	defer onFault(func(r any) { t, err = nil, fmt.Errorf("%s: file changed while read (%v)", syms.path, r) })
	var b builder
	b.takeScratch()
	defer b.releaseScratch()
	n, aborted, dynsym, err := loadELF(&b, syms, runtime)
	if err != nil {
		return nil, err
	}
	if syms != runtime {
		dynsym = nil // not the runtime file's
	}
	if !aborted && n > 0 {
		b.sortByStart()
		order := b.inOrder()
		b.fixupEnds(order, false)
		b.demangleAliases(order, workers)
		b.removeDuplicates(order)
		addPLT(&b, runtime, dynsym)
	}
	return b.build(), nil
}

func (ef *elfFile) Close() error { return ef.c.Close() }

// guard runs f, turning a panic of debug/elf into an error.
func guard(path string, f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%s: malformed ELF file (%v)", path, r)
		}
	}()
	return f()
}

// section returns the first section called name, as libelf's lookup by
// name in perf.
func (ef *elfFile) section(name string) (int, *elf.Section) {
	for i, s := range ef.f.Sections {
		if s.Name == name {
			return i, s
		}
	}
	return -1, nil
}

// hasSymtab reports whether the file has a .symtab section of type
// SHT_SYMTAB (perf's symsrc__has_symtab).
func (ef *elfFile) hasSymtab() bool {
	_, s := ef.section(".symtab")
	return s != nil && s.Type == elf.SHT_SYMTAB
}

// hasDynsym reports whether the file has a .dynsym section of type
// SHT_DYNSYM (a separate debug file's is SHT_NOBITS).
func (ef *elfFile) hasDynsym() bool {
	_, s := ef.section(".dynsym")
	return s != nil && s.Type == elf.SHT_DYNSYM
}

// buildID returns the file's GNU build-id in lowercase hex, "" when it
// has none. Like perf it reads the first of the sections
// .note.gnu.build-id, .notes and .note.
func (ef *elfFile) buildID() string {
	var id string
	guard(ef.path, func() error {
		for _, name := range []string{".note.gnu.build-id", ".notes", ".note"} {
			if _, s := ef.section(name); s != nil {
				data, err := s.Data()
				if err != nil {
					return err
				}
				id = parseBuildIDNotes(data, ef.f.ByteOrder)
				return nil
			}
		}
		return nil
	})
	return id
}

// debuglink returns the file name in the .gnu_debuglink section, "" when
// there is none.
func (ef *elfFile) debuglink() string {
	var link string
	guard(ef.path, func() error {
		_, s := ef.section(".gnu_debuglink")
		if s == nil || s.Type == elf.SHT_NOBITS {
			return nil
		}
		data, err := s.Data()
		if err != nil {
			return err
		}
		if i := bytes.IndexByte(data, 0); i >= 0 {
			data = data[:i]
		}
		link = string(data)
		return nil
	})
	return link
}

// loadELF adds to b the symbols of syms (its .symtab, else its .dynsym)
// with perf 6.1's filters and address adjustment, runtime being the file
// that is mapped at run time (program headers, sections of the debug
// file's SHT_NOBITS ones). It returns the number of symbols added and
// whether perf would have given up half-way (a symbol in a section that
// does not exist): then the symbols before stay, but no fix-up is done.
// dynsym is syms' .dynsym when that is what it read (for addPLT).
func loadELF(b *builder, syms, runtime *elfFile) (n int, aborted bool, dynsym *symbolTable, err error) {
	err = guard(syms.path, func() error {
		typ := elf.SHT_DYNSYM
		if syms.hasSymtab() {
			typ = elf.SHT_SYMTAB
		}
		// Mapped: the entries are read once, the names stay, cut
		// from the string table; every page of both is read.
		st, err := syms.openSymbols(typ, mapWhole)
		if err != nil {
			if errors.Is(err, elf.ErrNoSymbols) {
				return nil
			}
			return fmt.Errorf("%s: %w", syms.path, err)
		}
		if typ == elf.SHT_DYNSYM {
			dynsym = st
		}
		if b.syms == nil {
			// Room for the PLT's entries too (addPLT).
			b.syms = b.newSyms(st.len() + pltEntries(runtime))
		}
		if b.text == "" {
			// The names are cut from it: the table refers to them
			// by offset.
			b.text, b.backing = bytesToString(st.strs), st.backing
		}
		loads := loadSegments(runtime.f)
		st.each(func(s *elfSym) bool {
			ok, stop := perfKeeps(s, syms.f, runtime.f)
			if stop {
				aborted = true
				return false
			}
			if !ok {
				return true
			}
			v := s.value
			if p := segmentOf(loads, v); p != nil {
				v -= p.Vaddr - p.Off
			} else {
				sec := sectionOf(s.section, syms.f, runtime.f)
				v -= sec.Addr - sec.Offset
			}
			b.addMangled(v, v+s.size, s.name, elf.ST_BIND(s.info))
			n++
			return true
		})
		return nil
	})
	return n, aborted, dynsym, err
}

// elfSym is one entry of an ELF symbol table, with what perf looks at.
type elfSym struct {
	name        string
	value, size uint64
	section     elf.SectionIndex
	info, other byte
}

// symbolTable is an ELF symbol table section with its string table, read
// as debug/elf's Symbols reads them but without making a slice of every
// entry and a string per name: entries are decoded one at a time, the
// names cut from the string table. Both sections are mapped when they can
// be (see mapFile), else read whole. .dynsym's version sections are not
// read (perf does not read them either).
type symbolTable struct {
	syms, strs []byte // the string table's bytes may be a mapping's
	n          int    // entries after the null one
	size       int    // of an entry
	bo         binary.ByteOrder
	backing    *mapping // strs' mapping, nil when read
	// syms' mapping, nil when read: unmapped once unreachable, so every
	// use of syms ends with runtime.KeepAlive(st).
	symsMapping *mapping
}

// access says how a section is read: into memory, or mapped (the pages
// mapped as they are first read, or all at once when the whole section
// will be read).
type access uint8

const (
	readIn   access = iota // read into memory
	mapLazy                // mapped, a few of its pages read
	mapWhole               // mapped, every page read (see mapFile's populate)
)

// readSection returns sec's content, mapped when how says so and it can
// be (m is then the mapping), else read as sec.Data reads it, failing as
// it does: a section is read when it is compressed, SHT_NOBITS, not
// within the file (then Data gives the error), or in memory.
func (ef *elfFile) readSection(sec *elf.Section, how access) (data []byte, m *mapping, err error) {
	if how != readIn && ef.file != nil && sec.Flags&elf.SHF_COMPRESSED == 0 && sec.Type != elf.SHT_NOBITS &&
		sec.Size > 0 && sec.Offset <= uint64(ef.size) && sec.Size <= uint64(ef.size)-sec.Offset {
		if data, m, ok := mapFile(ef.file, int64(sec.Offset), int64(sec.Size), how == mapWhole); ok {
			return data, m, nil
		}
	}
	data, err = sec.Data()
	return data, nil, err
}

// openSymbols opens the first section of type typ and its string table,
// failing as debug/elf's Symbols does, read or mapped as how says.
func (ef *elfFile) openSymbols(typ elf.SectionType, how access) (*symbolTable, error) {
	f := ef.f
	if f.Class != elf.ELFCLASS32 && f.Class != elf.ELFCLASS64 {
		return nil, errors.New("not implemented")
	}
	sec := f.SectionByType(typ)
	if sec == nil {
		return nil, elf.ErrNoSymbols
	}
	syms, symsMapping, err := ef.readSection(sec, how)
	if err != nil {
		return nil, fmt.Errorf("cannot load symbol section: %w", err)
	}
	if len(syms) == 0 {
		return nil, elf.ErrNoSymbols
	}
	size, sizeName := elf.Sym32Size, "SymSize"
	if f.Class == elf.ELFCLASS64 {
		size, sizeName = elf.Sym64Size, "Sym64Size"
	}
	if len(syms)%size != 0 {
		return nil, errors.New("length of symbol section is not a multiple of " + sizeName)
	}
	if sec.Link <= 0 || int(sec.Link) >= len(f.Sections) {
		return nil, fmt.Errorf("cannot load string table section: %w", errors.New("section has invalid string table link"))
	}
	strs, m, err := ef.readSection(f.Sections[sec.Link], how)
	if err != nil {
		return nil, fmt.Errorf("cannot load string table section: %w", err)
	}
	return &symbolTable{syms: syms, strs: strs, n: len(syms)/size - 1, size: size, bo: f.ByteOrder,
		backing: m, symsMapping: symsMapping}, nil
}

// len returns the number of entries.
func (st *symbolTable) len() int { return st.n }

// at returns entry i (0 being the one after the null entry).
func (st *symbolTable) at(i int) elfSym {
	defer runtime.KeepAlive(st)
	return st.decode(st.syms[(i+1)*st.size : (i+2)*st.size])
}

// each calls fn with every entry in order; fn returns false to stop.
func (st *symbolTable) each(fn func(s *elfSym) bool) {
	defer runtime.KeepAlive(st)
	var s elfSym // one for all: fn's pointer makes it escape
	for i := range st.n {
		s = st.decode(st.syms[(i+1)*st.size : (i+2)*st.size])
		if !fn(&s) {
			return
		}
	}
}

// decode decodes one entry.
func (st *symbolTable) decode(e []byte) elfSym {
	bo := st.bo
	var s elfSym
	var name uint32
	if st.size == elf.Sym64Size {
		name = bo.Uint32(e[0:4])
		s.info, s.other = e[4], e[5]
		s.section = elf.SectionIndex(bo.Uint16(e[6:8]))
		s.value, s.size = bo.Uint64(e[8:16]), bo.Uint64(e[16:24])
	} else {
		name = bo.Uint32(e[0:4])
		s.value, s.size = uint64(bo.Uint32(e[4:8])), uint64(bo.Uint32(e[8:12]))
		s.info, s.other = e[12], e[13]
		s.section = elf.SectionIndex(bo.Uint16(e[14:16]))
	}
	s.name = cString(bytesToString(st.strs), name)
	return s
}

// cString returns the NUL-terminated string at off in an ELF string
// table, "" when off is outside it or the string is not terminated (as
// debug/elf reads it).
func cString(strs string, off uint32) string {
	if uint64(off) >= uint64(len(strs)) {
		return ""
	}
	rest := strs[off:]
	if i := strings.IndexByte(rest, 0); i >= 0 {
		return rest[:i]
	}
	return ""
}

// perfKeeps applies dso__load_sym's filters to one symbol: functions,
// IFUNCs and objects with a name and a section; NOTYPE labels too when
// they are visible and in a section whose name has "text" or "data";
// never absolute symbols (the SHN_ABS version names) nor symbols of
// sections that are not loaded (SHF_ALLOC). stop reports a symbol whose
// section does not exist, where perf stops reading.
func perfKeeps(s *elfSym, syms, runtime *elf.File) (keep, stop bool) {
	typ := elf.ST_TYPE(s.info)
	vis := elf.ST_VISIBILITY(s.other)
	named := s.name != "" && s.section != elf.SHN_UNDEF
	label := typ == elf.STT_NOTYPE && named && s.section != elf.SHN_ABS &&
		vis != elf.STV_HIDDEN && vis != elf.STV_INTERNAL
	kept := named && (typ == elf.STT_FUNC || typ == elf.STT_GNU_IFUNC || typ == elf.STT_OBJECT)
	if !label && !kept {
		return false, false
	}
	if s.section == elf.SHN_ABS {
		return false, false
	}
	if int(s.section) >= len(syms.Sections) {
		return false, true
	}
	sec := syms.Sections[s.section]
	if sec.Flags&elf.SHF_ALLOC == 0 {
		return false, false
	}
	if sec.Type == elf.SHT_NOBITS {
		if int(s.section) >= len(runtime.Sections) {
			return false, true
		}
		sec = runtime.Sections[s.section]
	}
	if label && !strings.Contains(sec.Name, "text") && !strings.Contains(sec.Name, "data") {
		return false, false
	}
	return true, false
}

// sectionOf returns the section a kept symbol is in (the runtime file's
// when the symbol file's is SHT_NOBITS).
func sectionOf(i elf.SectionIndex, syms, runtime *elf.File) *elf.Section {
	sec := syms.Sections[i]
	if sec.Type == elf.SHT_NOBITS {
		sec = runtime.Sections[i]
	}
	return sec
}

func loadSegments(f *elf.File) []*elf.Prog {
	var l []*elf.Prog
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD && max(p.Memsz, p.Filesz) > 0 {
			l = append(l, p)
		}
	}
	return l
}

// segmentOf returns the first loadable segment holding address v.
func segmentOf(loads []*elf.Prog, v uint64) *elf.Prog {
	for _, p := range loads {
		if v >= p.Vaddr && v-p.Vaddr < max(p.Memsz, p.Filesz) {
			return p
		}
	}
	return nil
}

// addPLT adds perf 6.1's synthesized PLT symbols of f: one "name@plt" per
// .rela.plt (or .rel.plt) entry, in relocation order, entry after entry
// from the end of the PLT header, at file offsets; the name is that of
// the relocation's .dynsym symbol, "" for IRELATIVE slots (so "@plt").
// It returns the number added.
//
// dsyms is ef's .dynsym when the caller has it open already (the symbols
// of a stripped object: its pages are read, so not mapped again), else
// nil.
func addPLT(b *builder, ef *elfFile, dsyms *symbolTable) (n int) {
	guard(ef.path, func() error {
		n = addPLTUnguarded(b, ef, dsyms)
		return nil
	})
	return n
}

func addPLTUnguarded(b *builder, ef *elfFile, dsyms *symbolTable) int {
	f := ef.f
	dynIdx, dynsym := ef.section(".dynsym")
	if dynsym == nil || dynsym.Type != elf.SHT_DYNSYM {
		return 0
	}
	_, rel := ef.section(".rela.plt")
	if rel == nil {
		if _, rel = ef.section(".rel.plt"); rel == nil {
			return 0
		}
	}
	if int(rel.Link) != dynIdx {
		return 0
	}
	_, plt := ef.section(".plt")
	if plt == nil || rel.Entsize == 0 || rel.Type == elf.SHT_NOBITS {
		return 0
	}
	relData, err := rel.Data()
	if err != nil {
		return 0
	}
	if dsyms == nil {
		// A few entries and names of .dynsym are wanted: mapped.
		var err error
		dsyms, err = ef.openSymbols(elf.SHT_DYNSYM, mapLazy)
		if err != nil && !errors.Is(err, elf.ErrNoSymbols) {
			return 0
		}
	}
	ndsyms := 0
	if dsyms != nil {
		ndsyms = dsyms.len()
	}
	if int(dynsym.Link) >= len(f.Sections) || f.Sections[dynsym.Link].Size == 0 {
		return 0
	}
	header, entry := pltSizes(f.Machine, plt.Entsize)
	off := plt.Offset + header
	count := rel.Size / rel.Entsize
	is64 := f.Class == elf.ELFCLASS64
	var recSize uint64
	switch {
	case is64 && rel.Type == elf.SHT_RELA:
		recSize = 24
	case is64:
		recSize = 16
	case rel.Type == elf.SHT_RELA:
		recSize = 12
	default:
		recSize = 8
	}
	// The entries' names, "name@plt", are copied into one buffer (from
	// the mapped .dynstr) and cut from it: one allocation, not one per
	// entry. A mangled name is demangled on first lookup (see
	// addPLTEntry).
	count = min(count, uint64(len(relData))/recSize)
	names := make([]string, count)
	size := 0
	for i := range names {
		at := uint64(i) * recSize
		var symIdx uint64
		if is64 {
			symIdx = f.ByteOrder.Uint64(relData[at+8:]) >> 32
		} else {
			symIdx = uint64(f.ByteOrder.Uint32(relData[at+4:]) >> 8)
		}
		if symIdx > 0 && symIdx <= uint64(ndsyms) {
			names[i] = dsyms.at(int(symIdx - 1)).name
		}
		size += len(names[i]) + len("@plt")
	}
	buf := make([]byte, 0, size)
	for _, name := range names {
		buf = append(append(buf, name...), "@plt"...)
	}
	runtime.KeepAlive(dsyms) // the names were read from its mapping
	text := bytesToString(buf)
	// Room for an operation and a name each, made once.
	b.ops = slices.Grow(b.ops, len(names))
	b.extra = slices.Grow(b.extra, len(names))
	for _, name := range names {
		cut := text[:len(name)+len("@plt")]
		text = text[len(cut):]
		b.addPLTEntry(off, off+entry, cut, mayDemangle(name))
		off += entry
	}
	return len(names)
}

// pltEntries returns about how many entries addPLT adds for ef (its
// relocations of .rela.plt or .rel.plt), for room made ahead.
func pltEntries(ef *elfFile) int {
	for _, name := range []string{".rela.plt", ".rel.plt"} {
		if _, rel := ef.section(name); rel != nil {
			if rel.Entsize == 0 || rel.Size/rel.Entsize > 1<<20 {
				return 0
			}
			return int(rel.Size / rel.Entsize)
		}
	}
	return 0
}

// pltSizes returns perf 6.1's PLT header and entry sizes for a machine.
func pltSizes(m elf.Machine, entsize uint64) (header, entry uint64) {
	switch m {
	case elf.EM_ARM:
		return 20, 12
	case elf.EM_AARCH64:
		return 32, 16
	case elf.EM_SPARC:
		return 48, 12
	case elf.EM_SPARCV9:
		return 128, 32
	}
	return entsize, entsize
}
