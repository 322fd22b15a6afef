package symbols_test

import (
	"fmt"
	"path/filepath"

	"flamekit/pkg/perf/symbols"
)

// A perf.data reader resolves each frame: kernel frames by absolute
// address, user frames by the file-relative address perf prints, and
// prints "[unknown]" where there is no symbol.
func ExampleResolver() {
	fixture, _ := filepath.Abs("testdata/elf/fixture")
	r := symbols.NewResolver(symbols.Options{
		Kallsyms:    "testdata/kallsyms/fixture.txt", // instead of /proc/kallsyms
		KernelNotes: "/nonexistent",                  // no running kernel to compare with
	})
	frame := func(s symbols.Symbol, ok bool) string {
		if !ok {
			return "[unknown]"
		}
		return fmt.Sprintf("%s+0x%x", s.Name, s.Offset)
	}
	fmt.Println(frame(r.Kernel("", 0xffffffff81000305)))
	fmt.Println(frame(r.DSO(fixture, "", 0x11d0)))
	fmt.Println(frame(r.DSO(fixture, "", 0x1070))) // an IRELATIVE PLT slot
	fmt.Println(frame(r.DSO("/nonexistent/libgone.so", "", 0x1000)))
	for _, m := range r.Missing() {
		fmt.Println("missing:", m.Path)
	}
	// Output:
	// do_syscall_64_x+0x5
	// ns::Acc<long>::work+0x7
	// @plt+0x0
	// [unknown]
	// missing: /nonexistent/libgone.so
}

func ExampleDemangle() {
	fmt.Println(symbols.Demangle("_ZN2ns3AccIlE4workEl"))
	fmt.Println(symbols.Demangle("_ZN8rustprog8hash_all17h1a2b3c4d5e6f7a8bE"))
	fmt.Println(symbols.Demangle("_RNvMCskK7mfDs1mzF_1mINtB2_3ArrKj10_E3sumB2_"))
	fmt.Println(symbols.Demangle("main.(*Pool).run"))
	// Output:
	// ns::Acc<long>::work
	// rustprog::hash_all
	// <m::Arr<16>>::sum
	// main.(*Pool).run
}

func ExampleParsePerfMap() {
	tb, skipped := symbols.ParsePerfMap([]byte(
		"7f2475405480 520 byte[] java.util.Arrays.copyOfRange(byte[], int, int)\n" +
			"7f24754059a0 0 Interpreter\n"))
	s, _ := tb.Lookup(0x7f2475405931)
	fmt.Printf("%s+0x%x (%d lines skipped)\n", s.Name, s.Offset, skipped)
	// A hit on a zero-size entry: perf prints 0 - map start as the offset.
	s, _ = tb.Lookup(0x7f24754059a0)
	fmt.Printf("%s+0x%x\n", s.Name, s.PrintedOffset(0x7f2475400000))
	// Output:
	// byte[] java.util.Arrays.copyOfRange(byte[], int, int)+0x4b1 (0 lines skipped)
	// Interpreter+0xffff80db8ac00000
}

// A reader of a capture knows its objects from the build-id table before
// the first sample: preloading them has their tables loaded in the
// background while it reads. The answers are the same as without.
func ExampleResolver_Preload() {
	fixture, _ := filepath.Abs("testdata/elf/fixture")
	r := symbols.NewResolver(symbols.Options{
		Kallsyms:    "testdata/kallsyms/fixture.txt",
		KernelNotes: "/nonexistent",
	})
	r.PreloadKernel("")
	r.Preload(fixture, "")
	r.Preload("/nonexistent/libgone.so", "")
	// … read records, then resolve the first sample's frames:
	s, _ := r.DSO(fixture, "", 0x11d0)
	fmt.Printf("%s+0x%x\n", s.Name, s.Offset)
	s, _ = r.Kernel("", 0xffffffff81000305)
	fmt.Printf("%s+0x%x\n", s.Name, s.Offset)
	// Missing lists what lookups asked for, preloaded or not.
	fmt.Println(len(r.Missing()))
	// Output:
	// ns::Acc<long>::work+0x7
	// do_syscall_64_x+0x5
	// 0
}
