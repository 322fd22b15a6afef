package symbols

import (
	"strings"
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
func parseKallsymsFlat(k *Kernel, text string, m *mapping) (ok, hidden bool) {
	if uint64(len(text)) >= uint64(extraName) {
		return false, false
	}
	n := strings.Count(text, "\n") + 1
	start := make([]uint64, 0, n)
	refs := make([]nameRef, 0, n)
	flags := make([]uint8, 0, n)
	allZero, read := true, false
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
			k.Skipped++
			continue
		}
		read = true
		if addr != 0 {
			allZero = false
		}
		if (len(name) == 5 || len(name) == 6) && isFunctionType(typ) {
			for i, n := range refSymbols {
				if name == n && !k.refs[i].found {
					k.refs[i].addr, k.refs[i].found = addr, true
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
		off := at + len(l) - len(name)
		if l[len(l)-1] == '\r' {
			off--
		}
		start = append(start, addr)
		refs = append(refs, nameRef{uint32(off), uint32(len(name))})
		flags = append(flags, f)
	}
	if read && allZero {
		return true, true
	}
	n = len(start)
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
	// End fix-ups (builder.fixupEnds with kallsyms' rule), then the
	// duplicates (builder.removeDuplicates): end[i] is symbol i's.
	end := make([]uint64, n)
	for i := 0; i+1 < n; i++ {
		if (flags[i]^flags[i+1])&flatModule != 0 {
			end[i] = roundUp(start[i]+4096, 4096)
		} else {
			end[i] = start[i+1]
		}
	}
	if n > 0 {
		end[n-1] = roundUp(start[n-1], 4096) + 4096
	}
	name := func(i int) string { return text[refs[i].off : refs[i].off+refs[i].n] }
	if n > 0 {
		curr := 0
		for next := 1; next < n; next++ {
			if start[curr] != start[next] {
				curr = next
				continue
			}
			x := sym{start: start[curr], end: end[curr], bind: flags[curr] & flatBind}
			y := sym{start: start[next], end: end[next], bind: flags[next] & flatBind}
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
	// kernel's symbols compacted in place.
	type modTable struct {
		start, end []uint64
		refs       []nameRef
	}
	mods := map[string]*modTable{}
	var mod string
	var mt *modTable
	w := 0
	for i := 0; i < n; i++ {
		if flags[i]&flatGone != 0 {
			continue
		}
		nm := name(i)
		if flags[i]&flatTab != 0 {
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
			mt.end = append(mt.end, end[i])
			ref := nameRef{refs[i].off, uint32(tab)}
			if tab == 0 {
				ref = nameRef{} // as builder.ref makes it
			}
			mt.refs = append(mt.refs, ref)
			continue
		}
		if nm == entryTrampoline {
			continue
		}
		start[w], end[w], refs[w] = start[i], end[i], refs[i]
		w++
	}
	kt, good := flatTable(text, m, start[:w], end[:w], refs[:w])
	if !good {
		return false, false
	}
	tables := make(map[string]*Table, len(mods))
	for key, mt := range mods {
		t, good := flatTable(text, m, mt.start, mt.end, mt.refs)
		if !good {
			return false, false
		}
		tables[key] = t
	}
	k.Table, k.Modules = kt, tables
	return true, false
}

// Flags of a symbol in parseKallsymsFlat.
const (
	flatBind   = 0x03 // its elf.SymBind (local, global, weak)
	flatTab    = 0x04 // its name has a tab: a module's symbol
	flatModule = 0x08 // its name has a '[' (isModuleName)
	flatGone   = 0x10 // removed as a duplicate
)

// flatTable builds the table of symbols sorted by start, with distinct
// starts and their ends (end == start: size zero), as builder.build
// does for symbols that do not overlap; ok is false when they overlap or
// one ends past the address space (build then asks perf's tree).
func flatTable(text string, m *mapping, start, end []uint64, refs []nameRef) (*Table, bool) {
	n := len(start)
	for i := range n {
		if end[i] < start[i] || (end[i] == start[i] && start[i] == ^uint64(0)) {
			return nil, false
		}
		if i > 0 && (start[i-1] == start[i] || end[i-1] > start[i]) {
			return nil, false
		}
	}
	t := &Table{start: start, size0: make([]bool, n), refs: refs, text: text, backing: m}
	t.segStart = make([]uint64, 0, n+1)
	t.segSym = make([]int32, 0, n+1)
	for i := range n {
		t.size0[i] = end[i] == start[i]
		t.push(start[i], int32(i))
		e := end[i]
		if e == start[i] {
			e++
		}
		if i+1 < n && start[i+1] == e {
			continue
		}
		t.push(e, -1)
	}
	t.index()
	t.prepareNames()
	return t, true
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
