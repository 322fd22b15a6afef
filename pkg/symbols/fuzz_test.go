package symbols

import (
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
		// An empty result is possible ("_RC0": a crate with no name,
		// which perf prints as nothing too); an unbounded one is not.
		if out := Demangle(name); len(out) > maxCxxOutput+maxRustOutput(len(name)) {
			t.Fatalf("Demangle(%q): %d bytes", name, len(out))
		}
	})
}
