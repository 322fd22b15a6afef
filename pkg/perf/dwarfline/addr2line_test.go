package dwarfline

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"debug/elf"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"

	"flamekit/pkg/perf/symbols"
)

// readGz returns the content of testdata/NAME.gz.
func readGz(t testing.TB, name string) []byte {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name+".gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// gunzip writes testdata/NAME.gz to dir/NAME and returns its path.
func gunzip(t testing.TB, dir, name string) string {
	t.Helper()
	data := readGz(t, name)
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// print is the text addr2line -i -f -s -C prints for frames.
func print(frames []Frame) string {
	var b strings.Builder
	for _, f := range frames {
		b.WriteString(f.Func + "\n" + f.Loc + "\n")
	}
	return b.String()
}

var discriminator = regexp.MustCompile(` \(discriminator \S+\)`)

// addr2lineBatch runs one addr2line on every address of addrs and
// returns its answers, without discriminators.
func addr2lineBatch(t *testing.T, bin string, addrs []uint64) map[uint64]string {
	t.Helper()
	var in bytes.Buffer
	for _, a := range addrs {
		fmt.Fprintf(&in, "0x%x\n", a)
	}
	cmd := exec.Command("addr2line", "-a", "-i", "-f", "-s", "-C", "-e", bin)
	cmd.Stdin = &in
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("addr2line -e %s: %v", bin, err)
	}
	return parseBatch(out)
}

var addrLine = regexp.MustCompile(`^0x[0-9a-f]{16}$`)

func parseBatch(out []byte) map[uint64]string {
	res := map[uint64]string{}
	var cur uint64
	var b strings.Builder
	flush := func() {
		if b.Len() > 0 || cur != 0 {
			res[cur] = b.String()
		}
		b.Reset()
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		l := sc.Text()
		if addrLine.MatchString(l) {
			flush()
			fmt.Sscanf(l, "0x%x", &cur)
			continue
		}
		b.WriteString(discriminator.ReplaceAllString(l, "") + "\n")
	}
	flush()
	return res
}

// addr2lineOne runs addr2line on each address alone, as
// stackcollapse-perf.pl does (BFD keeps state between the addresses of
// one run: a function's name found in the symbol table sticks).
func addr2lineOne(t *testing.T, bin string, addrs []uint64) map[uint64]string {
	t.Helper()
	res := make(map[uint64]string, len(addrs))
	var mu sync.Mutex
	work := make(chan uint64)
	var wg sync.WaitGroup
	var failed error
	for range runtime.NumCPU() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for a := range work {
				out, err := exec.Command("addr2line", "-a", fmt.Sprintf("0x%x", a), "-i", "-f", "-s", "-C", "-e", bin).Output()
				mu.Lock()
				if err != nil && failed == nil {
					failed = err
				}
				res[a] = parseBatch(out)[a]
				mu.Unlock()
			}
		}()
	}
	for _, a := range addrs {
		work <- a
	}
	close(work)
	wg.Wait()
	if failed != nil {
		t.Fatalf("addr2line -e %s: %v", bin, failed)
	}
	return res
}

// compareAddr2line checks the module's answer for every address of
// ranges against addr2line's. addr2line runs once on all of them, then
// once per address where its answer or the module's changes from the
// previous address's (every distinct answer), as Perl runs it.
func compareAddr2line(t *testing.T, bin string, ranges [][2]uint64) {
	t.Helper()
	var addrs []uint64
	for _, r := range ranges {
		for a := r[0]; a < r[1]; a++ {
			addrs = append(addrs, a)
		}
	}
	m := Open(bin, Options{})
	batch := addr2lineBatch(t, bin, addrs)
	mine := make(map[uint64]string, len(addrs))
	var pieces []uint64
	prevB, prevM := "", ""
	for i, a := range addrs {
		mine[a] = print(m.Lookup(a))
		if i == 0 || addrs[i-1] != a-1 || batch[a] != prevB || mine[a] != prevM {
			pieces = append(pieces, a)
		}
		prevB, prevM = batch[a], mine[a]
	}
	one := addr2lineOne(t, bin, pieces)
	bad := 0
	for _, a := range pieces {
		if one[a] != mine[a] {
			if bad++; bad <= 10 {
				t.Errorf("%s 0x%x: addr2line says\n%s\nthe reader\n%s", filepath.Base(bin), a, one[a], mine[a])
			}
		}
	}
	if err := m.Err(); err != nil {
		t.Errorf("%s: %v", bin, err)
	}
	t.Logf("%s: %d addresses, %d distinct answers asked one by one, %d differ", filepath.Base(bin), len(addrs), len(pieces), bad)
}

// textRanges returns the executable sections of bin.
func textRanges(t *testing.T, bin string) [][2]uint64 {
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rs [][2]uint64
	for _, s := range f.Sections {
		if s.Flags&elf.SHF_EXECINSTR != 0 && s.Type == elf.SHT_PROGBITS {
			rs = append(rs, [2]uint64{s.Addr, s.Addr + s.Size})
		}
	}
	return rs
}

// symbolRanges returns the extent of bin's function symbols whose
// demangled name keep accepts.
func symbolRanges(t *testing.T, bin string, keep func(string) bool) [][2]uint64 {
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	var rs [][2]uint64
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) == elf.STT_FUNC && s.Size > 0 && keep(symbols.DemangleParams(s.Name)) {
			rs = append(rs, [2]uint64{s.Value, s.Value + s.Size})
		}
	}
	if len(rs) == 0 {
		t.Fatalf("%s: no function to check", bin)
	}
	return rs
}

func needAddr2line(t *testing.T) {
	if _, err := exec.LookPath("addr2line"); err != nil {
		t.Skipf("the comparison needs binutils' addr2line: %v", err)
	}
}

// TestAddr2line compares the reader with addr2line on every address of
// real -O2 binaries with inlined functions (scripts/make-dwarfline-testdata):
// C (DWARF 5), C++ with templates, namespaces and lambdas (DWARF 5), C++
// with DWARF 4 and compressed sections; a Go program built here (DWARF 5
// and 4); a Rust program when FLAMEKIT_RUSTC names rustc.
func TestAddr2line(t *testing.T) {
	needAddr2line(t)
	dir := t.TempDir()
	for _, name := range []string{"cwork", "templates", "cppexc"} {
		t.Run(name, func(t *testing.T) {
			bin := gunzip(t, dir, name)
			compareAddr2line(t, bin, textRanges(t, bin))
		})
	}
	// Go writes DWARF 5 since Go 1.25, which binutils 2.40 does not
	// read (see indexedRanges); GOEXPERIMENT=nodwarf5 writes DWARF 4.
	// The arm64 build: addr2line reads any little-endian ELF.
	for _, v := range []struct{ exp, arch string }{{"", ""}, {"nodwarf5", ""}, {"nodwarf5", "arm64"}} {
		exp := v.exp
		t.Run("go"+exp+v.arch, func(t *testing.T) {
			goBin, err := exec.LookPath("go")
			if err != nil {
				t.Skip("go is not on PATH")
			}
			bin := filepath.Join(dir, "goprog"+exp+v.arch)
			cmd := exec.Command(goBin, "build", "-o", bin, ".")
			cmd.Dir = "../../../testdata/perf/src/goprog"
			cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "CGO_ENABLED=0", "GOEXPERIMENT="+exp)
			if v.arch != "" {
				cmd.Env = append(cmd.Env, "GOARCH="+v.arch)
			}
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Skipf("go build: %v\n%s", err, out)
			}
			compareAddr2line(t, bin, symbolRanges(t, bin, func(s string) bool { return strings.HasPrefix(s, "main.") }))
		})
	}
	t.Run("rust", func(t *testing.T) {
		// Opt-in: addr2line reads the Rust program's 5 MB of DWARF (its
		// std's) once per address asked, minutes on a loaded machine.
		rustc := os.Getenv("FLAMEKIT_RUSTC")
		if rustc == "" {
			t.Skip("set FLAMEKIT_RUSTC=rustc to compare a Rust -O2 program too")
		}
		bin := filepath.Join(dir, "rustprog")
		out, err := exec.Command(rustc, "-C", "opt-level=2", "-g", "--crate-name", "rustprog", "-o", bin,
			"../../../testdata/perf/src/rustprog/src/main.rs").CombinedOutput()
		if err != nil {
			t.Skipf("rustc failed: %v\n%s", err, out)
		}
		compareAddr2line(t, bin, symbolRanges(t, bin, func(s string) bool { return strings.Contains(s, "rustprog") }))
	})
}

// TestSeparateDebug finds the DWARF of a stripped binary where addr2line
// finds it: by .gnu_debuglink next to it, and by build-id under the
// debug directory; and without it answers as addr2line does.
func TestSeparateDebug(t *testing.T) {
	dir := t.TempDir()
	full := Open(gunzip(t, dir, "cwork"), Options{DebugDir: dir})
	stripped := gunzip(t, dir, "cwork.stripped")
	var addrs []uint64
	for _, r := range textRanges(t, stripped) {
		for a := r[0]; a < r[1]; a++ {
			addrs = append(addrs, a)
		}
	}
	same := func(t *testing.T, m *Module) {
		t.Helper()
		n := 0
		for _, a := range addrs {
			if got, want := print(m.Lookup(a)), print(full.Lookup(a)); got != want {
				if n++; n <= 5 {
					t.Errorf("0x%x: got\n%s\nwant\n%s", a, got, want)
				}
			}
		}
	}
	// Without the debug file: no line.
	alone := Open(stripped, Options{DebugDir: dir})
	for _, a := range addrs {
		for _, f := range alone.Lookup(a) {
			if strings.HasSuffix(f.Loc, ".c:") || !strings.HasSuffix(f.Loc, ":?") && f.Loc != "??:0" {
				t.Fatalf("0x%x without its debug file: %v", a, f)
			}
		}
	}
	t.Run("debuglink", func(t *testing.T) {
		gunzip(t, dir, "cwork.debug")
		defer os.Remove(filepath.Join(dir, "cwork.debug"))
		same(t, Open(stripped, Options{DebugDir: t.TempDir()}))
	})
	t.Run("build-id", func(t *testing.T) {
		f, err := elf.Open(stripped)
		if err != nil {
			t.Fatal(err)
		}
		id := buildID(f)
		f.Close()
		if id == "" {
			t.Fatal("no build-id")
		}
		dbg := t.TempDir()
		p := filepath.Join(dbg, ".build-id", id[:2])
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		src := gunzip(t, t.TempDir(), "cwork.debug")
		if err := os.Rename(src, filepath.Join(p, id[2:]+".debug")); err != nil {
			t.Fatal(err)
		}
		same(t, Open(stripped, Options{DebugDir: dbg}))
	})
	if testing.Short() {
		return
	}
	t.Run("addr2line", func(t *testing.T) {
		needAddr2line(t)
		// addr2line finds the debug file by .gnu_debuglink.
		gunzip(t, dir, "cwork.debug")
		compareAddr2line(t, stripped, textRanges(t, stripped))
	})
}

// TestConcurrent looks addresses up from several goroutines at once, as
// the fold's workers do (run with -race): every answer is the one a
// single goroutine gets.
func TestConcurrent(t *testing.T) {
	bin := gunzip(t, t.TempDir(), "templates")
	var addrs []uint64
	for _, r := range textRanges(t, bin) {
		for a := r[0]; a < r[1]; a += 3 {
			addrs = append(addrs, a)
		}
	}
	want := make([]string, len(addrs))
	one := Open(bin, Options{})
	for i, a := range addrs {
		want[i] = print(one.Lookup(a))
	}
	m := Open(bin, Options{})
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := g; i < len(addrs)+g; i++ {
				k := i % len(addrs)
				if got := print(m.Lookup(addrs[k])); got != want[k] {
					t.Errorf("0x%x: %q, alone %q", addrs[k], got, want[k])
					return
				}
			}
		}()
	}
	wg.Wait()
}

// TestUnreadable: an object that is not there, or not ELF, gives no
// frames (addr2line prints nothing), and says why.
func TestUnreadable(t *testing.T) {
	dir := t.TempDir()
	text := filepath.Join(dir, "text")
	if err := os.WriteFile(text, []byte("not an ELF file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(dir, "none"), text, dir} {
		m := Open(p, Options{})
		if got := m.Lookup(0x1000); got != nil {
			t.Errorf("%s: %v, want nothing", p, got)
		}
		if m.Err() == nil {
			t.Errorf("%s: no error", p)
		}
	}
}

// TestDemangleAsNm checks the names as addr2line -C prints them against
// nm -C (the same bfd_demangle) on every symbol of the C++ binaries.
func TestDemangleAsNm(t *testing.T) {
	if _, err := exec.LookPath("nm"); err != nil {
		t.Skipf("the comparison needs binutils' nm: %v", err)
	}
	dir := t.TempDir()
	for _, name := range []string{"templates", "cppexc"} {
		bin := gunzip(t, dir, name)
		raw, err := exec.Command("nm", bin).Output()
		if err != nil {
			t.Fatal(err)
		}
		dem, err := exec.Command("nm", "-C", bin).Output()
		if err != nil {
			t.Fatal(err)
		}
		rl, dl := strings.Split(string(raw), "\n"), strings.Split(string(dem), "\n")
		if len(rl) != len(dl) {
			t.Fatalf("%s: nm and nm -C list %d and %d symbols", name, len(rl), len(dl))
		}
		n := 0
		for i := range rl {
			if len(rl[i]) < 19 || len(dl[i]) < 19 {
				continue
			}
			n++
			if got, want := symbols.DemangleParams(rl[i][19:]), dl[i][19:]; got != want {
				t.Errorf("%s: %q: got %q, nm -C %q", name, rl[i][19:], got, want)
			}
		}
		t.Logf("%s: %d symbols", name, n)
	}
}
