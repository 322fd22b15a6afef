package main

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"flamekit/internal/testkit/clitest"
	"flamekit/internal/testkit/golden"
	"flamekit/internal/testkit/testcapture"
	"flamekit/pkg/folded"
)

// run runs the stackfilter command line and returns stdout, stderr and
// the exit status.
func run(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	code, out, errs := clitest.Run(t, "stackfilter", description, &command{}, stdin, args...)
	return out, errs, code
}

var (
	burstOnce sync.Once
	burstText []byte
)

// burst returns stackcollapse's timed output for the burst capture.
func burst(t *testing.T) []byte {
	t.Helper()
	burstOnce.Do(func() {
		burstText = testcapture.Fold(t, "burst")
	})
	if burstText == nil {
		t.Fatal("no burst capture")
	}
	return burstText
}

// gzipFile writes b gzipped to dir/name and returns its path.
func gzipFile(t *testing.T, dir, name string, b []byte) string {
	t.Helper()
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(b)
	zw.Close()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, z.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// sum reads folded text and returns its total count and number of
// records, failing on anything malformed.
func sum(t *testing.T, text string) (float64, int) {
	t.Helper()
	rd := folded.NewReader(strings.NewReader(text), "out")
	var n float64
	lines := 0
	for rd.Next() {
		n += rd.Record().Count
		lines++
	}
	if err := rd.Err(); err != nil {
		t.Fatal(err)
	}
	return n, lines
}

// TestRealCapture: the burst capture, gzipped, through several options:
// the output is golden, keeps the input's metadata (samples= updated),
// and holds the 384 samples of flamekit_burst.
func TestRealCapture(t *testing.T) {
	in := gzipFile(t, t.TempDir(), "burst.folded.gz", burst(t))
	args := []string{"--focus", "burst_spin", "--hide", `^start_thread$`, "--prune-from", "^run$", "--merge", "^__libc_start_call_main$|^main$=entry", in}
	out, errs, code := run(t, "", args...)
	if code != 0 || errs != "" {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	if total, lines := sum(t, out); lines != 384 || total != 384*10309278 {
		t.Errorf("%d lines, total %v; want 384 samples of 10309278", lines, total)
	}
	if !strings.Contains(out, `samples="384"`) || !strings.HasPrefix(out, "# flamekit v1 timed host=\"vm\"") {
		t.Errorf("metadata not kept or not updated:\n%.300s", out)
	}
	golden.Check(t, "testdata/burst-focus.golden.gz", []byte(out))

	// The order of the options does not matter.
	shuffled := []string{in, "--merge", "^__libc_start_call_main$|^main$=entry", "--prune-from", "^run$", "--hide", `^start_thread$`, "--focus", "burst_spin"}
	if out2, _, _ := run(t, "", shuffled...); out2 != out {
		t.Error("another order of the same options gives another output")
	}
	// Standard input gives the same.
	if out3, _, _ := run(t, string(burst(t)), args[:len(args)-1]...); out3 != out {
		t.Error("standard input gives another output than the file")
	}
}

// TestConserves: options that drop no stack keep every sample and the
// total; --ignore and --focus of complementary sets split the total.
func TestConserves(t *testing.T) {
	in := string(burst(t))
	all, lines := sum(t, in)
	for _, args := range [][]string{
		{"--hide", "_raw|^do_"}, {"--prune-from", "^do_syscall_64$"}, {"--merge", "^__x64_sys_=syscall"},
		{"--collapse-recursion"}, {"--root-at", "."}, {"--show", "."},
	} {
		out, _, code := run(t, in, args...)
		if total, n := sum(t, out); code != 0 || total != all || n != lines {
			t.Errorf("%v: %d lines, total %v (exit %d); want %d, %v", args, n, total, code, lines, all)
		}
	}
	// The CPUs split the samples; perf script text of the capture gave
	// no pid (its default fields print the tid only).
	cpu0, _, _ := run(t, in, "--cpu", "0")
	cpu1, _, _ := run(t, in, "--cpu", "1-3")
	c0, _ := sum(t, cpu0)
	c1, _ := sum(t, cpu1)
	if c0+c1 != all || c0 == 0 || c1 == 0 {
		t.Errorf("--cpu 0 %v + --cpu 1-3 %v != %v", c0, c1, all)
	}
	threads, _, _ := run(t, in, "--tid", "9165,9166")
	comm, _, _ := run(t, in, "--comm", "^flamekit_burst$")
	if tt, n := sum(t, threads); tt != 384*10309278 || n != 384 || threads != comm {
		t.Errorf("--tid of flamekit_burst's threads: %d lines, total %v; want its 384 samples, as --comm gives", n, tt)
	}
	out, errs, code := run(t, in, "--pid", "1-99999")
	if _, n := sum(t, out); code != 0 || n != 0 || !strings.Contains(errs, "3189 samples carry no pid= field") {
		t.Errorf("--pid without pid= fields: %d lines, exit %d, stderr %q", n, code, errs)
	}

	focus, _, _ := run(t, in, "--focus", "idle")
	ignore, _, _ := run(t, in, "--ignore", "idle")
	f, _ := sum(t, focus)
	i, _ := sum(t, ignore)
	if f+i != all || f == 0 || i == 0 {
		t.Errorf("--focus idle %v + --ignore idle %v != %v", f, i, all)
	}
}

func TestCommandLine(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.folded")
	b := gzipFile(t, dir, "b.folded.gz", []byte("java-1/2;main;f 3\njava-1/2;g 1 2\n"))
	os.WriteFile(a, []byte("app;main;work 1 @1.5\nmalformed\nidle;do_idle 5 @2.5\n"), 0o644)

	out, errs, code := run(t, "", "--comm", "^(app|java)", a, b)
	if code != 0 || out != "app;main;work 1 @1.5\njava-1/2;main;f 3\njava-1/2;g 1 2\n" {
		t.Errorf("two files: %q, exit %d", out, code)
	}
	if !strings.Contains(errs, "skipped 1 malformed line") || !strings.Contains(errs, a+":2") {
		t.Errorf("stderr %q does not report the malformed line", errs)
	}

	_, errs, _ = run(t, "", "--focus", "nosuch", "--focus", "main", a)
	if !strings.Contains(errs, `--focus "nosuch" matched no frame`) || strings.Contains(errs, `"main" matched`) {
		t.Errorf("unmatched option: stderr %q", errs)
	}
	if _, errs, _ := run(t, "", "--focus", "nosuch", a); !strings.Contains(errs, "no line kept of 2 read") {
		t.Errorf("nothing kept: stderr %q", errs)
	}
	if out, _, code := run(t, "x;y 1\n", "--hide", "^y$", "-"); code != 0 || out != "x 1\n" {
		t.Errorf("stdin: %q, exit %d", out, code)
	}

	for _, tc := range []struct {
		args []string
		code int
		err  string
	}{
		{[]string{"--focus", "(", a}, 2, `--focus "("`},
		{[]string{"--merge", "x=a;b", a}, 2, "--merge"},
		{[]string{"--cpu", "3-1", a}, 2, "--cpu"},
		{[]string{"--comm", "(", a}, 2, "--comm"},
		{[]string{"--bogus"}, 2, "unknown flag"},
		{[]string{"-", "-"}, 2, "only once"},
		{[]string{filepath.Join(dir, "missing")}, 1, "missing"},
	} {
		if _, errs, code := run(t, "", tc.args...); code != tc.code || !strings.Contains(errs, tc.err) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args, code, errs, tc.code, tc.err)
		}
	}

	out, _, code = run(t, "", "--version")
	if code != 0 || !strings.HasPrefix(out, "stackfilter (flamekit) ") {
		t.Errorf("--version: %q, exit %d", out, code)
	}
	out, _, code = run(t, "", "--help")
	for _, want := range []string{"Examples:", "--focus=RE", "--ignore=RE", "--hide=RE", "--show=RE", "--show-from=RE", "--prune-from=RE",
		"--root-at=RE", "--merge=RE[=NAME]", "--collapse-recursion", "--comm=RE", "--pid=LIST", "--tid=LIST", "--cpu=LIST"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("--help lacks %q", want)
		}
	}
}

// TestEscapesWhatWouldMislead: the fuzz find of FuzzFilter on the command
// line: a frame "# flamekit v1 timed x" that --hide makes the first is
// written so that it does not read as a metadata line, and a frame that
// ends in " <digits>" (a perf-map symbol "Evil 5") so that the classic
// line does not read as differential; every line reads back, with its
// count.
func TestEscapesWhatWouldMislead(t *testing.T) {
	in := "java;# flamekit v1 timed x;leaf 5\njava;Evil 5;leaf 3\n"
	out, stderr, code := run(t, in, "--hide", "^(java|leaf)$")
	if code != 0 {
		t.Fatal(stderr)
	}
	if out != "#_flamekit v1 timed x 5\nEvil_5 3\n" {
		t.Errorf("got %q", out)
	}
	if n, lines := sum(t, out); n != 8 || lines != 2 {
		t.Errorf("read back: %v in %d lines", n, lines)
	}
}
