package symbols

import (
	"debug/elf"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"
)

// Symbol is the symbol an address resolved to.
type Symbol struct {
	// Name is the symbol's name as perf prints it (demangled).
	Name string
	// Offset is the address minus the symbol's start; perf script prints
	// it as Name+0x<Offset> ("__libc_start_call_main+0x7a").
	Offset uint64
	// ZeroSize reports a hit on a symbol of size zero, at its start (only
	// perf maps keep such symbols). perf script then prints the offset as
	// address - map start - symbol start, the map being the executable
	// mapping that holds the address, that is 0 - map start for a perf map
	// (its addresses are absolute): see PrintedOffset.
	ZeroSize bool
}

// PrintedOffset returns the offset perf script prints after the name:
// Offset, except for a ZeroSize hit, where perf prints addr - mapStart -
// symbol start, addr being the address it looked up (for a perf map the
// absolute address, so the result is 0 - mapStart, modulo 2^64).
func (s Symbol) PrintedOffset(mapStart uint64) uint64 {
	if s.ZeroSize {
		return -mapStart
	}
	return s.Offset
}

// Table is one object's symbols, ready for lookups: a kernel's kallsyms
// (without its modules), one kernel module, an ELF file with its debug
// file and PLT, or a perf map. Its symbols never change once built, and
// the names it makes on first lookup are kept with atomic stores, so a
// Table may be shared between goroutines. A nil *Table has no symbols.
type Table struct {
	// Flat segments: segStart[i] is where segment i starts (ascending); it
	// ends where segment i+1 starts. segSym[i] is the symbol covering it,
	// -1 for none.
	segStart []uint64
	segSym   []int32
	// segIndex[k] is segStart[k*segStride], for a large table: Lookup
	// searches it (small enough to stay in the processor's caches),
	// then the stride of segStart it leads to, so that a lookup reads
	// a few cache lines rather than one per step of a binary search.
	segIndex []uint64
	// Symbols, by index.
	start []uint64
	size0 []bool // symbol of size zero (start == end)
	// Names, as perf prints them unless raw says otherwise: refs[i] is
	// symbol i's, cut from text (the string table or file the names come
	// from), or in extra. So the table holds no pointer per symbol for
	// the garbage collector to follow.
	text    string
	refs    []nameRef
	extra   []string
	backing *mapping // text's file mapping, nil when text is in memory
	arrays  *mapping // the cache entry the arrays are in (TableCache), if any
	// raw[i] reports that name i is still mangled, or that symbol i
	// stands for two aliases (see alias); nil when every name is final
	// (kallsyms, perf maps, C tables). The name perf prints for such a
	// symbol, or for any symbol of a mapped file (backing), is made on
	// the first lookup that finds it and kept in made: chunks of slots,
	// each allocated when one of its symbols is first looked up, rather
	// than a slot for each symbol (a capture's lookups hit a few percent
	// of its symbols). nil when no name is made on lookup.
	raw  []bool
	made []atomic.Pointer[madeChunk]
	// alias[i] is the (mangled) name of the alias that shares symbol i's
	// start, size and binding and that perf keeps instead of symbol i if
	// its printed name is better (chooseBestByName), decided on first
	// lookup: which one perf keeps changes nothing else in the table.
	alias map[int32]string
	// plt holds the raw symbols that are PLT entries: their name is the
	// mangled name and "@plt", of which the first part is demangled on
	// first lookup (see pltName).
	plt map[int32]bool
}

// Lookup returns the symbol perf finds for addr, an address in the
// table's own space: file-relative for ELF files (what perf script prints
// for user frames), absolute for the kernel, its modules and perf maps.
// It allocates only the first time it finds a symbol whose name is
// mangled (C++, Rust, OCaml) or comes from a mapped file: names are
// demangled and copied on first use, not when the table is loaded, and
// kept. It is safe for concurrent use.
func (t *Table) Lookup(addr uint64) (Symbol, bool) {
	if t == nil {
		return Symbol{}, false
	}
	// Last segment starting at or before addr: segStart[:lo] start at
	// or before it, segStart[hi:] after.
	lo, hi := 0, len(t.segStart)
	if t.segIndex != nil {
		a := atOrBefore(t.segIndex, 0, len(t.segIndex), addr)
		if a == 0 {
			return Symbol{}, false
		}
		lo, hi = (a-1)*segStride, min(a*segStride, len(t.segStart))
	}
	lo = atOrBefore(t.segStart, lo, hi, addr)
	if lo == 0 {
		return Symbol{}, false
	}
	s := t.segSym[lo-1]
	if s < 0 {
		return Symbol{}, false
	}
	st := t.start[s]
	var name string
	if t.backing != nil || (t.raw != nil && t.raw[s]) {
		n, ok := t.printed(s)
		if !ok {
			return Symbol{}, false
		}
		name = n
	} else {
		name = t.name(s)
	}
	return Symbol{Name: name, Offset: addr - st, ZeroSize: t.size0[s] && addr == st}, true
}

// name returns name i as stored.
func (t *Table) name(i int32) string {
	r := t.refs[i]
	if r.n == extraName {
		return t.extra[r.off]
	}
	return t.text[r.off : r.off+r.n]
}

// madeChunk holds the names made for madeChunkLen symbols in a row.
type madeChunk [madeChunkLen]atomic.Pointer[string]

const madeChunkLen = 32

// prepareNames allocates made for a table whose names are made on lookup
// (mangled, aliases, or in a mapped file), once it is built.
func (t *Table) prepareNames() {
	if t.raw != nil || t.backing != nil {
		t.made = make([]atomic.Pointer[madeChunk], (len(t.refs)+madeChunkLen-1)/madeChunkLen)
	}
}

// printed returns the name of symbol s as perf prints it, made the first
// time: demangled when raw, chosen between aliases (see alias), copied
// out of a mapped file. Two goroutines may both make it; they store the
// same text. ok is false when the mapped file cannot be read any more.
func (t *Table) printed(s int32) (name string, ok bool) {
	c := t.made[s/madeChunkLen].Load()
	if c != nil {
		if p := c[s%madeChunkLen].Load(); p != nil {
			return *p, true
		}
	}
	if t.backing != nil {
		defer faultsPanic()()
		defer onFault(func(r any) { name, ok = "", false })
	}
	n := t.name(s)
	switch {
	case t.raw == nil || !t.raw[s]:
	case t.plt[s]:
		n = pltName(n)
	default:
		m := n
		n = Demangle(m)
		if alt, ok := t.alias[s]; ok && !ctorVariants(m, alt) {
			if an := Demangle(alt); !chooseBestByName(n, an) {
				n = an
			}
		}
	}
	n = t.backing.own(n)
	if c == nil {
		// The first to store a chunk gives it to all.
		t.made[s/madeChunkLen].CompareAndSwap(nil, new(madeChunk))
		c = t.made[s/madeChunkLen].Load()
	}
	c[s%madeChunkLen].Store(&n)
	runtime.KeepAlive(t) // n was read from its mapping
	return n, true
}

// setAlias makes slot stand for itself and the alias called name.
func (t *Table) setAlias(slot int32, name string) {
	t.lazyNames()
	t.raw[slot] = true
	if t.alias == nil {
		t.alias = map[int32]string{}
	}
	t.alias[slot] = name
}

// lazyNames allocates what names demangled on lookup need.
func (t *Table) lazyNames() {
	if t.raw == nil {
		t.raw = make([]bool, len(t.refs))
	}
}

// Len returns the number of symbols in the table.
func (t *Table) Len() int {
	if t == nil {
		return 0
	}
	return len(t.refs)
}

// Range returns the lowest address the table resolves (its first
// symbol's start) and the address just past the highest (its last
// symbol's end); 0, 0 for an empty table. After loading kallsyms perf
// shrinks the kernel's map to this range (map__fixup_start/end), so
// kernel addresses outside it have no map at all.
func (t *Table) Range() (lo, hi uint64) {
	if t == nil || len(t.segStart) == 0 {
		return 0, 0
	}
	lo = t.segStart[0]
	hi = t.segStart[len(t.segStart)-1]
	if t.segSym[len(t.segSym)-1] >= 0 {
		// The last segment is a symbol running to the end of the
		// address space.
		hi = ^uint64(0)
	}
	return lo, hi
}

// sym is a symbol while a table is built, with what perf's rules need.
// It holds no pointer (its name is a nameRef), so that building a table
// of 100,000 symbols costs the garbage collector nothing.
type sym struct {
	start, end uint64 // end == start: size unknown or zero
	ref        nameRef
	seq        int32 // insertion order, which decides among equal starts
	bind       uint8 // elf.SymBind (with seq and the flags, 8 bytes)
	gone       bool  // removed by a rule
	// raw: name is mangled: Demangle gives what perf prints; for a late
	// symbol, a PLT entry, pltName does (see addPLTEntry).
	raw  bool
	late bool // inserted after the fix-ups (see addLate)
}

// builder assembles a table by replaying what perf does to its rb-tree of
// symbols: inserts in file order, end fix-ups, duplicate removal, late
// inserts (PLT entries) and removals (kernel modules). The result does
// not depend on the tree's shape unless symbols overlap; then the tree is
// rebuilt exactly as perf's (same inserts, same erasures, same
// red-black rules) and searched as perf searches it.
type builder struct {
	syms []sym
	ops  []treeOp // tree operations after the initial inserts, in order
	// The symbols' names: cut from text, or in extra (see ref).
	text    string
	extra   []string
	backing *mapping // text's file mapping, if it is one
	// order is inOrder's last answer, for syms[:ordered].
	order   []int32
	ordered int
	// eager: decide every pair of aliases in removeDuplicates (for the
	// tests, which compare with lazy decisions).
	eager bool
	// scr, when set, lends the memory used only while building (see
	// scratch); nil: allocated.
	scr *scratch
}

// scratch is the memory a builder uses only while it builds a table: its
// symbols, their sort keys, the table index of each. The tables of a
// capture are built one after another, many of them of tens of thousands
// of symbols, so the memory is reused from one to the next (scratchPool)
// rather than allocated and cleared for each: loading the 28 objects of
// a 10 MB system-wide capture allocated 21 MB, 7 MB of it this. What is
// lent is not cleared: every use writes an element before reading it.
type scratch struct {
	syms      []sym
	keys, buf []orderKey
	tix       []int32
}

var scratchPool = newScratchPool()

func newScratchPool() *sync.Pool {
	return &sync.Pool{New: func() any { return new(scratch) }}
}

// takeScratch lends b the pool's scratch memory; b.releaseScratch gives
// it back once the table is built.
func (b *builder) takeScratch() { b.scr = scratchPool.Get().(*scratch) }

// releaseScratch returns b's scratch memory to the pool (keeping the
// symbols' slice, which may have grown); b must not be used afterwards.
func (b *builder) releaseScratch() {
	if b.scr == nil {
		return
	}
	b.scr.syms = b.syms[:0]
	b.syms = nil
	scratchPool.Put(b.scr)
	b.scr = nil
}

// lend returns a slice of n elements from *s, growing it when it is
// smaller: not cleared.
func lend[T any](s *[]T, n int) []T {
	if cap(*s) < n {
		*s = make([]T, n)
	}
	return (*s)[:n]
}

// newSyms returns an empty slice for the symbols, of capacity n.
func (b *builder) newSyms(n int) []sym {
	if b.scr == nil {
		return make([]sym, 0, n)
	}
	return lend(&b.scr.syms, n)[:0]
}

// orderKeys returns a slice of n sort keys, and one for sortKeys to sort
// them with.
func (b *builder) orderKeys(n int) (keys, buf []orderKey) {
	if b.scr == nil {
		return make([]orderKey, n), nil
	}
	return lend(&b.scr.keys, n), lend(&b.scr.buf, n)
}

type treeOp struct {
	insert bool
	idx    int32
	// lazy: an erasure of idx or alt (two aliases, alt first in tree
	// order) that only their printed names decide, left to build.
	lazy bool
	alt  int32
}

// nameRef is where a name is: text[off:off+n], or extra[off] when n is
// extraName.
type nameRef struct{ off, n uint32 }

const extraName = ^uint32(0)

// ref returns the reference of name: into b.text when name is a piece of
// it (as the names of a string table or kallsyms are), else a new entry
// of extra.
func (b *builder) ref(name string) nameRef {
	if len(name) == 0 {
		return nameRef{}
	}
	if len(b.text) > 0 {
		base := uintptr(unsafe.Pointer(unsafe.StringData(b.text)))
		p := uintptr(unsafe.Pointer(unsafe.StringData(name)))
		if p >= base && p-base <= uintptr(len(b.text)-len(name)) &&
			p-base < uintptr(extraName) && uint64(len(name)) < uint64(extraName) {
			return nameRef{uint32(p - base), uint32(len(name))}
		}
	}
	b.extra = append(b.extra, name)
	return nameRef{uint32(len(b.extra) - 1), extraName}
}

// name returns symbol i's name.
func (b *builder) name(i int32) string {
	r := b.syms[i].ref
	if r.n == extraName {
		return b.extra[r.off]
	}
	return b.text[r.off : r.off+r.n]
}

func (b *builder) add(start, end uint64, name string, bind elf.SymBind) {
	b.syms = append(b.syms, sym{start: start, end: end, ref: b.ref(name), bind: uint8(bind), seq: int32(len(b.syms))})
}

// addMangled adds a symbol whose name perf demangles; the demangling is
// left to the first lookup (most symbols of a large object are never
// looked up), or to removeDuplicates when perf's choice between aliases
// needs the printed name.
func (b *builder) addMangled(start, end uint64, name string, bind elf.SymBind) {
	b.add(start, end, name, bind)
	b.syms[len(b.syms)-1].raw = mayDemangle(name)
}

// addLate inserts a symbol after the fix-ups (perf's PLT entries).
func (b *builder) addLate(start, end uint64, name string, bind elf.SymBind) {
	b.add(start, end, name, bind)
	b.syms[len(b.syms)-1].late = true
	b.ops = append(b.ops, treeOp{insert: true, idx: int32(len(b.syms) - 1)})
}

// addPLTEntry inserts a PLT entry late (see addLate) called name, which
// ends in "@plt"; mangled reports that the part before is a mangled name
// that perf prints demangled: it is demangled on first lookup (pltName),
// as a PLT's names are rarely looked up.
func (b *builder) addPLTEntry(start, end uint64, name string, mangled bool) {
	b.addLate(start, end, name, elf.STB_GLOBAL)
	b.syms[len(b.syms)-1].raw = mangled
}

// pltName returns the name perf prints for a PLT entry whose name is a
// mangled name and "@plt".
func pltName(name string) string {
	return Demangle(strings.TrimSuffix(name, "@plt")) + "@plt"
}

// printedName returns symbol i's name as perf prints it, demangling it
// now if it was added mangled.
func (b *builder) printedName(i int32) string {
	if s := &b.syms[i]; s.raw {
		if s.late {
			b.setPrinted(i, pltName(b.name(i)))
		} else {
			b.setPrinted(i, Demangle(b.name(i)))
		}
	}
	return b.name(i)
}

// setPrinted gives symbol i its name as perf prints it.
func (b *builder) setPrinted(i int32, name string) {
	b.syms[i].ref, b.syms[i].raw = b.ref(name), false
}

// sortByStart sorts the symbols as perf's tree orders them: by start,
// equal starts in insertion order (seq). It must come before anything
// holds an index of them (inOrder, a tree operation). What follows
// (fix-ups, duplicate removal, the tree's nodes, the flattening) then
// walks them in memory order instead of jumping between cache lines:
// .symtab order is far from address order.
func (b *builder) sortByStart() {
	if len(b.ops) > 0 || b.order != nil {
		return
	}
	for i := 1; i < len(b.syms); i++ {
		if b.syms[i].start < b.syms[i-1].start {
			keys, buf := b.orderKeys(len(b.syms))
			for i := range b.syms {
				keys[i] = orderKey{b.syms[i].start, int32(i)}
			}
			permute(b.syms, sortKeysWith(keys, buf))
			return
		}
	}
}

// permute moves syms[keys[i].idx] to syms[i] for every i, in place, a
// cycle of the permutation at a time; it uses up keys.
func permute(syms []sym, keys []orderKey) {
	for i := range keys {
		if keys[i].idx < 0 {
			continue
		}
		tmp := syms[i]
		j := int32(i)
		for {
			k := keys[j].idx
			keys[j].idx = -1
			if k == int32(i) {
				syms[j] = tmp
				break
			}
			syms[j] = syms[k]
			j = k
		}
	}
}

// sortedBySeq reports whether the symbols first inserted (not late) are
// in the tree's order by index: by start, equal starts in insertion order
// (as sortByStart leaves them).
func (b *builder) sortedBySeq() bool {
	var last *sym
	for i := range b.syms {
		s := &b.syms[i]
		if s.late {
			continue
		}
		if last != nil && (s.start < last.start || s.start == last.start && s.seq < last.seq) {
			return false
		}
		last = s
	}
	return true
}

// inOrder returns the indices of the live symbols as perf's tree orders
// them: by start, equal starts in insertion order (index order unless
// sortByStart sorted them). Its answer is kept: a later call only drops
// the symbols erased since and merges those added since.
func (b *builder) inOrder() []int32 {
	if b.order != nil {
		return b.reorder()
	}
	sorted, live := true, 0
	var last uint64
	for i := range b.syms {
		if b.syms[i].gone {
			continue
		}
		if live > 0 && b.syms[i].start < last {
			sorted = false
		}
		last = b.syms[i].start
		live++
	}
	idx := make([]int32, 0, live)
	if sorted {
		for i := range b.syms {
			if !b.syms[i].gone {
				idx = append(idx, int32(i))
			}
		}
	} else {
		keys := make([]orderKey, 0, live)
		for i := range b.syms {
			if !b.syms[i].gone {
				keys = append(keys, orderKey{b.syms[i].start, int32(i)})
			}
		}
		for _, k := range sortKeys(keys) {
			idx = append(idx, k.idx)
		}
	}
	b.order, b.ordered = idx, len(b.syms)
	return idx
}

// reorder is inOrder after a first call: the kept order without the
// symbols erased since, merged with those added since (which come after
// any older symbol of the same start).
func (b *builder) reorder() []int32 {
	var added []orderKey
	for i := b.ordered; i < len(b.syms); i++ {
		if !b.syms[i].gone {
			added = append(added, orderKey{b.syms[i].start, int32(i)})
		}
	}
	added = sortKeys(added)
	idx := make([]int32, 0, len(b.order)+len(added))
	for _, i := range b.order {
		if b.syms[i].gone {
			continue
		}
		for len(added) > 0 && added[0].start < b.syms[i].start {
			idx = append(idx, added[0].idx)
			added = added[1:]
		}
		idx = append(idx, i)
	}
	for _, k := range added {
		idx = append(idx, k.idx)
	}
	b.order, b.ordered = idx, len(b.syms)
	return idx
}

type orderKey struct {
	start uint64
	idx   int32
}

// sortKeys sorts keys by start, keeping the order of equal starts (a
// radix sort, a byte at a time, skipping the bytes all keys share). It
// returns the sorted slice, keys or a new one.
func sortKeys(keys []orderKey) []orderKey { return sortKeysWith(keys, nil) }

// sortKeysWith is sortKeys with buf, when it is long enough, as the
// radix sort's second slice (then the result is keys or buf).
func sortKeysWith(keys, buf []orderKey) []orderKey {
	if len(keys) < 64 {
		slices.SortStableFunc(keys, func(x, y orderKey) int {
			switch {
			case x.start < y.start:
				return -1
			case x.start > y.start:
				return 1
			}
			return 0
		})
		return keys
	}
	if len(buf) < len(keys) {
		buf = make([]orderKey, len(keys))
	}
	buf = buf[:len(keys)]
	for shift := 0; shift < 64; shift += 8 {
		var count [256]int
		for _, k := range keys {
			count[byte(k.start>>shift)]++
		}
		if count[byte(keys[0].start>>shift)] == len(keys) {
			continue
		}
		pos := 0
		for d, c := range count {
			count[d] = pos
			pos += c
		}
		for _, k := range keys {
			d := byte(k.start >> shift)
			buf[count[d]] = k
			count[d]++
		}
		keys, buf = buf, keys
	}
	return keys
}

// fixupEnds gives symbols of unknown size the start of the next one as
// their end (perf's symbols__fixup_end). With kallsyms, the last symbol
// before a change between kernel and module symbols ends a page later,
// rounded up, instead; the last symbol of all ends at its start rounded
// up to a page, plus a page.
func (b *builder) fixupEnds(order []int32, kallsyms bool) {
	for i := 1; i < len(order); i++ {
		prev, curr := &b.syms[order[i-1]], &b.syms[order[i]]
		if prev.end != prev.start {
			continue
		}
		if kallsyms && isModuleName(b.name(order[i-1])) != isModuleName(b.name(order[i])) {
			prev.end = roundUp(prev.end+4096, 4096)
		} else {
			prev.end = curr.start
		}
	}
	if n := len(order); n > 0 {
		last := &b.syms[order[n-1]]
		if last.end == last.start {
			last.end = roundUp(last.start, 4096) + 4096
		}
	}
}

func isModuleName(name string) bool { return strings.IndexByte(name, '[') >= 0 }

func roundUp(x, to uint64) uint64 { return (x + to - 1) / to * to }

// demangleAliases demangles, on up to workers goroutines, the names
// removeDuplicates may compare: those of symbols sharing their start
// with two others or more (pairs are decided lazily; see
// removeDuplicates), so that it does not demangle them one by one. order
// is as inOrder returns it.
func (b *builder) demangleAliases(order []int32, workers int) {
	var list []int32
	for i := 0; i < len(order); {
		j := i + 1
		for j < len(order) && b.syms[order[j]].start == b.syms[order[i]].start {
			j++
		}
		if j-i > 2 {
			for _, si := range order[i:j] {
				if b.syms[si].raw {
					list = append(list, si)
				}
			}
		}
		i = j
	}
	if workers < 2 || len(list) < 256 {
		return // removeDuplicates demangles what it compares
	}
	names := make([]string, len(list))
	per := (len(list) + workers - 1) / workers
	parallel(workers, func(w int) {
		for k := min(w*per, len(list)); k < min((w+1)*per, len(list)); k++ {
			names[k] = Demangle(b.name(list[k]))
		}
	})
	for k, si := range list {
		b.setPrinted(si, names[k])
	}
}

// removeDuplicates keeps one symbol per start address, as perf's
// symbols__fixup_duplicate: walking in tree order, of two neighbours at
// one address choose_best_symbol keeps one; the erasures are recorded in
// the order perf performs them.
//
// Two aliases alone at their address, of one size, whose bindings tie
// are told apart only by their printed names; when one is mangled, the
// choice is left to build (see replay), to spare demangling them.
func (b *builder) removeDuplicates(order []int32) {
	if len(order) == 0 {
		return
	}
	curr := order[0]
	for i := 1; i < len(order); i++ {
		next := order[i]
		if b.syms[curr].start != b.syms[next].start {
			curr = next
			continue
		}
		x, y := &b.syms[curr], &b.syms[next]
		if _, decided := chooseBestByKind(x, y); !decided && !b.eager && (x.raw || y.raw) && x.end == y.end &&
			order[i-1] == curr && (i < 2 || b.syms[order[i-2]].start != x.start) &&
			(i+1 == len(order) || b.syms[order[i+1]].start != x.start) {
			// A pair: curr survives for now.
			y.gone = true
			b.ops = append(b.ops, treeOp{idx: next, lazy: true, alt: curr})
			continue
		}
		if b.chooseBest(curr, next) {
			b.erase(next)
		} else {
			b.erase(curr)
			curr = next
		}
	}
}

func (b *builder) erase(i int32) {
	b.syms[i].gone = true
	b.ops = append(b.ops, treeOp{idx: i})
}

// chooseBest reports whether perf's choose_best_symbol keeps symbol i
// over j (two symbols at one address, i first in tree order): the one
// with a size, then not weak, then global, then with fewer leading
// underscores, then with the longer name, then i. The names are those
// perf prints (demangled), looked at only when sizes and bindings do not
// decide.
func (b *builder) chooseBest(i, j int32) bool {
	x, y := &b.syms[i], &b.syms[j]
	if k, ok := chooseBestByKind(x, y); ok {
		return k
	}
	return b.chooseBestName(i, j)
}

// chooseBestName is choose_best_symbol's test of names for symbols i and
// j (chooseBestByName of the names perf prints), without demangling two
// variants of one constructor or destructor, which print alike
// (ctorVariants): then i.
func (b *builder) chooseBestName(i, j int32) bool {
	if b.syms[i].raw && b.syms[j].raw && ctorVariants(b.name(i), b.name(j)) {
		return true
	}
	return chooseBestByName(b.printedName(i), b.printedName(j))
}

// chooseBestByKind is choose_best_symbol's tests before the names; ok is
// false when they do not decide.
func chooseBestByKind(a, b *sym) (keepA, ok bool) {
	sa, sb := a.end-a.start, b.end-b.start
	if sb == 0 && sa > 0 {
		return true, true
	}
	if sa == 0 && sb > 0 {
		return false, true
	}
	wa, wb := elf.SymBind(a.bind) == elf.STB_WEAK, elf.SymBind(b.bind) == elf.STB_WEAK
	if wb && !wa {
		return true, true
	}
	if wa && !wb {
		return false, true
	}
	ga, gb := elf.SymBind(a.bind) == elf.STB_GLOBAL, elf.SymBind(b.bind) == elf.STB_GLOBAL
	if ga && !gb {
		return true, true
	}
	if gb && !ga {
		return false, true
	}
	return false, false
}

// chooseBestByName is choose_best_symbol's last tests: fewer leading
// underscores, then the longer name, then a.
func chooseBestByName(a, b string) bool {
	ua, ub := leadingUnderscores(a), leadingUnderscores(b)
	if ub > ua {
		return true
	}
	if ua > ub {
		return false
	}
	return len(a) >= len(b)
}

func leadingUnderscores(s string) int {
	n := 0
	for n < len(s) && s[n] == '_' {
		n++
	}
	return n
}

// build returns the table of the live symbols.
func (b *builder) build() *Table {
	order := b.inOrder()
	t := &Table{
		start: make([]uint64, len(order)),
		size0: make([]bool, len(order)),
		refs:  make([]nameRef, len(order)),
	}
	defer func() {
		// Names demangled while building are in extra.
		t.text, t.extra, t.backing = b.text, b.extra, b.backing
		t.index()
		t.prepareNames()
	}()
	for _, si := range order {
		if b.syms[si].raw {
			t.raw = make([]bool, len(order))
			break
		}
	}
	overlap, wraps := false, false
	for i, si := range order {
		s := &b.syms[si]
		t.start[i] = s.start
		t.size0[i] = s.end == s.start
		t.refs[i] = s.ref
		if s.raw {
			t.raw[i] = true
			if s.late {
				if t.plt == nil {
					t.plt = map[int32]bool{}
				}
				t.plt[int32(i)] = true
			}
		}
		if s.end < s.start || (s.end == s.start && s.start == ^uint64(0)) {
			// An end past the address space: only the tree
			// knows what perf makes of it.
			overlap, wraps = true, true
		}
		if i > 0 {
			p := &b.syms[order[i-1]]
			if p.start == s.start || p.end > s.start {
				overlap = true
			}
		}
	}
	// Table index of each builder symbol.
	var tix []int32
	if b.scr != nil {
		tix = lend(&b.scr.tix, len(b.syms))
		clear(tix)
	} else {
		tix = make([]int32, len(b.syms))
	}
	for i, si := range order {
		tix[si] = int32(i)
	}
	if !overlap {
		t.flatten(order, b.syms)
		// Without the tree, which alias survives changes nothing
		// but the name.
		for _, op := range b.ops {
			if op.lazy {
				t.setAlias(tix[op.alt], b.name(op.idx))
			}
		}
		return t
	}
	tree := b.replay(t, tix)
	if wraps {
		t.flattenTree(tree, b.syms, tix)
	} else {
		t.flattenOverlaps(tree, order, b.syms, tix)
	}
	return t
}

// atOrBefore returns the end of the entries of sorted s[lo:hi] at or
// before addr: s[:k] are, s[k:hi] are after it (given s[:lo] are).
func atOrBefore(s []uint64, lo, hi int, addr uint64) int {
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if s[m] <= addr {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// segStride is the number of segments between two entries of segIndex:
// 32 starts are four cache lines.
const segStride = 32

// index makes segIndex, for a table of many segments.
func (t *Table) index() {
	if len(t.segStart) < 8*segStride {
		return
	}
	t.segIndex = make([]uint64, 0, (len(t.segStart)+segStride-1)/segStride)
	for i := 0; i < len(t.segStart); i += segStride {
		t.segIndex = append(t.segIndex, t.segStart[i])
	}
}

// extEnd returns the address just past what a symbol covers: its end, its
// start + 1 for a symbol of size zero (perf's symbols__find matches its
// start).
func extEnd(s *sym) uint64 {
	if s.end == s.start {
		return s.start + 1
	}
	return s.end
}

// flattenOverlaps builds the segments of symbols that overlap somewhere,
// none running past the end of the address space. Symbols go in groups,
// each a run whose extents chain into one another. A symbol alone in its
// group is what perf's tree finds at its addresses: on the search path,
// a node starting after it starts past its end (so the search goes
// left), a node starting before it ends before its start (so it goes
// right); and addresses between groups are found by no node. So only
// the groups of several symbols need the tree, asked as flattenTree
// asks it, at every address where its answer can change.
func (t *Table) flattenOverlaps(tree *rbTree, order []int32, syms []sym, tix []int32) {
	t.segStart = make([]uint64, 0, 2*len(order))
	t.segSym = make([]int32, 0, 2*len(order))
	ask := func(addr uint64) int32 {
		if i := tree.find(addr); i >= 0 {
			return tix[i]
		}
		return -1
	}
	var points []uint64
	for i := 0; i < len(order); {
		s := &syms[order[i]]
		end := extEnd(s)
		j := i + 1
		for j < len(order) && syms[order[j]].start < end {
			end = max(end, extEnd(&syms[order[j]]))
			j++
		}
		// The next group's start, where this one's answers stop.
		next, last := uint64(0), j == len(order)
		if !last {
			next = syms[order[j]].start
		}
		if j == i+1 {
			t.push(s.start, int32(i))
			if last || next != end {
				t.push(end, -1)
			}
			i = j
			continue
		}
		points = points[:0]
		for k := i; k < j; k++ {
			points = append(points, syms[order[k]].start, syms[order[k]].end)
		}
		slices.Sort(points)
		points = slices.Compact(points)
		for k, p := range points {
			t.push(p, ask(p))
			if p == ^uint64(0) {
				break
			}
			if k+1 < len(points) {
				if points[k+1] > p+1 {
					t.push(p+1, ask(p+1))
				}
			} else if last || next > p+1 {
				t.push(p+1, ask(p+1))
			}
		}
		i = j
	}
}

// flatten builds the segments of non-overlapping symbols.
func (t *Table) flatten(order []int32, syms []sym) {
	// As many segments as symbols, and one more for each gap after a
	// symbol: made at that size, not twice the symbols.
	n := len(order)
	for i, si := range order {
		if !flatJoins(order, syms, i, si) {
			n++
		}
	}
	t.segStart = make([]uint64, 0, n)
	t.segSym = make([]int32, 0, n)
	for i, si := range order {
		s := &syms[si]
		t.push(s.start, int32(i))
		if flatJoins(order, syms, i, si) {
			continue
		}
		t.push(extEnd(s), -1)
	}
}

// flatJoins reports whether symbol order[i] = si ends where the next one
// starts (no gap segment between them).
func flatJoins(order []int32, syms []sym, i int, si int32) bool {
	return i+1 < len(order) && syms[order[i+1]].start == extEnd(&syms[si])
}

// push appends a segment, merging it with the previous one when they
// are at the same address (the later wins) or hold the same symbol.
func (t *Table) push(addr uint64, s int32) {
	n := len(t.segStart)
	if n > 0 && t.segStart[n-1] == addr {
		t.segSym[n-1] = s
		if n > 1 && t.segSym[n-2] == s {
			t.segStart = t.segStart[:n-1]
			t.segSym = t.segSym[:n-1]
		}
		return
	}
	if n > 0 && t.segSym[n-1] == s {
		return
	}
	if n == 0 && s < 0 {
		return
	}
	t.segStart = append(t.segStart, addr)
	t.segSym = append(t.segSym, s)
}

// replay rebuilds perf's tree: every symbol inserted in file order, then
// the recorded erasures and late inserts. A lazy erasure of two aliases
// (see removeDuplicates) stays undecided when the first has a right
// child: erasing either leaves a tree of the same shape, with one or the
// other in the same place (the first has the second as successor: with
// two children, the kernel's rb_erase moves the successor into its
// place and fixes up where the successor was, as erasing the successor
// itself does; with only a right child, that child is a red leaf, the
// second, and either erasure leaves one black leaf). Otherwise it is
// decided now, by their printed names, and t and tix follow: t is the
// table being built, tix the table index of each builder symbol.
func (b *builder) replay(t *Table, tix []int32) *rbTree {
	tree := newRBTree(b.syms)
	// The first inserts, in insertion order (sortByStart may have
	// sorted the symbols): bySeq[seq] is the symbol inserted seq-th, -1
	// for a late one (inserted by its op).
	bySeq := make([]int32, len(b.syms))
	for i := range bySeq {
		bySeq[i] = -1
	}
	for i := range b.syms {
		if !b.syms[i].late {
			bySeq[b.syms[i].seq] = int32(i)
		}
	}
	if b.sortedBySeq() {
		// The tree's order is index order: a node's neighbours
		// among those in are found in a bit set, not by a
		// descent that misses the cache on most of its levels.
		in := newNodeSet(len(b.syms))
		for _, i := range bySeq {
			if i >= 0 {
				tree.insertBetween(i, in.prev(i), in.next(i))
				in.add(i)
			}
		}
	} else {
		for _, i := range bySeq {
			if i >= 0 {
				tree.insert(i)
			}
		}
	}
	for _, op := range b.ops {
		switch {
		case op.insert:
			tree.insert(op.idx)
		case !op.lazy:
			tree.erase(op.idx)
		case tree.n[op.alt].right != rbNil:
			tree.erase(op.idx)
			t.setAlias(tix[op.alt], b.name(op.idx))
		default:
			keep, drop := op.alt, op.idx
			if !b.chooseBestName(keep, drop) {
				keep, drop = drop, keep
			}
			tree.erase(drop)
			b.syms[drop].gone, b.syms[keep].gone = true, false
			slot := tix[op.alt]
			tix[keep] = slot
			t.refs[slot] = b.syms[keep].ref
			if t.raw != nil {
				// Still mangled if ctorVariants decided.
				t.raw[slot] = b.syms[keep].raw
			}
		}
	}
	return tree
}

// flattenTree builds the segments by asking the tree, as perf's
// symbols__find does, at every address where the answer can change.
func (t *Table) flattenTree(tree *rbTree, syms []sym, tix []int32) {
	points := make([]uint64, 0, 2*len(t.start))
	for i := range syms {
		if syms[i].gone {
			continue
		}
		points = append(points, syms[i].start, syms[i].end)
	}
	slices.Sort(points)
	points = slices.Compact(points)
	ask := func(addr uint64) int32 {
		if i := tree.find(addr); i >= 0 {
			return tix[i]
		}
		return -1
	}
	for k, p := range points {
		t.push(p, ask(p))
		if p == ^uint64(0) {
			break
		}
		if k+1 == len(points) || points[k+1] > p+1 {
			t.push(p+1, ask(p+1))
		}
	}
}

// bytesToString returns the bytes of b as a string without copying them;
// b must never change afterwards (it is used on buffers the package reads
// a file into and then only cuts names from).
func bytesToString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}
