package symbols

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// sameKernel fails unless the flat reading of data gives the Kernel the
// builder's (perf's tree) does, field for field, read in one part or
// several (as a large file is, on several goroutines).
func sameKernel(t *testing.T, data string) {
	t.Helper()
	want, werr := parseKallsymsTree("k", data, nil)
	for parts := 1; parts <= 3; parts++ {
		got, gerr := parseKallsyms("k", data, nil, parts)
		if (werr == nil) != (gerr == nil) {
			t.Fatalf("%d parts: error %v, builder's %v", parts, gerr, werr)
		}
		if werr != nil {
			if gerr.Error() != werr.Error() {
				t.Fatalf("%d parts: error %q, builder's %q", parts, gerr, werr)
			}
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%d parts: flat reading differs from the builder's:\ngot  %+v\nwant %+v", parts, got, want)
		}
	}
}

// TestKallsymsFlat compares the flat reading of kallsyms with the
// builder's on the cases its shortcuts skip or must send back to the
// builder: aliases at one address (choose_best_symbol), kernel and
// module symbols interleaved (the page past a change of kind, which can
// make symbols overlap), an unsorted file, junk lines, CRLF, short
// addresses, the trampoline, '$' names, the last page of the address
// space.
func TestKallsymsFlat(t *testing.T) {
	cases := map[string]string{
		"empty":    "",
		"aliases":  "ffffffff81000000 T _stext\nffffffff81000000 T _text\nffffffff81000000 t __text\nffffffff81000000 W weak\nffffffff81000100 t b\n",
		"modules":  "ffffffff81000000 T _text\nffffffff81000010 t foo\nffffffffa0000000 t m1\t[mod]\nffffffffa0000010 t m2\t[mod]\nffffffffa0001000 t n1\t[other]\nffffffffa0000020 t m3\t[mod]\n",
		"overlap":  "ffffffff81000000 T _text\nffffffff81000010 t m\t[mod]\nffffffff81000020 t k\n",
		"unsorted": "ffffffff81000100 T b\nffffffff81000000 T a\nffffffff81000100 t b2\nffffffff81000050 D d\n",
		"junk":     "ffffffff81000000 T _text\r\nzz\n ffffffff81000010 t x\nffffffff81000020 W\n81000030 t short\nFFFFFFFF81000040 T upper\nffffffff81000050 A abs\nffffffff81000060 t $x\n",
		"tramp":    "ffffffff81000000 T _text\nffffffff81000010 T __entry_SYSCALL_64_trampoline\nffffffff81000020 T after\n",
		"top":      "fffffffffffff000 T a\nffffffffffffffff T b\n",
		"zero":     "0000000000000000 T _text\n0000000000000000 t foo\n",
		"tabs":     "ffffffff81000000 T _text\nffffffff81000010 t a\t[m]\t[n]\nffffffff81000020 t \t[m]\nffffffff81000030 t c\t [m] \n",
	}
	for name, data := range cases {
		t.Run(name, func(t *testing.T) { sameKernel(t, data) })
	}
	// And real files: this machine's, and the copies perf record left
	// in the build-id cache.
	copies, _ := filepath.Glob(filepath.Join(os.Getenv("HOME"), ".debug", "[[]kernel.kallsyms]", "*", "kallsyms"))
	for _, p := range append([]string{"testdata/kallsyms/fixture.txt", "/proc/kallsyms"}, copies...) {
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		t.Run(p, func(t *testing.T) { sameKernel(t, string(data)) })
	}
}

// TestKallsymsFlatTakes checks that the flat reading reads the usual
// file itself rather than giving it to the builder.
func TestKallsymsFlatTakes(t *testing.T) {
	data, err := os.ReadFile("testdata/kallsyms/fixture.txt")
	if err != nil {
		t.Fatal(err)
	}
	if ok, _ := parseKallsymsFlat(&Kernel{}, string(data), nil, 1); !ok {
		t.Error("the fixture went to the builder")
	}
	if ok, _ := parseKallsymsFlat(&Kernel{}, "ffffffff81000000 T _text\nffffffff81000010 t m\t[mod]\nffffffff81000020 t k\n", nil, 1); ok {
		t.Error("a kernel symbol overlapping a module's page was read flat")
	}
}
