package symbols

import (
	"debug/elf"
	"slices"
	"strings"
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
// file and PLT, or a perf map. A Table never changes once built, so it
// may be shared between goroutines. A nil *Table has no symbols.
type Table struct {
	// Flat segments: segStart[i] is where segment i starts (ascending); it
	// ends where segment i+1 starts. segSym[i] is the symbol covering it,
	// -1 for none.
	segStart []uint64
	segSym   []int32
	// Symbols, by index.
	start []uint64
	size0 []bool // symbol of size zero (start == end)
	names []string
}

// Lookup returns the symbol perf finds for addr, an address in the
// table's own space: file-relative for ELF files (what perf script prints
// for user frames), absolute for the kernel, its modules and perf maps.
// It does not allocate.
func (t *Table) Lookup(addr uint64) (Symbol, bool) {
	if t == nil {
		return Symbol{}, false
	}
	// Last segment starting at or before addr.
	lo, hi := 0, len(t.segStart)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if t.segStart[m] <= addr {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == 0 {
		return Symbol{}, false
	}
	s := t.segSym[lo-1]
	if s < 0 {
		return Symbol{}, false
	}
	st := t.start[s]
	return Symbol{Name: t.names[s], Offset: addr - st, ZeroSize: t.size0[s] && addr == st}, true
}

// Len returns the number of symbols in the table.
func (t *Table) Len() int {
	if t == nil {
		return 0
	}
	return len(t.names)
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
type sym struct {
	start, end uint64 // end == start: size unknown or zero
	name       string
	bind       elf.SymBind
	seq        int32 // insertion order, which decides among equal starts
	gone       bool  // removed by a rule
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
}

type treeOp struct {
	insert bool
	idx    int32
}

func (b *builder) add(start, end uint64, name string, bind elf.SymBind) {
	b.syms = append(b.syms, sym{start: start, end: end, name: name, bind: bind, seq: int32(len(b.syms))})
}

// addLate inserts a symbol after the fix-ups (perf's PLT entries).
func (b *builder) addLate(start, end uint64, name string, bind elf.SymBind) {
	b.add(start, end, name, bind)
	b.ops = append(b.ops, treeOp{insert: true, idx: int32(len(b.syms) - 1)})
}

// inOrder returns the indices of the live symbols as perf's tree orders
// them: by start, equal starts in insertion order.
func (b *builder) inOrder() []int32 {
	idx := make([]int32, 0, len(b.syms))
	for i := range b.syms {
		if !b.syms[i].gone {
			idx = append(idx, int32(i))
		}
	}
	slices.SortStableFunc(idx, func(x, y int32) int {
		sx, sy := b.syms[x].start, b.syms[y].start
		switch {
		case sx < sy:
			return -1
		case sx > sy:
			return 1
		}
		return 0
	})
	return idx
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
		if kallsyms && isModuleName(prev.name) != isModuleName(curr.name) {
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

// removeDuplicates keeps one symbol per start address, as perf's
// symbols__fixup_duplicate: walking in tree order, of two neighbours at
// one address choose_best_symbol keeps one; the erasures are recorded in
// the order perf performs them.
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
		if chooseBest(&b.syms[curr], &b.syms[next]) {
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

// chooseBest reports whether perf's choose_best_symbol keeps a over b
// (two symbols at one address, a first in tree order): the one with a
// size, then not weak, then global, then with fewer leading
// underscores, then with the longer name, then a.
func chooseBest(a, b *sym) bool {
	sa, sb := a.end-a.start, b.end-b.start
	if sb == 0 && sa > 0 {
		return true
	}
	if sa == 0 && sb > 0 {
		return false
	}
	wa, wb := a.bind == elf.STB_WEAK, b.bind == elf.STB_WEAK
	if wb && !wa {
		return true
	}
	if wa && !wb {
		return false
	}
	ga, gb := a.bind == elf.STB_GLOBAL, b.bind == elf.STB_GLOBAL
	if ga && !gb {
		return true
	}
	if gb && !ga {
		return false
	}
	ua, ub := leadingUnderscores(a.name), leadingUnderscores(b.name)
	if ub > ua {
		return true
	}
	if ua > ub {
		return false
	}
	return len(a.name) >= len(b.name)
}

func leadingUnderscores(s string) int {
	n := 0
	for n < len(s) && s[n] == '_' {
		n++
	}
	return n
}

// build returns the table of the live symbols. nameOf maps a symbol to
// the name the table keeps (kallsyms names lose their module suffix).
func (b *builder) build(nameOf func(string) string) *Table {
	order := b.inOrder()
	t := &Table{
		start: make([]uint64, len(order)),
		size0: make([]bool, len(order)),
		names: make([]string, len(order)),
	}
	// Table index of each builder symbol.
	tix := make([]int32, len(b.syms))
	overlap := false
	for i, si := range order {
		s := &b.syms[si]
		t.start[i] = s.start
		t.size0[i] = s.end == s.start
		n := s.name
		if nameOf != nil {
			n = nameOf(n)
		}
		t.names[i] = n
		tix[si] = int32(i)
		if s.end < s.start || (s.end == s.start && s.start == ^uint64(0)) {
			// An end past the address space: only the tree
			// knows what perf makes of it.
			overlap = true
		}
		if i > 0 {
			p := &b.syms[order[i-1]]
			if p.start == s.start || p.end > s.start {
				overlap = true
			}
		}
	}
	if !overlap {
		t.flatten(order, b.syms)
		return t
	}
	tree := b.replay()
	t.flattenTree(tree, b.syms, tix)
	return t
}

// flatten builds the segments of non-overlapping symbols.
func (t *Table) flatten(order []int32, syms []sym) {
	t.segStart = make([]uint64, 0, 2*len(order))
	t.segSym = make([]int32, 0, 2*len(order))
	for i, si := range order {
		s := &syms[si]
		t.push(s.start, int32(i))
		end := s.end
		if end == s.start {
			end++ // a symbol of size zero matches its start only
		}
		if i+1 < len(order) && syms[order[i+1]].start == end {
			continue
		}
		t.push(end, -1)
	}
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
// the recorded erasures and late inserts.
func (b *builder) replay() *rbTree {
	tree := newRBTree(b.syms)
	late := make(map[int32]bool)
	for _, op := range b.ops {
		if op.insert {
			late[op.idx] = true
		}
	}
	for i := range b.syms {
		if !late[int32(i)] {
			tree.insert(int32(i))
		}
	}
	for _, op := range b.ops {
		if op.insert {
			tree.insert(op.idx)
		} else {
			tree.erase(op.idx)
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
