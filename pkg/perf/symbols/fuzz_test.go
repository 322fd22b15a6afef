package symbols

import (
	"bytes"
	"debug/elf"
	"testing"
)

// checkTable checks what every table promises: ascending segments,
// lookups that do not panic and stay within the table.
func checkTable(t *testing.T, tb *Table) {
	for i := 1; i < len(tb.segStart); i++ {
		if tb.segStart[i] <= tb.segStart[i-1] {
			t.Fatalf("segments out of order at %d: %#x after %#x", i, tb.segStart[i], tb.segStart[i-1])
		}
	}
	for _, a := range probeAddrs(tb, 64) {
		s, ok := tb.Lookup(a)
		if ok && s.Offset > a {
			t.Fatalf("%#x: offset %#x past the address", a, s.Offset)
		}
	}
}

func FuzzParseKallsyms(f *testing.F) {
	f.Add([]byte("ffffffff81000000 T _text\nffffffff81000010 t foo\tbar\nffffffffa0000000 t m\t[mod]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		sameKernel(t, string(data))
		k, err := ParseKallsyms("fuzz", data)
		if err != nil {
			return
		}
		checkTable(t, k.Table)
		for _, m := range k.Modules {
			checkTable(t, m)
		}
	})
}

func FuzzParsePerfMap(f *testing.F) {
	f.Add([]byte("7f0000001000 100 Interpreted:foo\n0x7f0000001050 0x0 zero size\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		tb, _ := ParsePerfMap(data)
		checkTable(t, tb)
	})
}

func FuzzELFTable(f *testing.F) {
	f.Add([]byte("\x7fELF\x02\x01\x01"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if ef, err := newELF("fuzz", bytes.NewReader(data)); err == nil {
			ef.size = int64(len(data))
			guard("fuzz", func() error {
				checkReadSymbols(t, ef)
				return nil
			})
		}
		tb, err := ELFTable("fuzz", data)
		if err != nil {
			return
		}
		checkTable(t, tb)
	})
}

func FuzzDemangle(f *testing.F) {
	for _, s := range []string{"_ZN2ns3AccIlE4workEl", "_RNvCs1234_7mycrate3foo", "_ZN3foo17h0123456789abcdefE", "camlA__b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if !mayDemangle(name) {
			if out := Demangle(name); out != name {
				t.Fatalf("mayDemangle(%q) is false but Demangle gives %q", name, out)
			}
		}
		// An empty result is possible ("_RC0": a crate with no name,
		// which perf prints as nothing too); an unbounded one is not.
		if out := Demangle(name); len(out) > maxCxxOutput+maxRustOutput(len(name)) {
			t.Fatalf("Demangle(%q): %d bytes", name, len(out))
		}
	})
}

// checkReadSymbols checks that openSymbols, its sections read or mapped,
// reads ef's symbol tables as debug/elf does: the same entries, or the
// same error. Only .dynsym may differ, where debug/elf fails on a
// malformed version section that openSymbols (like perf) does not read.
func checkReadSymbols(t *testing.T, ef *elfFile) {
	t.Helper()
	f := ef.f
	for _, c := range []struct {
		typ   elf.SectionType
		read  func() ([]elf.Symbol, error)
		mapIt bool
	}{
		{elf.SHT_SYMTAB, f.Symbols, false}, {elf.SHT_DYNSYM, f.DynamicSymbols, false},
		{elf.SHT_SYMTAB, f.Symbols, true}, {elf.SHT_DYNSYM, f.DynamicSymbols, true},
	} {
		want, werr := c.read()
		got, gerr := readSymbols(ef, c.typ, c.mapIt)
		if werr != nil || gerr != nil {
			if werr != nil && gerr != nil && werr.Error() == gerr.Error() {
				continue
			}
			if c.typ == elf.SHT_DYNSYM && gerr == nil && f.SectionByType(elf.SHT_GNU_VERSYM) != nil {
				continue
			}
			t.Fatalf("%v: readSymbols error %v, debug/elf %v", c.typ, gerr, werr)
		}
		if len(got) != len(want) {
			t.Fatalf("%v: %d symbols, debug/elf %d", c.typ, len(got), len(want))
		}
		for i, w := range want {
			g := got[i]
			if g.name != w.Name || g.value != w.Value || g.size != w.Size || g.section != w.Section || g.info != w.Info || g.other != w.Other {
				t.Fatalf("%v: symbol %d is %+v, debug/elf %+v", c.typ, i, g, w)
			}
		}
	}
}

// readSymbols returns every entry of the symbol table openSymbols opens,
// read by each (and checked against at).
func readSymbols(ef *elfFile, typ elf.SectionType, mapIt bool) ([]elfSym, error) {
	how := readIn
	if mapIt {
		how = mapWhole
	}
	st, err := ef.openSymbols(typ, how)
	if err != nil {
		return nil, err
	}
	var syms []elfSym
	st.each(func(s *elfSym) bool {
		if *s != st.at(len(syms)) {
			panic("each and at disagree")
		}
		syms = append(syms, *s)
		return true
	})
	return syms, nil
}
