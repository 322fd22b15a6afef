package symbols

import (
	"debug/elf"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"flamekit/internal/testkit/golden"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// Names and what perf 6.1 prints for them on this machine (checked with
// perf script or perf probe -F on the binaries they come from).
func TestDemangle(t *testing.T) {
	tests := []struct{ in, want string }{
		// C++ without parameters.
		{"_ZN2ns3AccIlE4workEl", "ns::Acc<long>::work"},
		{"_ZN3geo6MatrixIdLi48EE8multiplyERKS0_", "geo::Matrix<double, 48>::multiply"},
		{"_ZNSt17_Function_handlerIFiiiEZ4mainEUliiE0_E9_M_invokeERKSt9_Any_dataOiS6_",
			"std::_Function_handler<int (int, int), main::{lambda(int, int)#2}>::_M_invoke"},
		{"_ZN12_GLOBAL__N_110hidden_mixEm", "(anonymous namespace)::hidden_mix"},
		{"_ZNKSt6vectorIiSaIiEE4sizeEv", "std::vector<int, std::allocator<int> >::size"},
		{"_ZN3foo3barEv.cold", "foo::bar"},
		// libiberty's printing, where the Go demangler alone differs.
		{"_ZN2v88internal28CFunctionBuilderWithFunctionINS_16CTypeInfoBuilderIvJEEEJNS2_INS_5LocalINS_5ValueEEEJEEEEE5BuildEv",
			"v8::internal::CFunctionBuilderWithFunction<v8::CTypeInfoBuilder<void>, v8::CTypeInfoBuilder<v8::Local<v8::Value>> >::Build"},
		{"_ZN4node11SPrintFImplISt17basic_string_viewIcSt11char_traitsIcEEJEEENSt7__cxx1112basic_stringIcS3_SaIcEEEPKcOT_DpOT0_",
			"node::SPrintFImpl<std::basic_string_view<char, std::char_traits<char> >>"},
		{"_ZN17ResourceHashtableIPK13InstanceKlass9OopHandleXadL_Z14primitive_hashIS2_EjRKT_EEXadL_Z16primitive_equalsIS2_EbS7_S7_EELj107ELN11ResourceObj15allocation_typeE2EL8MEMFLAGS1EED1Ev",
			"ResourceHashtable<InstanceKlass const*, OopHandle, &(unsigned int primitive_hash<InstanceKlass const*>(InstanceKlass const* const&)), &(bool primitive_equals<InstanceKlass const*>(InstanceKlass const* const&, InstanceKlass const* const&)), 107u, (ResourceObj::allocation_type)2, (MEMFLAGS)1>::~ResourceHashtable"},
		// Rust legacy: hash hidden, escapes decoded, .llvm suffix dropped.
		{"_ZN8rustprog8hash_all17h1a2b3c4d5e6f7a8bE", "rustprog::hash_all"},
		{"_ZN4core3ptr116drop_in_place$LT$alloc..boxed..Box$LT$dyn$u20$rustprog..Digest$u2b$core..marker..Sync$u2b$core..marker..Send$GT$$GT$17h85526d4e7b6e399dE.llvm.505246399883600701",
			"core::ptr::drop_in_place<alloc::boxed::Box<dyn rustprog::Digest+core::marker::Sync+core::marker::Send>>"},
		{"_ZN4core3ops8function6FnOnce40call_once$u7b$$u7b$vtable.shim$u7d$$u7d$17h0123456789abcdefE",
			"core::ops::function::FnOnce::call_once{{vtable.shim}}"},
		// A '_' after the length is part of a legacy identifier, as
		// libiberty reads it (the Go library takes it as a separator).
		{"_ZN3foo4_bar17h0123456789abcdefE", "foo::_bar"},
		{"_ZN3foo1_17h0123456789abcdefE", "foo::_"},
		// Not a Rust hash (fewer than 5 distinct digits): C++ then.
		{"_ZN3foo3bar17h0000000000000000E", "foo::bar::h0000000000000000"},
		// Rust v0.
		{"_RNvNCNvNtCsjrHSEGnQ3l9_3std9panicking12default_hook011FIRST_PANIC", "std::panicking::default_hook::{closure#0}::FIRST_PANIC"},
		{"_RNCNCNCNvNtCsjrHSEGnQ3l9_3std2rt19lang_start_internal00s_0B9_", "std::rt::lang_start_internal::{closure#0}::{closure#0}::{closure#1}"},
		{"_RNvMCskK7mfDs1mzF_1mINtB2_3ArrKj10_E3sumB2_", "<m::Arr<16>>::sum"},
		{"_RINvNtCsgEmfK2I1SDS_4core3ptr13drop_in_placeINtNtCslNYArtu3iFV_5alloc5boxed3BoxDINtNtNtB4_3ops8function6FnOnceuEp6OutputuNtNtB4_6marker4SendEL_EECs5Twcq6v3dPb_8rustprog",
			"core::ptr::drop_in_place::<alloc::boxed::Box<dyn core::ops::function::FnOnce<(), Output = ()> + core::marker::Send>>"},
		{"_RNvCsgStHSCytQ6I_7mycrateu30____7hkackfecea1cbdathfdh9hlq6y", "mycrate::საჭმელად_გემრიელი_სადილი"},
		{"_RNvCs1234_7mycrate3foo.llvm.123", "mycrate::foo"},
		{"_RNvCs1234_7mycrate", "_RNvCs1234_7mycrate"}, // truncated
		// OCaml.
		{"camlStdlib__array__map_154", "Stdlib.array.map_154"},
		{"camlFoo$21bar", "Foo!bar"},
		// Left alone.
		{"main.(*Pool).run", "main.(*Pool).run"},
		{"slices.pdqsortOrdered[go.shape.int]", "slices.pdqsortOrdered[go.shape.int]"},
		{"_start", "_start"},
		{"_Z", "_Z"},
		{"caml", "caml"},
		{"", ""},
	}
	for _, tc := range tests {
		if got := Demangle(tc.in); got != tc.want {
			t.Errorf("Demangle(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}

func TestChooseBest(t *testing.T) {
	type named struct {
		sym
		name string
	}
	s := func(size uint64, bind elf.SymBind, name string) named {
		return named{sym{start: 100, end: 100 + size, bind: uint8(bind)}, name}
	}
	tests := []struct {
		name  string
		a, b  named
		wantA bool
	}{
		{"sized beats unsized", s(0, elf.STB_GLOBAL, "a"), s(8, elf.STB_LOCAL, "b"), false},
		{"unsized loses", s(8, elf.STB_LOCAL, "a"), s(0, elf.STB_GLOBAL, "b"), true},
		{"non-weak beats weak", s(8, elf.STB_WEAK, "a"), s(8, elf.STB_LOCAL, "b"), false},
		{"global beats local", s(8, elf.STB_LOCAL, "a"), s(8, elf.STB_GLOBAL, "b"), false},
		{"fewer underscores", s(8, elf.STB_GLOBAL, "__a"), s(8, elf.STB_GLOBAL, "_b"), false},
		{"longer name", s(8, elf.STB_GLOBAL, "abc"), s(8, elf.STB_GLOBAL, "abcd"), false},
		{"tie keeps the first", s(8, elf.STB_GLOBAL, "abc"), s(8, elf.STB_GLOBAL, "xyz"), true},
	}
	for _, tc := range tests {
		if got := chooseBest(&tc.a.sym, &tc.b.sym, tc.a.name, tc.b.name); got != tc.wantA {
			t.Errorf("%s: chooseBest = %v, want %v", tc.name, got, tc.wantA)
		}
	}
}

// checkRB verifies the red-black and search-tree properties of t and
// returns its nodes in order.
func checkRB(t *testing.T, tr *rbTree) []int32 {
	t.Helper()
	var order []int32
	var walk func(n, parent int32) int
	walk = func(n, parent int32) int {
		if n == rbNil {
			return 1
		}
		if tr.n[n].parent != parent {
			t.Fatalf("node %d: parent %d, want %d", n, tr.n[n].parent, parent)
		}
		if tr.n[n].red && (tr.isRed(tr.n[n].left) || tr.isRed(tr.n[n].right)) {
			t.Fatalf("node %d: red with a red child", n)
		}
		lh := walk(tr.n[n].left, n)
		order = append(order, n)
		rh := walk(tr.n[n].right, n)
		if lh != rh {
			t.Fatalf("node %d: black heights %d and %d", n, lh, rh)
		}
		if !tr.n[n].red {
			lh++
		}
		return lh
	}
	if tr.isRed(tr.root) {
		t.Fatal("red root")
	}
	walk(tr.root, rbNil)
	return order
}

// The tree keeps the shape rules of lib/rbtree.c: checked here through
// its invariants and its order (by start, equal starts in insertion
// order) over random inserts and erasures; the exact shape is checked
// against perf by the oracle tests.
func TestRBTree(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 50; round++ {
		n := 1 + rng.IntN(300)
		syms := make([]sym, n)
		for i := range syms {
			syms[i].start = uint64(rng.IntN(n / 2 * 8))
			syms[i].seq = int32(i)
		}
		tr := newRBTree(syms)
		live := map[int32]bool{}
		for i := range syms {
			tr.insert(int32(i))
			live[int32(i)] = true
			if rng.IntN(3) == 0 {
				// Erase a random live node.
				for k := range live {
					tr.erase(k)
					delete(live, k)
					break
				}
			}
		}
		order := checkRB(t, tr)
		if len(order) != len(live) {
			t.Fatalf("round %d: %d nodes in the tree, want %d", round, len(order), len(live))
		}
		if !slices.IsSortedFunc(order, func(a, b int32) int {
			if syms[a].start != syms[b].start {
				return int(int64(syms[a].start) - int64(syms[b].start))
			}
			return int(a - b)
		}) {
			t.Fatalf("round %d: in-order walk not sorted by (start, insertion)", round)
		}
	}
}

// dumpTable writes a table's lookups at its probe addresses.
func dumpTable(b *strings.Builder, title string, tb *Table) {
	fmt.Fprintf(b, "== %s: %d symbols\n", title, tb.Len())
	addrs := probeAddrs(tb, 0)
	slices.Sort(addrs)
	for _, a := range addrs {
		s, ok := tb.Lookup(a)
		fmt.Fprintf(b, "%x %s", a, oracleText(s, ok))
		if s.ZeroSize {
			b.WriteString(" (zero size)")
		}
		b.WriteByte('\n')
	}
}

func TestKallsymsGolden(t *testing.T) {
	data, err := os.ReadFile("testdata/kallsyms/fixture.txt")
	if err != nil {
		t.Fatal(err)
	}
	k, err := ParseKallsyms("fixture.txt", data)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "skipped lines: %d\n", k.Skipped)
	dumpTable(&b, "kernel", k.Table)
	mods := make([]string, 0, len(k.Modules))
	for m := range k.Modules {
		mods = append(mods, m)
	}
	slices.Sort(mods)
	for _, m := range mods {
		dumpTable(&b, "module "+m, k.Modules[m])
	}
	golden.Check(t, "testdata/golden/kallsyms.txt", []byte(b.String()))
}

func TestKallsymsRestricted(t *testing.T) {
	_, err := ParseKallsyms("kallsyms", []byte("0000000000000000 T _text\n0000000000000000 t foo\n"))
	if err == nil || !strings.Contains(err.Error(), "kptr_restrict") {
		t.Errorf("all-zero kallsyms: err = %v, want one naming kptr_restrict", err)
	}
}

func TestELFGolden(t *testing.T) {
	bin, cache, id := fixtureFiles(t)
	r := NewResolver(Options{BuildIDDir: cache, DebugDir: t.TempDir()})
	var b strings.Builder
	for _, c := range []struct{ name, id, title string }{
		{"fixture", "", "fixture, no build-id recorded"},
		{"fixture.stripped", id, "stripped copy: .symtab from its debuglink file"},
		{"replaced", id, "replaced since the capture: the build-id cache's copy"},
		{"replaced", "feedfacefeedfacefeedfacefeedfacefeedface", "build-id found nowhere"},
	} {
		tb := r.DSOTable(filepath.Join(bin, c.name), c.id)
		if tb == nil {
			fmt.Fprintf(&b, "== %s: no symbols\n", c.title)
			continue
		}
		dumpTable(&b, c.title, tb)
	}
	for _, m := range r.Missing() {
		fmt.Fprintf(&b, "missing %s %s: build-id mismatch %v\n", filepath.Base(m.Path), m.BuildID, errors.Is(m.Err, ErrBuildIDMismatch))
	}
	golden.Check(t, "testdata/golden/elf.txt", []byte(b.String()))
}

func TestELFTableDynsymOnly(t *testing.T) {
	var b strings.Builder
	for _, name := range []string{"fixture.stripped", "libfixture.so"} {
		data, err := os.ReadFile("testdata/elf/" + name)
		if err != nil {
			t.Fatal(err)
		}
		tb, err := ELFTable(name, data)
		if err != nil {
			t.Fatal(err)
		}
		dumpTable(&b, name+" alone: .dynsym, and the PLT when .dynsym defines symbols", tb)
	}
	golden.Check(t, "testdata/golden/elf-dynsym.txt", []byte(b.String()))
}

func TestPerfMapGolden(t *testing.T) {
	var b strings.Builder
	tb, skipped := ParsePerfMap(syntheticPerfMap(1))
	fmt.Fprintf(&b, "synthetic: %d lines skipped\n", skipped)
	dumpTable(&b, "synthetic", tb)
	for _, name := range []string{"java", "node"} {
		data, err := golden.Read("testdata/parity/" + name + ".perf-map.gz")
		if err != nil {
			t.Fatal(err)
		}
		tb, skipped := ParsePerfMap(data)
		fmt.Fprintf(&b, "%s: %d lines skipped\n", name, skipped)
		dumpTable(&b, name, tb)
	}
	golden.Check(t, "testdata/golden/perfmap.txt.gz", []byte(b.String()))
}

func TestPerfMapLines(t *testing.T) {
	tests := []struct {
		line string
		addr uint64
		want string
	}{
		{"1000 10 name with blanks\n", 0x1005, "name with blanks+0x5"},
		{"0x2000 0x10 LazyCompile:~f\n", 0x2000, "LazyCompile:~f+0x0"},
		{"3000 10 ab\n", 0x3000, "[unknown]"},         // too short for perf
		{"4000 10 abcd", 0x4000, "abc+0x0"},           // no newline: perf drops the last byte
		{"4000 10 abc", 0x4000, "[unknown]"},          // … leaving too short a name
		{"  5000 10 lead\n", 0x5001, "lead+0x1"},      // strtoull skips blanks
		{"zz 10 bad start\n", 0, " 10 bad start+0x0"}, // as perf reads it
	}
	for _, tc := range tests {
		tb, _ := ParsePerfMap([]byte(tc.line))
		if got := oracleText(tb.Lookup(tc.addr)); got != tc.want {
			t.Errorf("%q at %#x: %q, want %q", tc.line, tc.addr, got, tc.want)
		}
	}
}

func TestResolverObjects(t *testing.T) {
	mapDir := t.TempDir()
	os.WriteFile(filepath.Join(mapDir, "perf-77.map"), []byte("7f0000001000 100 Interpreted:foo\n"), 0o644)
	r := NewResolver(Options{BuildIDDir: t.TempDir(), DebugDir: t.TempDir(), PerfMapDir: mapDir,
		Kallsyms: "testdata/kallsyms/fixture.txt", KernelNotes: "/nonexistent"})
	for _, name := range []string{"[heap]", "[stack]", "//anon", "[unknown]", "/memfd:sealed-1a2b (deleted)", "/dev/zero", "/SYSV00000000 (deleted)"} {
		if r.DSOTable(name, "") != nil {
			t.Errorf("%s: a table, want none", name)
		}
	}
	if got := oracleText(r.DSO("/tmp/perf-77.map", "", 0x7f0000001010)); got != "Interpreted:foo+0x10" {
		t.Errorf("perf map through DSO: %q", got)
	}
	if got := oracleText(r.Kernel("", 0xffffffff81000310)); got != "do_syscall_64_x+0x10" {
		t.Errorf("running kernel from Options.Kallsyms: %q", got)
	}
	if addr, ok := r.KernelSymbolAddr("", "_text"); !ok || addr != 0xffffffff81000000 {
		t.Errorf("KernelSymbolAddr(_text) = %#x, %v", addr, ok)
	}
	if got := oracleText(r.Module("", "[mod_b]", 0xffffffffa0000181)); got != "mod_b_last+0x1" {
		t.Errorf("module: %q", got)
	}
	if _, ok := r.Kernel("00112233445566778899aabbccddeeff00112233", 0xffffffff81000310); ok {
		t.Error("a kernel found for a build-id that is neither cached nor running")
	}
	r.DSO("/nonexistent/lib.so", "", 0)
	r.PerfMap(78, 0, ^uint64(0))
	var got []string
	for _, m := range r.Missing() {
		got = append(got, m.Path)
	}
	want := []string{"[kernel.kallsyms]", "/nonexistent/lib.so", filepath.Join(mapDir, "perf-78.map")}
	if !slices.Equal(got, want) {
		t.Errorf("Missing() paths = %q, want %q", got, want)
	}
}

func TestLookupDoesNotAllocate(t *testing.T) {
	data, _ := os.ReadFile("testdata/kallsyms/fixture.txt")
	k, err := ParseKallsyms("fixture", data)
	if err != nil {
		t.Fatal(err)
	}
	r := NewResolver(Options{})
	fixture, _ := filepath.Abs("testdata/elf/fixture")
	r.DSOTable(fixture, "")
	allocs := testing.AllocsPerRun(100, func() {
		k.Table.Lookup(0xffffffff81000310)
		r.DSO(fixture, "", 0x11a0)
	})
	if allocs != 0 {
		t.Errorf("%v allocations per lookup, want 0", allocs)
	}
}

// TestReadSymbols checks the package's ELF symbol table reader against
// debug/elf's on the fixtures and on large objects of this machine.
func TestReadSymbols(t *testing.T) {
	paths := []string{"testdata/elf/fixture", "testdata/elf/fixture.debug", "testdata/elf/fixture.stripped", "testdata/elf/libfixture.so"}
	for _, p := range []string{"/usr/lib/x86_64-linux-gnu/libc.so.6", "/usr/bin/node", "/usr/lib/jvm/java-17-openjdk-amd64/lib/server/libjvm.so"} {
		if _, err := os.Stat(p); err == nil && !testing.Short() {
			paths = append(paths, p)
		}
	}
	for _, p := range paths {
		ef, err := openELF(p)
		if err != nil {
			t.Fatal(err)
		}
		checkReadSymbols(t, ef)
		ef.Close()
	}
}

// flattenOverlaps asks perf's tree only inside groups of overlapping
// symbols; over random tables with overlaps, aliases, symbols of size
// zero and late inserts it gives the segments of flattenTree, which asks
// the tree everywhere.
func TestFlattenOverlaps(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for round := 0; round < 2000; round++ {
		var b builder
		n := 1 + rng.IntN(60)
		for i := 0; i < n; i++ {
			start := uint64(rng.IntN(4 * n))
			var size uint64
			switch rng.IntN(4) {
			case 0: // size zero
			case 1:
				size = uint64(1 + rng.IntN(3))
			default:
				size = uint64(1 + rng.IntN(12))
			}
			if rng.IntN(10) == 0 {
				b.addLate(start, start+size, "late", elf.STB_GLOBAL)
			} else {
				b.add(start, start+size, "s", elf.STB_GLOBAL)
			}
		}
		if round%2 == 0 {
			order := b.inOrder()
			b.fixupEnds(order, false)
			b.removeDuplicates(order)
		}
		order := b.inOrder()
		tix := make([]int32, len(b.syms))
		for i, si := range order {
			tix[si] = int32(i)
		}
		tree := b.replay(&Table{refs: make([]nameRef, len(order))}, tix)
		var want, got Table
		want.flattenTree(tree, b.syms, tix)
		got.flattenOverlaps(tree, order, b.syms, tix)
		if !slices.Equal(got.segStart, want.segStart) || !slices.Equal(got.segSym, want.segSym) {
			t.Fatalf("round %d: segments\n%v %v\nwant\n%v %v\nsymbols %+v", round, got.segStart, got.segSym, want.segStart, want.segSym, b.syms)
		}
	}
}

// TestSegIndex checks that Lookup finds through segIndex what a binary
// search of every segment finds, at every segment's start and around it,
// and outside the table, for tables of sizes around the index's strides.
func TestSegIndex(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{1, 255, 256, 257, 8 * segStride, 1000, 4097} {
		var b builder
		var addr uint64 = 0x1000
		for i := range n {
			size := uint64(1 + rng.IntN(40))
			b.add(addr, addr+size, fmt.Sprintf("s%d", i), elf.STB_GLOBAL)
			addr += size + uint64(rng.IntN(3)*8) // a gap, or none
		}
		tb := b.build()
		if (tb.segIndex != nil) != (len(tb.segStart) >= 8*segStride) {
			t.Fatalf("%d symbols: %d segments, index %v", n, len(tb.segStart), tb.segIndex != nil)
		}
		// The same table without its index.
		plain := &Table{segStart: tb.segStart, segSym: tb.segSym, start: tb.start, size0: tb.size0,
			text: tb.text, refs: tb.refs, extra: tb.extra, raw: tb.raw, made: tb.made, alias: tb.alias}
		check := func(a uint64) {
			got, gok := tb.Lookup(a)
			want, wok := plain.Lookup(a)
			if got != want || gok != wok {
				t.Fatalf("%d symbols: Lookup(%#x) = %+v %v, without the index %+v %v", n, a, got, gok, want, wok)
			}
		}
		check(0)
		check(^uint64(0))
		for _, s := range tb.segStart {
			check(s - 1)
			check(s)
			check(s + 1)
		}
	}
}

// sortKeys is a stable sort by start.
func TestSortKeys(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{0, 1, 10, 63, 64, 65, 1000, 5000} {
		for _, spread := range []uint64{4, 1 << 20, 1 << 62} {
			keys := make([]orderKey, n)
			for i := range keys {
				keys[i] = orderKey{0xffffffff80000000 + rng.Uint64N(spread), int32(i)}
			}
			want := slices.Clone(keys)
			slices.SortStableFunc(want, func(x, y orderKey) int {
				switch {
				case x.start < y.start:
					return -1
				case x.start > y.start:
					return 1
				}
				return 0
			})
			if got := sortKeys(keys); !slices.Equal(got, want) {
				t.Fatalf("n %d spread %#x: not the stable order", n, spread)
			}
		}
	}
}

// inOrder after erasures and late inserts is the order of a fresh sort.
func TestInOrderIncremental(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for round := 0; round < 300; round++ {
		var b builder
		n := rng.IntN(200)
		for i := 0; i < n; i++ {
			b.add(uint64(rng.IntN(3*n+1)), 0, "s", elf.STB_GLOBAL)
		}
		if round%3 == 0 {
			slices.SortFunc(b.syms, func(x, y sym) int { return int(int64(x.start) - int64(y.start)) })
		}
		b.inOrder()
		for k := 0; k < 3; k++ {
			for i := range b.syms {
				if rng.IntN(5) == 0 && !b.syms[i].gone {
					b.erase(int32(i))
				}
			}
			for i := rng.IntN(20); i > 0; i-- {
				b.addLate(uint64(rng.IntN(3*n+1)), 0, "late", elf.STB_GLOBAL)
			}
			got := b.inOrder()
			fresh := builder{syms: b.syms}
			if want := fresh.inOrder(); !slices.Equal(got, want) {
				t.Fatalf("round %d: %v, want %v", round, got, want)
			}
		}
	}
}

// Pairs of aliases left to the first lookup give the tables, names and
// all, that deciding them while building gives, over random tables of
// mangled names with overlaps, aliases and late inserts: this checks the
// claim of replay that the choice does not change the tree's shape.
func TestLazyAliases(t *testing.T) {
	names := []string{"_Z1av", "_Z2bbv", "_Z3cccv", "_Z2_av", "_Z3__av", "_ZN1a1bEv", "_ZN2aa1bC1Ev", "_ZN2aa1bC2Ev", "plain", "__plain", "_Zbad"}
	rng := rand.New(rand.NewPCG(9, 10))
	for round := 0; round < 3000; round++ {
		type in struct {
			start, size uint64
			name        string
			bind        elf.SymBind
			late        bool
		}
		var ins []in
		n := 1 + rng.IntN(80)
		for i := 0; i < n; i++ {
			e := in{start: uint64(rng.IntN(2 * n)), name: names[rng.IntN(len(names))], bind: elf.STB_GLOBAL}
			if rng.IntN(3) > 0 {
				e.size = uint64(1 + rng.IntN(6))
			}
			if rng.IntN(8) == 0 {
				e.bind = elf.STB_WEAK
			}
			if rng.IntN(4) == 0 && i > 0 {
				// An alias of an earlier symbol.
				p := ins[rng.IntN(i)]
				e.start, e.size, e.bind = p.start, p.size, p.bind
			}
			e.late = rng.IntN(15) == 0
			ins = append(ins, e)
		}
		build := func(eager bool) *Table {
			b := builder{eager: eager}
			for _, e := range ins {
				if !e.late {
					b.addMangled(e.start, e.start+e.size, e.name, e.bind)
				}
			}
			order := b.inOrder()
			b.fixupEnds(order, false)
			b.removeDuplicates(order)
			for _, e := range ins {
				if e.late {
					b.addLate(e.start, e.start+e.size, Demangle(e.name)+"@plt", e.bind)
				}
			}
			return b.build()
		}
		lazy, eager := build(false), build(true)
		if !slices.Equal(lazy.segStart, eager.segStart) || !slices.Equal(lazy.segSym, eager.segSym) {
			t.Fatalf("round %d: segments differ\n%v %v\n%v %v\n%+v", round, lazy.segStart, lazy.segSym, eager.segStart, eager.segSym, ins)
		}
		for _, a := range probeAddrs(eager, 0) {
			if got, want := oracleText(lazy.Lookup(a)), oracleText(eager.Lookup(a)); got != want {
				t.Fatalf("round %d: %#x: %q, want %q", round, a, got, want)
			}
		}
	}
}

// Preloading changes no answer and no Missing report: objects are
// reported when a lookup first asks for them, in that order, whether
// their load was started by Preload or not.
func TestPreload(t *testing.T) {
	mapDir := t.TempDir()
	os.WriteFile(filepath.Join(mapDir, "perf-77.map"), []byte("7f0000001000 100 Interpreted:foo\n"), 0o644)
	opts := Options{BuildIDDir: t.TempDir(), DebugDir: t.TempDir(), PerfMapDir: mapDir,
		Kallsyms: "testdata/kallsyms/fixture.txt", KernelNotes: "/nonexistent"}
	fixture, _ := filepath.Abs("testdata/elf/fixture")
	lookups := func(r *Resolver) []string {
		var out []string
		add := func(s Symbol, ok bool) { out = append(out, oracleText(s, ok)) }
		add(r.DSO("/nonexistent/b.so", "", 0x10))
		add(r.DSO(fixture, "", 0x11d0))
		add(r.DSO(fixture, "", 0x1070))
		add(r.Kernel("", 0xffffffff81000310))
		add(r.Module("", "[mod_b]", 0xffffffffa0000181))
		add(r.PerfMap(78, 0x7f0000001010, ^uint64(0)))
		add(r.DSO("/tmp/perf-77.map", "", 0x7f0000001010))
		add(r.DSO("/nonexistent/a.so", "", 0x10))
		a, ok := r.KernelSymbolAddr("", "_text")
		out = append(out, fmt.Sprint(a, ok))
		for _, m := range r.Missing() {
			out = append(out, "missing "+m.Path+" "+m.Err.Error())
		}
		return out
	}
	want := lookups(NewResolver(opts))
	for round := 0; round < 20; round++ {
		r := NewResolver(opts)
		// In another order than the lookups, and twice.
		for k := 0; k < 2; k++ {
			r.Preload("/nonexistent/a.so", "")
			r.Preload(fixture, "")
			r.PreloadKernel("")
			r.Preload("/tmp/perf-78.map", "")
			r.Preload("/nonexistent/b.so", "")
		}
		if round%2 == 0 {
			// Let the background loads finish first, or not.
			for r.Missing(); ; {
				r.mu.Lock()
				w := r.working
				r.mu.Unlock()
				if !w {
					break
				}
				time.Sleep(time.Millisecond)
			}
			if m := r.Missing(); len(m) != 0 {
				t.Fatalf("round %d: Missing reports %d preloaded objects before any lookup", round, len(m))
			}
		}
		if got := lookups(r); !slices.Equal(got, want) {
			t.Fatalf("round %d: with Preload\n%q\nwant\n%q", round, got, want)
		}
	}
}

// A lookup waiting for a table that another goroutine is loading runs
// the queued loads meanwhile (help), rather than idling.
func TestWaitingLookupHelps(t *testing.T) {
	r := NewResolver(Options{})
	m := map[string]*load[*Table]{}
	started, release := make(chan struct{}), make(chan struct{})
	// The background goroutine is busy with the first load until released.
	preload(r, m, "slow", func(*[]Missing) *Table { close(started); <-release; return nil })
	<-started
	ran := make(chan struct{})
	preload(r, m, "next", func(*[]Missing) *Table { close(ran); return nil })
	done := make(chan struct{})
	go func() {
		get(r, m, "slow", true, func(*[]Missing) *Table { t.Error("slow loaded twice"); return nil })
		close(done)
	}()
	select {
	case <-ran: // only the waiting lookup could have run it
	case <-time.After(time.Minute):
		t.Fatal("the waiting lookup did not run the queued load")
	}
	close(release)
	<-done
	if l := m["next"]; l == nil || !l.started {
		t.Fatal("the queued load is not marked started")
	}
}

// A lookup waiting for the kernel (help false) leaves the queued loads
// to the background goroutine: they start only once the load it waits
// for is done.
func TestWaitingKernelLookupIdles(t *testing.T) {
	r := NewResolver(Options{})
	m := map[string]*load[*Kernel]{}
	started, release := make(chan struct{}), make(chan struct{})
	var released atomic.Bool
	preload(r, m, "kernel", func(*[]Missing) *Kernel { close(started); <-release; return nil })
	<-started
	early := make(chan bool, 1)
	preload(r, m, "next", func(*[]Missing) *Kernel { early <- !released.Load(); return nil })
	done := make(chan struct{})
	go func() {
		get(r, m, "kernel", false, func(*[]Missing) *Kernel { t.Error("kernel loaded twice"); return nil })
		close(done)
	}()
	for range 100 {
		runtime.Gosched() // the lookup on its way to waiting
	}
	released.Store(true)
	close(release)
	<-done
	if <-early {
		t.Fatal("the waiting lookup ran a queued load")
	}
}

// A Resolver and its Tables may be used by several goroutines at once
// (run with -race): every goroutine gets the answers of a lone one.
func TestConcurrentLookups(t *testing.T) {
	opts := Options{BuildIDDir: t.TempDir(), DebugDir: t.TempDir(),
		Kallsyms: "testdata/kallsyms/fixture.txt", KernelNotes: "/nonexistent"}
	fixture, _ := filepath.Abs("testdata/elf/fixture")
	lone := NewResolver(opts)
	tb := lone.DSOTable(fixture, "")
	if tb.raw == nil {
		t.Fatal("the fixture has no mangled names: the lazy demangling is not exercised")
	}
	addrs := probeAddrs(tb, 0)
	kaddrs := probeAddrs(lone.KernelSymbols("").Table, 0)
	var want []string
	for _, a := range addrs {
		want = append(want, oracleText(lone.DSO(fixture, "", a)))
	}
	for _, a := range kaddrs {
		want = append(want, oracleText(lone.Kernel("", a)))
	}
	r := NewResolver(opts)
	r.Preload(fixture, "")
	var wg sync.WaitGroup
	got := make([][]string, 4)
	for g := range got {
		wg.Go(func() {
			for _, a := range addrs {
				got[g] = append(got[g], oracleText(r.DSO(fixture, "", a)))
			}
			for _, a := range kaddrs {
				got[g] = append(got[g], oracleText(r.Kernel("", a)))
			}
		})
	}
	wg.Wait()
	for g := range got {
		if !slices.Equal(got[g], want) {
			t.Errorf("goroutine %d: answers differ from a lone resolver's", g)
		}
	}
}

// chooseBest is builder.chooseBest for two symbols given with their
// printed names.
func chooseBest(a, b *sym, an, bn string) bool {
	if k, ok := chooseBestByKind(a, b); ok {
		return k
	}
	return chooseBestByName(an, bn)
}

// Names cut from a mapped file are copied before Lookup hands them out
// (the mapping goes when the tables do), and a file truncated after it
// was mapped makes lookups of names not read yet fail, not crash.
func TestMappedNames(t *testing.T) {
	data, err := os.ReadFile("testdata/kallsyms/fixture.txt")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "kallsyms")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	r := NewResolver(Options{BuildIDDir: t.TempDir(), Kallsyms: path, KernelNotes: "/nonexistent"})
	k := r.KernelSymbols("")
	if k == nil || k.Table.backing == nil {
		t.Skip("kallsyms not mapped on this system")
	}
	s, ok := r.Kernel("", 0xffffffff81000310)
	if !ok || s.Name != "do_syscall_64_x" {
		t.Fatalf("before truncation: %q %v", s.Name, ok)
	}
	if k.Table.backing.contains(s.Name) {
		t.Error("Lookup handed out a name inside the mapping")
	}
	for m := range k.Modules {
		if k.Table.backing.contains(m) {
			t.Errorf("module name %q inside the mapping", m)
		}
	}
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	if s, ok := r.Kernel("", 0xffffffff81000310); !ok || s.Name != "do_syscall_64_x" {
		t.Errorf("a name read before truncation: %q %v", s.Name, ok)
	}
	// Every other name is gone with the file's pages: no crash, no symbol.
	failed := 0
	for _, a := range probeAddrs(k.Table, 0) {
		if _, ok := r.Kernel("", a); !ok {
			failed++
		}
	}
	if failed == 0 {
		t.Error("no lookup failed after the file was truncated")
	}
	fixture, _ := filepath.Abs("testdata/elf/fixture")
	tb := r.DSOTable(fixture, "")
	if tb.backing == nil {
		t.Fatal("the fixture's names are not mapped")
	}
	for _, a := range probeAddrs(tb, 0) {
		if s, ok := tb.Lookup(a); ok && tb.backing.contains(s.Name) {
			t.Fatalf("%#x: Lookup handed out a name inside the mapping", a)
		}
	}
}

// Names handed out stay valid after their table, and its mapping, are
// gone.
func TestMappedNamesOutliveTables(t *testing.T) {
	fixture, _ := filepath.Abs("testdata/elf/fixture")
	var names, want []string
	func() {
		r := NewResolver(Options{BuildIDDir: t.TempDir(), DebugDir: t.TempDir()})
		tb := r.DSOTable(fixture, "")
		for _, a := range probeAddrs(tb, 0) {
			if s, ok := tb.Lookup(a); ok {
				names = append(names, s.Name)
				want = append(want, strings.Clone(s.Name))
			}
		}
	}()
	before := unmapped.Load()
	for i := 0; i < 100 && unmapped.Load() == before; i++ {
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	if unmapped.Load() == before {
		t.Skip("the mapping was not unmapped: nothing checked")
	}
	if !slices.Equal(names, want) {
		t.Error("names changed once their table was collected")
	}
}

// A table built with scratch memory lent by an earlier build (larger or
// smaller, left holding garbage) is the table built with fresh memory:
// the builder writes whatever it lends before reading it.
func TestScratchReuse(t *testing.T) {
	var files [][]byte
	for _, name := range []string{"fixture", "libfixture.so", "fixture.stripped", "fixture.debug"} {
		data, err := os.ReadFile(filepath.Join("testdata/elf", name))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, data)
	}
	defer func(p *sync.Pool) { scratchPool = p }(scratchPool)
	fresh := func(data []byte) *Table {
		scratchPool = newScratchPool()
		tb, err := ELFTable("fresh", data)
		if err != nil {
			t.Fatal(err)
		}
		return tb
	}
	var want []*Table
	for _, data := range files {
		want = append(want, fresh(data))
	}
	// One scratch, poisoned, for every build in turn (twice over, so
	// that each reuses what a larger or smaller one left).
	poison := &scratch{syms: make([]sym, 1<<12), keys: make([]orderKey, 1<<12), buf: make([]orderKey, 1<<12), tix: make([]int32, 1<<12)}
	for i := range poison.syms {
		poison.syms[i] = sym{start: ^uint64(i), end: uint64(i), seq: -1, gone: true, raw: true, late: true}
		poison.keys[i], poison.buf[i] = orderKey{^uint64(i), -7}, orderKey{uint64(i), -9}
		poison.tix[i] = -5
	}
	scratchPool = &sync.Pool{New: func() any { return poison }}
	for round := range 2 {
		for i, data := range files {
			got, err := ELFTable("reused", data)
			if err != nil {
				t.Fatal(err)
			}
			for _, a := range probeAddrs(want[i], 0) {
				if g, w := oracleText(got.Lookup(a)), oracleText(want[i].Lookup(a)); g != w {
					t.Fatalf("round %d, file %d, %#x: %q with lent memory, %q with fresh", round, i, a, g, w)
				}
			}
			if got.Len() != want[i].Len() {
				t.Fatalf("round %d, file %d: %d symbols with lent memory, %d with fresh", round, i, got.Len(), want[i].Len())
			}
		}
	}
}

// TestLinkedCandidates: the build-id cache's copy of an object is
// usually a hard link to it, and loadDSO reads a file once however many
// of its candidates link to it. The tables and the messages must be
// those of copies: the same symbols for a stripped object (its .symtab
// from its debuglink file, its .dynsym from the cache's link), and, for
// a build-id found nowhere, every candidate named in the mismatch.
func TestLinkedCandidates(t *testing.T) {
	id := "214391056ae10c52246c570e23dfd27774c05e51" // testdata/elf/fixture's
	run := func(link bool) string {
		root := t.TempDir()
		bin, cache, debug := filepath.Join(root, "bin"), filepath.Join(root, "cache"), filepath.Join(root, "debug")
		entry := filepath.Join(cache, ".build-id", id[:2], id[2:])
		for _, d := range []string{bin, entry, filepath.Join(debug, bin)} {
			if err := os.MkdirAll(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		prog := filepath.Join(bin, "prog")
		copyFile(t, "testdata/elf/fixture.stripped", prog)
		copyFile(t, "testdata/elf/fixture.debug", filepath.Join(bin, "fixture.debug"))
		// The cache's copy, and DebugDir/PATH: links to the object, or
		// copies of it.
		for _, p := range []string{filepath.Join(entry, "elf"), filepath.Join(debug, prog)} {
			if link {
				if err := os.Link(prog, p); err != nil {
					t.Skip("no hard links here:", err)
				}
			} else {
				copyFile(t, prog, p)
			}
		}
		r := NewResolver(Options{BuildIDDir: cache, DebugDir: debug})
		var b strings.Builder
		if tb := r.DSOTable(prog, id); tb != nil {
			dumpTable(&b, "stripped, linked or copied", tb)
		} else {
			b.WriteString("no table\n")
		}
		if r.DSOTable(prog, "feedfacefeedfacefeedfacefeedfacefeedface") != nil {
			t.Error("a table for a build-id found nowhere")
		}
		for _, m := range r.Missing() {
			fmt.Fprintf(&b, "missing %s %s: %v\n", m.Path, m.BuildID, m.Err)
		}
		return strings.ReplaceAll(b.String(), root, "ROOT")
	}
	copied, linked := run(false), run(true)
	if linked != copied {
		t.Errorf("with links:\n%s\nwith copies:\n%s", linked, copied)
	}
	if !strings.Contains(copied, "ROOT/bin/prog has "+id) || !strings.Contains(copied, "ROOT/debugROOT/bin/prog has "+id) {
		t.Errorf("the mismatch does not name every candidate:\n%s", copied)
	}
}
