package dwarfline

import (
	"debug/dwarf"
	"errors"
	"io"
	"sort"
	"sync"
)

// unit is a compilation unit: its address ranges, read with the module,
// and its functions and line table, read on the first address inside it.
type unit struct {
	off    dwarf.Offset
	ranges [][2]uint64 // empty: BFD tries the unit for every address
	lang   int64

	once  sync.Once
	err   error
	funcs []function
	seqs  []sequence
	files []*dwarf.LineFile
}

// function is a subprogram, entry point or inlined subroutine DIE, as
// BFD's funcinfo.
type function struct {
	name        string
	linkage     bool // name is a linkage name (or the unit's language has none)
	inlined     bool
	low         uint64      // the first range's start (BFD's arange.low)
	ranges      [][2]uint64 // merged as BFD's arange_add
	caller      int         // the enclosing function's index, -1 for none
	callFile    string
	hasCallFile bool
	callLine    uint64
}

// sequence is a run of the line table, sorted by address, ending at an
// end_sequence row.
type sequence struct {
	rows []row
}

type row struct {
	addr uint64
	file int // index in unit.files, -1 for none
	line uint64
	end  bool
}

func (u *unit) contains(pc uint64) bool {
	if len(u.ranges) == 0 {
		return true
	}
	for _, r := range u.ranges {
		if pc >= r[0] && pc < r[1] {
			return true
		}
	}
	return false
}

// parse reads the unit's functions and line table, once.
func (u *unit) parse(m *Module) {
	u.once.Do(func() {
		u.err = guard(m.path, func() error { return u.read(m.dw) })
		if u.err != nil {
			m.noteErr(u.err)
		}
	})
}

// errLimit bounds what one unit may hold, against a hostile file.
const (
	maxFuncs = 1 << 22
	maxRows  = 1 << 25
	maxDepth = 1 << 12
	// maxRanges bounds the ranges of one function (merged as BFD
	// merges them, which is quadratic).
	maxRanges = 1 << 12
)

var errTooBig = errors.New("DWARF unit too large")

func (u *unit) read(d *dwarf.Data) error {
	r := d.Reader()
	r.Seek(u.off)
	cu, err := r.Next()
	if err != nil || cu == nil {
		return errOr(err, "no compilation unit")
	}
	lerr := u.readLines(d, cu)
	if !cu.Children {
		return lerr
	}
	names := &nameCache{d: d, lang: u.lang, cache: map[dwarf.Offset]nameState{}}
	// stack[i] is the function index of the DIE open at depth i+1, -1
	// for a DIE that is not a function (BFD's nested_funcs).
	stack := []int{}
	depth := 0
	for {
		e, err := r.Next()
		if err != nil {
			return err
		}
		if e == nil {
			return lerr
		}
		if e.Tag == 0 {
			depth--
			if depth < 0 {
				return lerr
			}
			stack = stack[:depth]
			continue
		}
		if depth > maxDepth {
			return errTooBig
		}
		idx := -1
		switch e.Tag {
		case dwarf.TagSubprogram, dwarf.TagEntryPoint, dwarf.TagInlinedSubroutine:
			if len(u.funcs) >= maxFuncs {
				return errTooBig
			}
			f := function{caller: -1, inlined: e.Tag == dwarf.TagInlinedSubroutine}
			if f.inlined {
				for i := len(stack) - 1; i >= 0; i-- {
					if stack[i] >= 0 {
						f.caller = stack[i]
						break
					}
				}
			}
			st := names.of(e, nameState{}, 0)
			f.name, f.linkage = st.name, st.linkage
			if v, ok := e.Val(dwarf.AttrCallFile).(int64); ok {
				f.callFile, f.hasCallFile = u.fileName(v), true
			}
			if v, ok := e.Val(dwarf.AttrCallLine).(int64); ok && v > 0 {
				f.callLine = uint64(v)
			}
			if rs, err := d.Ranges(e); err == nil {
				if len(rs) > maxRanges {
					return errTooBig
				}
				for _, rg := range rs {
					f.addRange(rg[0], rg[1])
				}
			}
			idx = len(u.funcs)
			u.funcs = append(u.funcs, f)
		}
		if e.Children {
			stack = append(stack, idx)
			depth++
		}
	}
}

func errOr(err error, msg string) error {
	if err != nil {
		return err
	}
	return errors.New(msg)
}

// addRange adds [low, high) as BFD's arange_add: an empty range is
// dropped, one that extends a range it touches extends it, the others
// follow the first.
func (f *function) addRange(low, high uint64) {
	if low >= high {
		return
	}
	if len(f.ranges) == 0 {
		f.ranges = append(f.ranges, [2]uint64{low, high})
		f.low = low
		return
	}
	for i := range f.ranges {
		a := &f.ranges[i]
		if low == a[1] {
			a[1] = high
			return
		}
		if high == a[0] {
			a[0] = low
			if i == 0 {
				f.low = low
			}
			return
		}
	}
	f.ranges = append(f.ranges, [2]uint64{low, high})
}

// fileName is BFD's concat_filename for the file index of a call site.
func (u *unit) fileName(i int64) string {
	if i < 0 || i >= int64(len(u.files)) || u.files[i] == nil {
		return "<unknown>"
	}
	return u.files[i].Name
}

// readLines reads the unit's line table into sequences, keeping of rows
// at one address the last, as BFD's add_line_info.
func (u *unit) readLines(d *dwarf.Data, cu *dwarf.Entry) error {
	lr, err := d.LineReader(cu)
	if err != nil || lr == nil {
		return err
	}
	u.files = lr.Files()
	index := make(map[*dwarf.LineFile]int, len(u.files))
	for i, f := range u.files {
		if f != nil {
			if _, ok := index[f]; !ok {
				index[f] = i
			}
		}
	}
	var cur []row
	var e dwarf.LineEntry
	n := 0
	// BFD 2.40 starts each sequence of a DWARF 5 table in file 0 (the
	// unit's own), where DWARF 5 starts it in file 1, until the program
	// sets a file: rows of file 1 before a row of another file are
	// taken as file 0's. (A program that sets file 1 explicitly before
	// its first row is read as BFD would not; gas and GCC never do.)
	v5 := len(u.files) > 0 && u.files[0] != nil
	moved := false
	for {
		if err := lr.Next(&e); err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
		if n++; n > maxRows {
			return errTooBig
		}
		if u.files == nil || len(lr.Files()) != len(u.files) {
			// DW_LNE_define_file adds files as it goes.
			u.files = lr.Files()
			for i, f := range u.files {
				if _, ok := index[f]; !ok && f != nil {
					index[f] = i
				}
			}
		}
		fi := -1
		if e.File != nil {
			if i, ok := index[e.File]; ok {
				fi = i
			}
		}
		if v5 && !moved {
			if fi == 1 {
				fi = 0
			} else {
				moved = true
			}
		}
		rw := row{addr: e.Address, file: fi, line: uint64(e.Line), end: e.EndSequence}
		if k := len(cur); k > 0 && cur[k-1].addr == rw.addr && cur[k-1].end == rw.end {
			cur[k-1] = rw
		} else {
			cur = append(cur, rw)
		}
		if e.EndSequence {
			sort.SliceStable(cur, func(i, j int) bool { return cur[i].addr < cur[j].addr })
			u.seqs = append(u.seqs, sequence{rows: cur})
			cur, moved = nil, false
		}
	}
}

// lookup fills r from the unit's functions and line table; it reports
// whether either knows pc.
func (u *unit) lookup(pc uint64, r *result) bool {
	best, bestLen := -1, uint64(0)
	for i := range u.funcs {
		for _, a := range u.funcs[i].ranges {
			if pc < a[0] || pc >= a[1] {
				continue
			}
			if l := a[1] - a[0]; best < 0 || l < bestLen || (l == bestLen && i > best) {
				best, bestLen = i, l
			}
		}
	}
	found := false
	if best >= 0 {
		r.unit, r.fn = u, &u.funcs[best]
		found = true
	}
	for _, s := range u.seqs {
		rows := s.rows
		if len(rows) < 2 || pc < rows[0].addr || pc >= rows[len(rows)-1].addr {
			continue
		}
		i := sort.Search(len(rows), func(i int) bool { return rows[i].addr > pc }) - 1
		if i < 0 || i >= len(rows)-1 || rows[i].end {
			continue
		}
		rw := rows[i]
		r.line, r.lineNo = true, rw.line
		if rw.file >= 0 && u.files[rw.file] != nil {
			r.file, r.hasFile = u.files[rw.file].Name, true
		} else {
			r.file, r.hasFile = "<unknown>", true
		}
		found = true
		break
	}
	return found
}

// nameState is a function's name as BFD reads it from its DIE and those
// it refers to.
type nameState struct {
	name    string
	linkage bool
}

// nameCache resolves the names of a unit's functions, caching those of
// the DIEs they refer to.
type nameCache struct {
	d     *dwarf.Data
	lang  int64
	r     *dwarf.Reader
	cache map[dwarf.Offset]nameState
}

// attrMIPSLinkageName is DW_AT_MIPS_linkage_name.
const attrMIPSLinkageName = dwarf.Attr(0x2007)

// of applies the name attributes of e to st in their order, as BFD's
// scan_unit_for_symbols and find_abstract_instance (depth > 0) do:
// DW_AT_name when no name is known yet, a linkage name always, and the
// DIE that DW_AT_abstract_origin or DW_AT_specification names.
func (c *nameCache) of(e *dwarf.Entry, st nameState, depth int) nameState {
	for _, f := range e.Field {
		switch f.Attr {
		case dwarf.AttrName:
			if s, ok := f.Val.(string); ok && st.name == "" {
				st.name = s
				if !mangles(c.lang) {
					st.linkage = true
				}
			}
		case dwarf.AttrLinkageName, attrMIPSLinkageName:
			if s, ok := f.Val.(string); ok {
				st.name, st.linkage = s, true
			}
		case dwarf.AttrAbstractOrigin, dwarf.AttrSpecification:
			if depth > 0 && f.Attr == dwarf.AttrAbstractOrigin {
				continue
			}
			if off, ok := f.Val.(dwarf.Offset); ok && depth < 100 {
				st = c.refer(off, st, depth+1)
			}
		}
	}
	return st
}

// refer applies the names of the DIE at off.
func (c *nameCache) refer(off dwarf.Offset, st nameState, depth int) nameState {
	if st == (nameState{}) {
		if v, ok := c.cache[off]; ok {
			return v
		}
	}
	if c.r == nil {
		c.r = c.d.Reader()
	}
	c.r.Seek(off)
	e, err := c.r.Next()
	if err != nil || e == nil {
		return st
	}
	out := c.of(e, st, depth)
	if st == (nameState{}) {
		c.cache[off] = out
	}
	return out
}

// mangles reports whether BFD's mangle_style is not 0 for a DWARF
// language code: names of C and the like are their own linkage names.
func mangles(lang int64) bool {
	switch lang {
	case 0x0001, 0x0002, 0x0005, 0x0006, 0x0007, 0x0009, 0x000a, 0x000c, 0x0012, 0x001d,
		0x8001, 0x8765, 0x8101, 0x8102, 0x8103:
		// C89, C, Cobol74, Cobol85, Fortran77, Pascal83, PLI, C99, UPC, C11,
		// Mips_Assembler, Upc, HP_Basic91, HP_IMacro, HP_Assembler.
		return false
	}
	return true
}
