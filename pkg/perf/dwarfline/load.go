package dwarfline

import (
	"bytes"
	"debug/dwarf"
	"debug/elf"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strings"

	"flamekit/internal/base/safefile"
	"flamekit/pkg/perf/symbols"
)

// ruleObject is how an object or debug file a capture names is opened:
// a regular file, of bounded size (as package symbols opens objects).
var ruleObject = safefile.Rule{What: "object", Max: 16 << 30, FollowSymlink: true}

// maxSymbols bounds a symbol or string table read (bytes).
const maxSymbols = 1 << 30

// noteErr keeps the first error of the module.
func (m *Module) noteErr(err error) {
	m.errMu.Lock()
	if m.err == nil {
		m.err = err
	}
	m.errMu.Unlock()
}

// load reads the object's sections and symbols and finds its DWARF,
// once; the units are read on first use.
func (m *Module) load() {
	m.once.Do(func() {
		if err := guard(m.path, m.read); err != nil {
			m.noteErr(err)
		}
	})
}

func (m *Module) read() error {
	var f *elf.File
	if m.image != nil {
		var err error
		if f, err = elf.NewFile(bytes.NewReader(m.image)); err != nil {
			return fmt.Errorf("%s: %w", m.path, err)
		}
	} else {
		var c io.Closer
		var err error
		if f, c, err = openELF(m.path); err != nil {
			return err
		}
		defer c.Close()
	}
	m.opened = true
	for i, s := range f.Sections {
		if s.Flags&elf.SHF_ALLOC != 0 && s.Size > 0 {
			m.secs = append(m.secs, section{index: i, start: s.Addr, end: s.Addr + s.Size})
		}
	}
	// Section sizes are checked before any is read: a corrupt header
	// may claim gigabytes (or a compressed section inflate to them).
	for _, s := range f.Sections {
		if (s.Type == elf.SHT_SYMTAB || s.Type == elf.SHT_DYNSYM || s.Type == elf.SHT_STRTAB) && s.Size > maxSymbols {
			return fmt.Errorf("%s: section %s of %d bytes: too large to read", m.path, s.Name, s.Size)
		}
	}
	static, serr := f.Symbols()
	m.byName = make(map[string]uint64)
	for _, s := range static {
		t := elf.ST_TYPE(s.Info)
		if s.Section == elf.SHN_UNDEF || t == elf.STT_FILE || t == elf.STT_SECTION {
			continue
		}
		if _, ok := m.byName[s.Name]; !ok {
			m.byName[s.Name] = s.Value
		}
	}
	syms := static
	if serr != nil || len(static) == 0 {
		syms, _ = f.DynamicSymbols()
	}
	m.funcs = funcSyms(syms)

	df, dc, name, err := m.debugFile(f)
	if err != nil {
		return err
	}
	if df == nil {
		return nil
	}
	if dc != nil {
		defer dc.Close()
		// BFD looks the symbol of a function up in the debug file's
		// table when it has the same section layout.
		if ds, err := df.Symbols(); err == nil && len(ds) > 0 && sameLayout(f, df) {
			m.funcs = funcSyms(ds)
		}
	}
	var total uint64
	for _, s := range df.Sections {
		if strings.HasPrefix(s.Name, ".debug_") || strings.HasPrefix(s.Name, ".zdebug_") {
			total += s.Size
		}
	}
	if total > m.opts.MaxDebug {
		return fmt.Errorf("%s: %d bytes of DWARF, more than the %d read", name, total, m.opts.MaxDebug)
	}
	d, err := df.DWARF()
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	m.dw = d
	var rnglists []byte
	if s := df.Section(".debug_rnglists"); s != nil {
		rnglists, _ = s.Data()
	}
	r := d.Reader()
	for {
		e, err := r.Next()
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if e == nil {
			break
		}
		switch e.Tag {
		case dwarf.TagCompileUnit, dwarf.TagPartialUnit, dwarf.TagSkeletonUnit:
			if off, ok := e.Val(dwarf.AttrRanges).(int64); ok && e.AttrField(dwarf.AttrRanges).Class == dwarf.ClassRangeListPtr &&
				indexedRanges(rnglists, off, addrSize(df)) {
				// binutils 2.40 cannot read this unit, and gives up on
				// it and every unit after it (see indexedRanges).
				return nil
			}
			u := &unit{off: e.Offset}
			if v, ok := e.Val(dwarf.AttrLanguage).(int64); ok {
				u.lang = v
			}
			if rs, err := d.Ranges(e); err == nil {
				for _, rg := range rs {
					if rg[0] < rg[1] {
						u.ranges = append(u.ranges, rg)
					}
				}
			}
			m.units = append(m.units, u)
		}
		r.SkipChildren()
	}
	return nil
}

// funcSyms converts a symbol table for findFunction.
func funcSyms(syms []elf.Symbol) []elfSym {
	out := make([]elfSym, 0, len(syms))
	for _, s := range syms {
		t := elf.ST_TYPE(s.Info)
		es := elfSym{name: s.Name, value: s.Value, size: s.Size, shndx: int(s.Section),
			local: elf.ST_BIND(s.Info) == elf.STB_LOCAL, file: t == elf.STT_FILE}
		switch t {
		case elf.STT_SECTION, elf.STT_FILE, elf.STT_OBJECT, elf.STT_TLS:
		default:
			// BFD's maybe_function_sym leaves out the hidden local
			// zero-sized untyped marks of annobin.
			es.function = !(s.Size == 0 && es.local && t == elf.STT_NOTYPE && elf.ST_VISIBILITY(s.Other) == elf.STV_HIDDEN)
		}
		if s.Section >= elf.SHN_LORESERVE {
			es.function = false
		}
		out = append(out, es)
	}
	return out
}

// sameLayout reports whether the debug file's allocated sections have
// the indexes and names of the object's.
func sameLayout(f, d *elf.File) bool {
	for i, s := range f.Sections {
		if s.Flags&elf.SHF_ALLOC == 0 {
			continue
		}
		if i >= len(d.Sections) || d.Sections[i].Name != s.Name {
			return false
		}
	}
	return true
}

// openELF opens an ELF file as a capture's file is opened.
func openELF(path string) (*elf.File, io.Closer, error) {
	osf, _, err := safefile.Open(path, ruleObject)
	if err != nil {
		return nil, nil, err
	}
	var f *elf.File
	err = guard(path, func() error {
		var err error
		f, err = elf.NewFile(osf)
		return err
	})
	if err != nil {
		osf.Close()
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, osf, nil
}

// hasDWARF reports whether f holds .debug_info.
func hasDWARF(f *elf.File) bool {
	for _, s := range f.Sections {
		if (s.Name == ".debug_info" || s.Name == ".zdebug_info") && s.Type != elf.SHT_NOBITS && s.Size > 0 {
			return true
		}
	}
	return false
}

// debugFile returns the file that holds f's DWARF, as BFD finds it: f
// itself, else the file of its build-id under DebugDir/.build-id, else
// the one its .gnu_debuglink names (next to it, in its .debug
// directory, under DebugDir) whose CRC matches; nil when none. The
// closer is nil for f itself.
func (m *Module) debugFile(f *elf.File) (*elf.File, io.Closer, string, error) {
	if hasDWARF(f) {
		return f, nil, m.path, nil
	}
	if m.image != nil {
		return nil, nil, "", nil
	}
	var cands []string
	id := buildID(f)
	if len(id) > 2 {
		cands = append(cands, filepath.Join(m.opts.DebugDir, ".build-id", id[:2], id[2:]+".debug"))
	}
	link, crc, hasLink := debuglink(f)
	for i, c := range cands {
		if !regular(c) {
			continue
		}
		if got, _ := symbols.FileBuildID(c); got != id {
			continue
		}
		if df, dc, err := openELF(cands[i]); err == nil {
			if hasDWARF(df) {
				return df, dc, c, nil
			}
			dc.Close()
		}
	}
	if hasLink {
		dir := filepath.Dir(m.path)
		for _, c := range []string{
			filepath.Join(dir, link),
			filepath.Join(dir, ".debug", link),
			filepath.Join(m.opts.DebugDir, dir, link),
		} {
			if !regular(c) || !crcMatches(c, crc) {
				continue
			}
			if df, dc, err := openELF(c); err == nil {
				if hasDWARF(df) {
					return df, dc, c, nil
				}
				dc.Close()
			}
		}
	}
	return nil, nil, "", nil
}

func regular(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// buildID returns f's GNU build-id in lowercase hex.
func buildID(f *elf.File) string {
	for _, s := range f.Sections {
		if s.Type != elf.SHT_NOTE || s.Size > 1<<20 {
			continue
		}
		data, err := s.Data()
		if err != nil {
			continue
		}
		bo := f.ByteOrder
		for len(data) >= 12 {
			nsz, dsz, typ := bo.Uint32(data), bo.Uint32(data[4:]), bo.Uint32(data[8:])
			nlen := (uint64(nsz) + 3) &^ 3
			dlen := (uint64(dsz) + 3) &^ 3
			if 12+nlen+dlen > uint64(len(data)) {
				break
			}
			name := data[12 : 12+nsz]
			desc := data[12+nlen : 12+nlen+uint64(dsz)]
			if typ == 3 && bytes.Equal(name, []byte("GNU\x00")) {
				return fmt.Sprintf("%x", desc)
			}
			data = data[12+nlen+dlen:]
		}
	}
	return ""
}

// debuglink returns the name and CRC of f's .gnu_debuglink.
func debuglink(f *elf.File) (string, uint32, bool) {
	s := f.Section(".gnu_debuglink")
	if s == nil || s.Type == elf.SHT_NOBITS || s.Size > 1<<16 {
		return "", 0, false
	}
	data, err := s.Data()
	if err != nil {
		return "", 0, false
	}
	i := bytes.IndexByte(data, 0)
	if i <= 0 || strings.Contains(string(data[:i]), "/") {
		return "", 0, false
	}
	off := (i + 4) &^ 3
	if off+4 > len(data) {
		return "", 0, false
	}
	return string(data[:i]), f.ByteOrder.Uint32(data[off:]), true
}

// crcMatches reports whether the file's CRC-32 (gdb's debuglink CRC) is
// crc.
func crcMatches(path string, crc uint32) bool {
	osf, _, err := safefile.Open(path, ruleObject)
	if err != nil {
		return false
	}
	defer osf.Close()
	h := crc32.NewIEEE()
	if _, err := io.Copy(h, osf); err != nil {
		return false
	}
	return h.Sum32() == crc
}

// indexedRanges reports whether the DWARF 5 range list at off in
// .debug_rnglists has an entry that names an address by its index in
// .debug_addr (DW_RLE_base_addressx, startx_endx, startx_length), as the
// Go linker writes for every unit since Go 1.25. binutils 2.40's BFD
// (Debian 12's, the addr2line whose output stackcollapse-perf.pl's
// --inline gives) cannot read such a unit: it stops reading the
// .debug_info there, and answers for the addresses of that unit and the
// following ones from the symbol table alone. The reader does the same, so
// that --inline stays what Perl prints.
func indexedRanges(sec []byte, off int64, asize int) bool {
	if off < 0 || off >= int64(len(sec)) {
		return false
	}
	b := sec[off:]
	uleb := func() bool {
		for len(b) > 0 {
			c := b[0]
			b = b[1:]
			if c < 0x80 {
				return true
			}
		}
		return false
	}
	for n := 0; len(b) > 0 && n < 1<<16; n++ {
		kind := b[0]
		b = b[1:]
		switch kind {
		case 0: // DW_RLE_end_of_list
			return false
		case 1, 2, 3: // base_addressx, startx_endx, startx_length
			return true
		case 4: // offset_pair: two ULEB128 offsets
			for range 2 {
				if !uleb() {
					return false
				}
			}
		case 5: // base_address
			if len(b) < asize {
				return false
			}
			b = b[asize:]
		case 6: // start_end
			if len(b) < 2*asize {
				return false
			}
			b = b[2*asize:]
		case 7: // start_length
			if len(b) < asize {
				return false
			}
			b = b[asize:]
			if !uleb() {
				return false
			}
		default:
			return false
		}
	}
	return false
}

// addrSize is the size of an address in f.
func addrSize(f *elf.File) int {
	if f.Class == elf.ELFCLASS32 {
		return 4
	}
	return 8
}
