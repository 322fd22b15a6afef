package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"flamekit/internal/testkit/clitest"
	"flamekit/internal/testkit/golden"
)

// run runs stackcollapse with args and stdin, returning exit status,
// stdout and stderr.
func run(t *testing.T, stdin []byte, args ...string) (int, string, string) {
	t.Helper()
	return clitest.Run(t, "stackcollapse", description, &command{}, string(stdin), args...)
}

// TestFormatsByContent runs stackcollapse on a real capture of each kind,
// from a file and (gzipped, as stored) from standard input, and checks
// that the kind was recognised by its content, whatever the file name.
func TestFormatsByContent(t *testing.T) {
	bpf := "../../testdata/bpf/"
	tests := []struct {
		name   string
		file   string
		args   []string
		golden string // expected output, or "" for the input itself (passed through)
		stderr string
	}{
		{name: "bpftrace dump", file: bpf + "bpftrace-profile.txt.gz", args: []string{"--kernel"},
			golden: "../../pkg/interop/bpftrace/testdata/golden/profile-kernel.folded"},
		{name: "bpftrace, a named map", file: bpf + "bpftrace-maps.txt.gz", args: []string{"--kernel", "--map", "@cpu"},
			golden: "../../pkg/interop/bpftrace/testdata/golden/maps-cpu-kernel.folded"},
		{name: "bpftrace, first map with stacks", file: bpf + "bpftrace-maps.txt.gz",
			golden: "../../pkg/interop/bpftrace/testdata/golden/maps.folded", stderr: "folded map @bytes; @cpu also has stacks (choose with --map)"},
		{name: "bcc offwaketime -f passed through", file: bpf + "bcc-offwaketime.txt.gz"},
		{name: "bcc profile -f -d passed through", file: bpf + "bcc-profile.txt.gz"},
		{name: "async-profiler collapsed passed through", file: bpf + "async-profiler.txt.gz"},
		{name: "timed folded passed through", file: "../../pkg/filter/window/testdata/burst.folded.gz"},
		{name: "perf script as before", file: "../../testdata/perf/kernel.txt.gz", args: []string{"--no-time"},
			golden: "../../testdata/perf/perl/kernel.collapsed-none.txt.gz"},
	}
	for _, tt := range tests {
		want := readFile(t, tt.file)
		if tt.golden != "" {
			want = readFile(t, tt.golden)
		}
		t.Run(tt.name, func(t *testing.T) {
			code, out, errb := run(t, nil, append(tt.args, tt.file)...)
			if code != 0 || !strings.Contains(errb, tt.stderr) {
				t.Fatalf("exit %d, stderr %q", code, errb)
			}
			if out != string(want) {
				t.Errorf("output differs:\n%s", golden.Diff(want, []byte(out)))
			}
			gz, err := os.ReadFile(tt.file)
			if err != nil {
				t.Fatal(err)
			}
			code, out, _ = run(t, gz, tt.args...)
			if code != 0 || out != string(want) {
				t.Errorf("from stdin: exit %d, output differs:\n%s", code, golden.Diff(want, []byte(out)))
			}
		})
	}
}

// TestFormatRefused checks the inputs stackcollapse names and refuses, and
// the --format values that do not fit the input.
func TestFormatRefused(t *testing.T) {
	dir := t.TempDir()
	pprof := readRaw(t, "../../pkg/source/testdata/cpu.pprof")
	perfData := readFile(t, "../../pkg/source/testdata/perf.data.gz")
	elf := append([]byte("\x7fELF\x02\x01\x01\x00"), bytes.Repeat([]byte{0, 1, 2, 3}, 100)...)
	for name, b := range map[string][]byte{"profile.txt": pprof, "data.folded": perfData, "a.out": elf} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name   string
		args   []string
		stdin  []byte
		stderr string
	}{
		{"binary", []string{filepath.Join(dir, "a.out")}, nil, "a.out: not an input flamekit reads: it looks like binary data starting 7f 45 4c 46"},
		{"--format bpftrace on folded input", []string{"--format", "bpftrace", "../../testdata/bpf/bcc-profile.txt.gz"}, nil, "no bpftrace map in it"},
		{"--format perf on folded input", []string{"--format", "perf", "../../testdata/bpf/bcc-profile.txt.gz"}, nil, "is it the output of 'perf script'?"},
		{"--format pprof on folded input", []string{"--format", "pprof", "../../testdata/bpf/bcc-profile.txt.gz"}, nil, "not a valid profile.proto"},
		{"--map names no map", []string{"--map", "nope", "../../testdata/bpf/bpftrace-maps.txt.gz"}, nil, "no such map @nope (maps: @bytes, @cpu, @samples, @size (histogram))"},
		{"a refused input stops before any output", []string{"../../testdata/bpf/bcc-profile.txt.gz", filepath.Join(dir, "a.out")}, nil, "not an input flamekit reads"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errb := run(t, tt.stdin, tt.args...)
			if code != 1 || !strings.Contains(errb, tt.stderr) {
				t.Errorf("exit %d, stderr %q, want 1 and %q", code, errb, tt.stderr)
			}
			if tt.name == "a refused input stops before any output" && out != "" {
				t.Errorf("output %q", clip(out))
			}
		})
	}
	if code, _, errb := run(t, nil, "--format", "jfr", "x"); code != 2 || !strings.Contains(errb, "auto") {
		t.Errorf("bad --format: exit %d, stderr %q", code, errb)
	}
	// perf.data is read, whatever the file's name, and on standard
	// input too (from a copy: the reader reads at offsets).
	code, out, errb := run(t, nil, "--no-time", filepath.Join(dir, "data.folded"))
	if code != 0 || out == "" {
		t.Errorf("perf.data named data.folded: exit %d, stderr %q", code, errb)
	}
	code, stdinOut, errb := run(t, perfData, "--no-time")
	if code != 0 || stdinOut != out {
		t.Errorf("perf.data on standard input: exit %d, stderr %q, output differs from the file's", code, errb)
	}
	// pprof is read, whatever the file's name, but not mixed with others.
	code, out, errb = run(t, nil, filepath.Join(dir, "profile.txt"))
	if code != 0 || out == "" || !strings.Contains(errb, "folding sample type cpu/nanoseconds") {
		t.Errorf("pprof named profile.txt: exit %d, stderr %q", code, errb)
	}
	code, _, errb = run(t, nil, filepath.Join(dir, "profile.txt"), "../../testdata/bpf/bcc-profile.txt.gz")
	if code != 2 || !strings.Contains(errb, "some inputs are pprof and some folded stacks") {
		t.Errorf("pprof and folded: exit %d, stderr %q", code, errb)
	}
}

// TestFormatForced checks that --format overrides what the content says.
func TestFormatForced(t *testing.T) {
	dump := []byte("@[\n    f+1\n, sh]: 3\n")
	// Read as folded, as flamegraph.pl would read it: one line ends in a
	// number, the two others are skipped.
	if code, out, errb := run(t, dump, "--format", "folded"); code != 0 || out != ", sh]: 3\n" || !strings.Contains(errb, "skipped 2 malformed lines") {
		t.Errorf("a dump read as folded: exit %d, output %q, stderr %q", code, out, errb)
	}
	if code, out, _ := run(t, dump, "--format", "bpftrace"); code != 0 || out != "sh;f 3\n" {
		t.Errorf("--format bpftrace: exit %d, output %q", code, out)
	}
	if code, out, _ := run(t, dump); code != 0 || out != "sh;f 3\n" {
		t.Errorf("auto: exit %d, output %q", code, out)
	}
}

// TestMixedInputs: inputs of different kinds are written in order, all the
// perf script inputs together where the first of them is.
func TestMixedInputs(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"a.bt":     "@[\n    f+1\n, sh]: 3\n",
		"b.perf":   "p 1 1.000000: 5 ev:\n\t1 a (/x)\n\n",
		"c.folded": "x;y 7\n",
		"d.perf":   "q 2 2.000000: 6 ev:\n\t1 b (/x)\n\n",
	}
	var args []string
	for _, n := range []string{"a.bt", "b.perf", "c.folded", "d.perf"} {
		p := filepath.Join(dir, n)
		if err := os.WriteFile(p, []byte(files[n]), 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, p)
	}
	code, out, errb := run(t, nil, append([]string{"--no-time"}, args...)...)
	want := "sh;f 3\np;a 5\nq;b 6\nx;y 7\n"
	if code != 0 || out != want {
		t.Errorf("exit %d, stderr %q\n got %q\nwant %q", code, errb, out, want)
	}
}

// readRaw reads a file as stored (no gunzip).
func readRaw(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
