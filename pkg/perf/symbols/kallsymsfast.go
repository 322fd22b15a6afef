package symbols

import (
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"flamekit/internal/base/hugepage"
)

// parseKallsymsFlat is parseKallsyms for the common file, which it reads
// in one pass into three compact arrays (start, name reference, flags: no
// per-symbol struct, no tree) and turns into the tables directly: kallsyms
// symbols have no size, so that once perf's end fix-ups are done they
// never overlap, and the tables are flat runs of segments. It gives the
// same Kernel as the builder (TestKallsymsFlat and FuzzParseKallsyms compare them)
// and reports ok false, having built nothing, when a table would need
// perf's tree (symbols overlapping after the fix-ups, an end past the
// address space): the caller then takes the builder's path. hidden
// reports a file whose addresses are all 0 (kptr_restrict), of which it
// builds nothing. It must run under parseKallsyms' fault guard when text
// is a mapped file.
//
// The lines are read in parts, on a goroutine each (see kallsymsParts):
// the kernel's table is on the critical path of a perf.data reader, which
// waits for it at its first kernel sample.
func parseKallsymsFlat(k *Kernel, text string, m *mapping, parts int) (ok, hidden bool) {
	if uint64(len(text)) >= uint64(extraName) {
		return false, false
	}
	mem, read, allZero := readKallsymsLines(k, text, parts)
	if read && allZero {
		return true, true
	}
	start, refs, flags := mem.start, mem.refs, mem.flags
	n := len(start)
	// perf's tree order: by start, equal starts in file order.
	sorted := true
	for i := 1; i < n; i++ {
		if start[i] < start[i-1] {
			sorted = false
			break
		}
	}
	if !sorted {
		keys := make([]orderKey, n)
		for i := range keys {
			keys[i] = orderKey{start[i], int32(i)}
		}
		keys = sortKeys(keys)
		s2, r2, f2 := make([]uint64, n), make([]nameRef, n), make([]uint8, n)
		for i, key := range keys {
			s2[i], r2[i], f2[i] = start[key.idx], refs[key.idx], flags[key.idx]
		}
		start, refs, flags = s2, r2, f2
	}
	// End fix-ups (builder.fixupEnds with kallsyms' rule): symbol i's end,
	// made when it is needed rather than kept for every symbol.
	end := func(i int) uint64 {
		switch {
		case i+1 == n:
			return roundUp(start[i], 4096) + 4096
		case (flags[i]^flags[i+1])&flatModule != 0:
			return roundUp(start[i]+4096, 4096)
		}
		return start[i+1]
	}
	// The duplicates (builder.removeDuplicates).
	name := func(i int) string { return text[refs[i].off : refs[i].off+refs[i].n] }
	if n > 0 {
		curr := 0
		for next := 1; next < n; next++ {
			if start[curr] != start[next] {
				curr = next
				continue
			}
			x := sym{start: start[curr], end: end(curr), bind: flags[curr] & flatBind}
			y := sym{start: start[next], end: end(next), bind: flags[next] & flatBind}
			keep, decided := chooseBestByKind(&x, &y)
			if !decided {
				keep = chooseBestByName(name(curr), name(next))
			}
			if keep {
				flags[next] |= flatGone
			} else {
				flags[curr] |= flatGone
				curr = next
			}
		}
	}
	// The modules split off, in order, and the trampoline dropped; the
	// kernel's table made as its symbols are compacted in place (symbol
	// i's end depends on symbol i+1, which is never overwritten first).
	type modTable struct {
		start, end []uint64
		refs       []nameRef
	}
	mods := map[string]*modTable{}
	var mod string
	var mt *modTable
	kt := &flatBuilder{t: &Table{text: text, backing: m, segStart: mem.segStart, segSym: mem.segSym}, size0: mem.size0}
	w := 0
	for i := 0; i < n; i++ {
		if flags[i]&flatGone != 0 {
			continue
		}
		if flags[i]&flatTab != 0 {
			nm := name(i)
			tab := strings.IndexByte(nm, '\t')
			if mm := nm[tab+1:]; mt == nil || mm != mod {
				mod = mm
				key := strings.TrimSpace(mm)
				key = strings.TrimSuffix(strings.TrimPrefix(key, "["), "]")
				if mt = mods[key]; mt == nil {
					mt = &modTable{}
					mods[strings.Clone(key)] = mt
				}
			}
			mt.start = append(mt.start, start[i])
			mt.end = append(mt.end, end(i))
			ref := nameRef{refs[i].off, uint32(tab)}
			if tab == 0 {
				ref = nameRef{} // as builder.ref makes it
			}
			mt.refs = append(mt.refs, ref)
			continue
		}
		if refs[i].n == uint32(len(entryTrampoline)) && name(i) == entryTrampoline {
			continue
		}
		s, e := start[i], end(i)
		if !kt.add(s, e) {
			return false, false
		}
		start[w], refs[w] = s, refs[i]
		w++
	}
	kt.finish(start[:w], refs[:w])
	tables := make(map[string]*Table, len(mods))
	for key, mt := range mods {
		t, good := flatTable(text, m, mt.start, mt.end, mt.refs)
		if !good {
			return false, false
		}
		tables[key] = t
	}
	k.Table, k.Modules = kt.t, tables
	return true, false
}

// Flags of a symbol in parseKallsymsFlat.
const (
	flatBind   = 0x03 // its elf.SymBind (local, global, weak)
	flatTab    = 0x04 // its name has a tab: a module's symbol
	flatModule = 0x08 // its name has a '[' (isModuleName)
	flatGone   = 0x10 // removed as a duplicate
)

// kallsymsPartMin is the least text worth a goroutine of its own: 5 MB of
// kallsyms are read in two parts, a test's few lines in one.
const kallsymsPartMin = 256 << 10

// kallsymsParts returns in how many parts, each on its goroutine, to
// read size bytes of kallsyms on up to workers goroutines.
func kallsymsParts(size, workers int) int {
	return max(1, min(workers, size/kallsymsPartMin))
}

// kallsymsPart is what reading one part of the lines found: its
// symbols are start[lo:hi], refs[lo:hi], flags[lo:hi].
type kallsymsPart struct {
	text          string // the part's lines
	at            int    // where text starts in the file
	lo, hi        int
	skipped       int
	read, nonZero bool
	refs          [len(refSymbols)]struct {
		addr  uint64
		found bool
	}
}

// kallsymsMemory holds the arrays of a kallsyms file's symbols and of the
// kernel's table, for at most n symbols, cut from one allocation on huge
// pages (hugepage.Table): 3.7 MB for a file of 122,000 lines, which in
// pages of 4 kB a process that has not used them yet takes about 900
// page faults to fill (20 ms on this project's virtual machines), on the
// perf.data reader's critical path.
type kallsymsMemory struct {
	// The symbols read (see readKallsymsLines).
	start []uint64
	refs  []nameRef
	flags []uint8
	// The kernel's table (see flatBuilder): empty, of room n+1.
	segStart []uint64
	segSym   []int32
	size0    []bool
}

func newKallsymsMemory(n int) *kallsymsMemory {
	words := func(size int) int { return (size + 7) / 8 }
	sizes := [...]int{8 * n, 8 * n, n, 8 * (n + 1), 4 * (n + 1), n}
	total := 0
	for _, size := range sizes {
		total += words(size)
	}
	arena := hugepage.Table[uint64](total)
	next := func(i int) unsafe.Pointer {
		p := unsafe.Pointer(unsafe.SliceData(arena))
		arena = arena[words(sizes[i]):]
		return p
	}
	return &kallsymsMemory{
		start:    unsafe.Slice((*uint64)(next(0)), n),
		refs:     unsafe.Slice((*nameRef)(next(1)), n),
		flags:    unsafe.Slice((*uint8)(next(2)), n),
		segStart: unsafe.Slice((*uint64)(next(3)), n+1)[:0],
		segSym:   unsafe.Slice((*int32)(next(4)), n+1)[:0],
		size0:    unsafe.Slice((*bool)(next(5)), n),
	}
}

// readKallsymsLines reads the lines of text in parts pieces (see
// kallsymsParts), on a goroutine each but the first, which the caller
// runs: the symbols kept (start, name reference into text, flags), in file
// order, are those of the memory it returns; read reports that some line
// was understood, allZero that every address read was 0. It counts the
// skipped lines and sets the reference symbols' addresses in k.
func readKallsymsLines(k *Kernel, text string, parts int) (mem *kallsymsMemory, read, allZero bool) {
	ps := make([]kallsymsPart, max(parts, 1))
	at := 0
	for i := range ps {
		end := len(text)
		if i+1 < len(ps) {
			end = max(at, len(text)*(i+1)/len(ps))
			if j := strings.IndexByte(text[end:], '\n'); j >= 0 {
				end += j + 1
			} else {
				end = len(text)
			}
		}
		ps[i].text, ps[i].at = text[at:end], at
		at = end
	}
	// Counted first, so that each part writes its symbols in place in
	// arrays made once at their size: at most a symbol a line, and a
	// line of a symbol takes 6 bytes at least ("0 T x\n"), which bounds
	// the memory of a file of empty lines.
	parallel(len(ps), func(i int) {
		ps[i].hi = min(strings.Count(ps[i].text, "\n")+1, (len(ps[i].text)+1)/6+1)
	})
	n := 0
	for i := range ps {
		c := ps[i].hi
		ps[i].lo, ps[i].hi = n, n
		n += c
	}
	mem = newKallsymsMemory(n)
	start, refs, flags := mem.start, mem.refs, mem.flags
	parallel(len(ps), func(i int) { ps[i].readLines(start, refs, flags) })
	// The parts joined up.
	w := 0
	allZero = true
	for i := range ps {
		p := &ps[i]
		if p.lo != w {
			copy(start[w:], start[p.lo:p.hi])
			copy(refs[w:], refs[p.lo:p.hi])
			copy(flags[w:], flags[p.lo:p.hi])
		}
		w += p.hi - p.lo
		k.Skipped += p.skipped
		read = read || p.read
		allZero = allZero && !p.nonZero
		for j := range k.refs {
			if !k.refs[j].found && p.refs[j].found {
				k.refs[j] = p.refs[j]
			}
		}
	}
	mem.start, mem.refs, mem.flags = start[:w], refs[:w], flags[:w]
	return mem, read, allZero
}

// readLines reads the part's lines into start, refs and flags from p.lo on.
func (p *kallsymsPart) readLines(start []uint64, refs []nameRef, flags []uint8) {
	text := p.text
	w := p.lo
	for pos := 0; pos < len(text); {
		var l string
		at := pos
		if i := strings.IndexByte(text[pos:], '\n'); i >= 0 {
			l, pos = text[pos:pos+i], pos+i+1
		} else {
			l, pos = text[pos:], len(text)
		}
		if len(l) == 0 {
			continue
		}
		addr, typ, name, good := parseKallsymsLineFast(l)
		if !good {
			p.skipped++
			continue
		}
		p.read = true
		if addr != 0 {
			p.nonZero = true
		}
		if (len(name) == 5 || len(name) == 6) && isFunctionType(typ) {
			for i, n := range refSymbols {
				if name == n && !p.refs[i].found {
					p.refs[i].addr, p.refs[i].found = addr, true
				}
			}
		}
		if !keepKallsymsType(typ) || name[0] == '$' {
			continue
		}
		f := uint8(kallsymsBind(typ))
		if strings.IndexByte(name, '\t') >= 0 {
			f |= flatTab
		}
		if strings.IndexByte(name, '[') >= 0 {
			f |= flatModule
		}
		// name ends the line, but for a trailing "\r".
		off := p.at + at + len(l) - len(name)
		if l[len(l)-1] == '\r' {
			off--
		}
		start[w] = addr
		refs[w] = nameRef{uint32(off), uint32(len(name))}
		flags[w] = f
		w++
	}
	p.hi = w
}

// parallel runs fn(0) to fn(n-1), each but fn(0) on a goroutine of its
// own, fn(0) on the caller's, and returns when all are done. A memory
// fault reading a mapped file (see faultsPanic) in one of the goroutines
// is raised again on the caller's.
func parallel(n int, fn func(i int)) {
	if n <= 1 {
		if n == 1 {
			fn(0)
		}
		return
	}
	var wg sync.WaitGroup
	var fault atomic.Value
	for i := 1; i < n; i++ {
		wg.Go(func() {
			defer faultsPanic()()
			defer onFault(func(r any) { fault.Store(r) })
			fn(i)
		})
	}
	fn(0)
	wg.Wait()
	if r := fault.Load(); r != nil {
		panic(r)
	}
}

// flatBuilder makes a flat table (see flatTable) symbol by symbol.
type flatBuilder struct {
	t       *Table
	size0   []bool
	n       int
	lastEnd uint64
	last    uint64 // the last symbol's start
}

// newFlatTable starts a flat table of at most n symbols cut from text
// (mapped by m, if it is).
func newFlatTable(text string, m *mapping, n int) *flatBuilder {
	return &flatBuilder{
		t: &Table{text: text, backing: m,
			segStart: make([]uint64, 0, n+1), segSym: make([]int32, 0, n+1)},
		size0: make([]bool, n),
	}
}

// add adds the next symbol, from start to end (end == start: size zero);
// false when it overlaps the previous one or ends past the address space
// (build then asks perf's tree).
func (fb *flatBuilder) add(start, end uint64) bool {
	if end < start || (end == start && start == ^uint64(0)) {
		return false
	}
	if fb.n > 0 && (fb.last == start || fb.lastEnd > start) {
		return false
	}
	t := fb.t
	// The previous symbol's gap, if it does not end where this starts.
	if fb.n > 0 {
		if e := max(fb.lastEnd, fb.last+1); e != start {
			t.push(e, -1)
		}
	}
	fb.size0[fb.n] = end == start
	t.push(start, int32(fb.n))
	fb.last, fb.lastEnd, fb.n = start, end, fb.n+1
	return true
}

// finish ends the table, whose symbols are start and refs.
func (fb *flatBuilder) finish(start []uint64, refs []nameRef) {
	t := fb.t
	if fb.n > 0 {
		t.push(max(fb.lastEnd, fb.last+1), -1)
	}
	t.start, t.refs, t.size0 = start, refs, fb.size0[:fb.n]
	t.index()
	t.prepareNames()
}

// flatTable builds the table of symbols sorted by start, with distinct
// starts and their ends (end == start: size zero), as builder.build
// does for symbols that do not overlap; ok is false when they overlap or
// one ends past the address space (build then asks perf's tree).
func flatTable(text string, m *mapping, start, end []uint64, refs []nameRef) (*Table, bool) {
	fb := newFlatTable(text, m, len(start))
	for i := range start {
		if !fb.add(start[i], end[i]) {
			return nil, false
		}
	}
	fb.finish(start, refs)
	return fb.t, true
}

// hexDigit is the value of each hexadecimal digit, either case; -1 for
// other bytes.
var hexDigit = func() (d [256]int8) {
	for i := range d {
		d[i] = -1
	}
	for c := '0'; c <= '9'; c++ {
		d[c] = int8(c - '0')
	}
	for c := 'a'; c <= 'f'; c++ {
		d[c] = int8(c-'a') + 10
		d[c-'a'+'A'] = int8(c-'a') + 10
	}
	return d
}()

// parseKallsymsLineFast is parseKallsymsLine, quicker on the usual line
// of a 64-bit kernel (16 digits, a space, the type, a space).
func parseKallsymsLineFast(l string) (addr uint64, typ byte, name string, ok bool) {
	if len(l) > 19 && l[16] == ' ' && l[18] == ' ' {
		var bad int8
		for _, c := range []byte(l[:16]) {
			v := hexDigit[c]
			bad |= v
			addr = addr<<4 | uint64(v&15)
		}
		if bad >= 0 {
			name = l[19:]
			if len(name) > 0 && name[len(name)-1] == '\r' {
				name = name[:len(name)-1]
			}
			return addr, l[17], name, len(name) > 0
		}
	}
	return parseKallsymsLine(l)
}
