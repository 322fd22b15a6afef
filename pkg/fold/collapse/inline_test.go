package collapse

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestInline builds a small C program whose outer() has mid() and leaf()
// inlined, and checks that --inline expands an address inside leaf into
// outer;mid;leaf (and --context adds file:line), as stackcollapse-perf.pl
// does through addr2line.
func TestInline(t *testing.T) {
	for _, tool := range []string{"addr2line", "nm", "cc"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("--inline test needs %s (binutils, a C compiler): %v", tool, err)
		}
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "inl.c")
	bin := filepath.Join(dir, "inl")
	code := `static inline __attribute__((always_inline)) int leaf(int x) { return x * x * 3 + 1; }
static inline __attribute__((always_inline)) int mid(int x) { return leaf(x + 7) + 2; }
__attribute__((noinline)) int outer(int x) { return mid(x) * 5; }
int main(int c, char **v) { (void)v; return outer(c); }
`
	if err := os.WriteFile(src, []byte(code), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("cc", "-O1", "-g", "-o", bin, src).CombinedOutput(); err != nil {
		t.Skipf("cc failed: %v\n%s", err, out)
	}
	nm, err := exec.Command("nm", bin).Output()
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^([0-9a-f]+) T outer$`).FindSubmatch(nm)
	if m == nil {
		t.Skip("no outer symbol")
	}
	base, _ := strconv.ParseUint(string(m[1]), 16, 64)
	// Find an address of outer that addr2line places in leaf.
	var pc uint64
	for off := uint64(0); off < 64 && pc == 0; off++ {
		out, _ := exec.Command("addr2line", "-i", "-f", "-s", "-e", bin, fmt.Sprintf("%x", base+off)).Output()
		if strings.HasPrefix(string(out), "leaf\n") {
			pc = base + off
		}
	}
	if pc == 0 {
		t.Skip("the compiler did not leave an address inside leaf")
	}
	in := smp("prog", fmt.Sprintf("%x outer+0x%x (%s)", pc, pc-base, bin), "1 [unknown] ([unknown])")
	got := run(t, Options{NoTime: true, Inline: true}, in)
	if want := "prog;[unknown];outer;mid;leaf 1\n"; got.out != want {
		t.Errorf("--inline: got %q, want %q (stderr %s)", got.out, want, got.stderr)
	}
	got = run(t, Options{NoTime: true, Inline: true, Context: true}, in)
	if !regexp.MustCompile(`^prog;\[unknown\];outer:inl\.c:\d+;mid:inl\.c:\d+;leaf:inl\.c:\d+ 1\n$`).MatchString(got.out) {
		t.Errorf("--inline --context: got %q", got.out)
	}
	// Kernel and perf-map modules are never expanded.
	k := smp("prog", "ffffffff81 do_sys+0x1 ([kernel.kallsyms])")
	if got := run(t, Options{NoTime: true, Inline: true}, k); got.out != "prog;do_sys 1\n" {
		t.Errorf("kernel frame: %q", got.out)
	}
}

// TestInlineRefusedSaid: each object refused as unsafe to read (here two
// FIFOs, as a profiled process could leave them where its maps point) is
// said on stderr, once, naming its path; a missing object is said once
// for all.
func TestInlineRefusedSaid(t *testing.T) {
	dir := t.TempDir()
	var fifos []string
	for _, name := range []string{"a", "b"} {
		p := filepath.Join(dir, name)
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
		fifos = append(fifos, p)
	}
	var said []string
	in := newInliner(false, func(format string, args ...any) { said = append(said, fmt.Sprintf(format, args...)) })
	for _, p := range append(fifos, fifos[0], filepath.Join(dir, "missing1"), filepath.Join(dir, "missing2")) {
		if r := in.resolve([]byte("0x1139"), []byte("main+0x9"), []byte(p)); r != "" {
			t.Errorf("%s: expanded to %q", p, r)
		}
	}
	if len(said) != 3 {
		t.Fatalf("said %d lines, want one per FIFO and one for the missing objects:\n%s", len(said), strings.Join(said, "\n"))
	}
	for i, p := range fifos {
		if !strings.Contains(said[i], p) || !strings.Contains(said[i], "not a regular file") {
			t.Errorf("line %d does not name %s as refused: %s", i, p, said[i])
		}
	}
}
