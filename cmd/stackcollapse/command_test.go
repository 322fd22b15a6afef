package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"flamekit/internal/testkit/golden"
)

// TestBadInput: garbage never panics, is counted, and the exit status
// says whether the input could be read.
func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := "p 1 1.0: 5 ev:\n\t1 a (/x)\n\n"
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(strings.Repeat(good, 5000)))
	zw.Close()
	huge := "p 1 1.0: 5 ev:\n\t1 " + strings.Repeat("s", 1<<20) + " (/x)\n\n"
	bin := make([]byte, 4096)
	for i := range bin {
		bin[i] = byte(i * 7)
	}
	tests := []struct {
		name, file  string
		code        int
		out, stderr string
	}{
		{"empty file", write("empty", nil), 0, "", ""},
		{"garbage lines", write("garbage", []byte("hello\nworld\n"+good)), 0, "p;a 5\n", "skipped 2 malformed lines (first: "},
		{"binary", write("bin", bin), 1, "", "not an input flamekit reads: it looks like binary data starting 00 07 0e"},
		{"malformed perf.data", write("perf.data", append([]byte("PERFILE2"), bin...)), 1, "", "perf.data: offset 0x8: unexpected header size"},
		{"NUL bytes", write("nul", []byte("p\x00q 1 1.0: 5 ev:\n\t1 a\x00b (/x)\n\n")), 0, "p\x00q;a\x00b 5\n", ""},
		{"1 MiB symbol", write("huge", []byte(huge)), 0, "p;" + strings.Repeat("s", 1<<20) + " 5\n", ""},
		{"truncated gzip", write("trunc.gz", gz.Bytes()[:gz.Len()/2]), 1, "", "truncated"},
		{"missing file", filepath.Join(dir, "nonexistent"), 1, "", "no such file"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, stderr := run(t, nil, "--no-time", tc.file)
			if code != tc.code {
				t.Errorf("exit %d, want %d (stderr %s)", code, tc.code, stderr)
			}
			if tc.out != "" && out != tc.out {
				t.Errorf("output %q, want %q", clip(out), clip(tc.out))
			}
			if !strings.Contains(stderr, tc.stderr) {
				t.Errorf("stderr %q, want %q", stderr, tc.stderr)
			}
			if tc.code != 0 && !strings.Contains(stderr, tc.file) {
				t.Errorf("stderr %q does not name the input", stderr)
			}
		})
	}
	t.Run("truncated gzip keeps what was read", func(t *testing.T) {
		if _, out, _ := run(t, nil, "--no-time", filepath.Join(dir, "trunc.gz")); out == "" {
			t.Errorf("no output for the readable part")
		}
	})
}

// TestCommandLine checks Perl's option spellings and stdin.
func TestCommandLine(t *testing.T) {
	in := readFile(t, "../../pkg/perf/perfscript/testdata/compat/perf-script-pid-tid-period.txt")
	want := string(readFile(t, "../../pkg/perf/perfscript/testdata/compat/expected/perf-script-pid-tid-period.collapsed-tid.txt"))
	procs := runtime.GOMAXPROCS(0)
	for _, args := range [][]string{{"--no-time", "--tid"}, {"-no-time", "-tid"}, {"--no-time", "--TID", "-"}, {"-j", "1", "--no-time", "--tid"}, {"--jobs", "2", "--no-time", "--tid"}} {
		code, out, stderr := run(t, in, args...)
		if code != 0 || out != want {
			t.Errorf("%v: exit %d, stderr %s\n%s", args, code, stderr, golden.Diff([]byte(want), []byte(out)))
		}
	}
	if got := runtime.GOMAXPROCS(0); got != procs {
		t.Errorf("-j changed GOMAXPROCS for good: %d, was %d", got, procs)
	}
	if code, _, stderr := run(t, in, "--jobs=-1"); code != 2 || !strings.Contains(stderr, "number of CPUs") {
		t.Errorf("--jobs=-1: exit %d, stderr %s", code, stderr)
	}
	// -j beyond the CPUs this process may use: capped, said once, same
	// output (it used to start as many threads, and die of it).
	huge := strconv.Itoa(runtime.NumCPU() + 100000)
	if code, out, stderr := run(t, in, "-j", huge, "--no-time", "--tid"); code != 0 ||
		out != want || strings.Count(stderr, "-j ") != 1 ||
		!strings.HasPrefix(stderr, fmt.Sprintf("stackcollapse: -j %s: this process may run on %d CPUs: using %d\n", huge, runtime.NumCPU(), runtime.NumCPU())) {
		t.Errorf("-j %s: exit %d, stderr %q", huge, code, stderr)
	}
	// Standard input named twice is a usage error, as in timeslice and
	// difffolded (it used to be read twice into a corrupted stack).
	if code, out, stderr := run(t, in, "-", "-"); code != 2 || out != "" ||
		!strings.Contains(stderr, "standard input (-) is named more than once") {
		t.Errorf("- -: exit %d, stdout %q, stderr %q", code, clip(out), stderr)
	}
	if code, out, _ := run(t, nil, "--help"); code != 0 || !strings.Contains(out, "--event-filter") {
		t.Errorf("--help: exit %d\n%s", code, out)
	}
}

// TestCommandInputs checks how the command names its inputs: a file is the
// timed stream's source and named in messages; standard input has no source
// and is named <stdin>, also in the messages about a perf.data there.
func TestCommandInputs(t *testing.T) {
	text := []byte("p 1 1.000000: 1 ev:\n\t1 a (/x)\n\n")
	file := filepath.Join(t.TempDir(), "in.perf")
	if err := os.WriteFile(file, text, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, stderr := run(t, nil, file); code != 0 ||
		!strings.Contains(out, `source="`+file+`"`) {
		t.Errorf("file: exit %d, stderr %s\n%s", code, stderr, out)
	}
	if code, out, stderr := run(t, text, "-"); code != 0 ||
		strings.Contains(out, "source=") || !strings.Contains(out, "p;a 1 @1.000000 tid=1\n") {
		t.Errorf("stdin: exit %d, stderr %s\n%s", code, stderr, out)
	}
	if code, _, stderr := run(t, []byte("PERFILE2\x00\x00")); code != 1 ||
		stderr != "stackcollapse: <stdin>: not a perf.data file (10 bytes)\n" {
		t.Errorf("perf.data on stdin: exit %d, stderr %s", code, stderr)
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := golden.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func clip(s string) string {
	if len(s) > 300 {
		return s[:300] + "..."
	}
	return s
}

// TestDerivedTestdata keeps the folded captures other packages test with
// equal to what stackcollapse makes of the real captures they come from
// (go test -update rewrites them).
func TestDerivedTestdata(t *testing.T) {
	for _, tc := range []struct{ from, to string }{
		{"../../testdata/perf/burst.txt.gz", "../../pkg/filter/window/testdata/burst.folded.gz"},
		{"../../testdata/perf/before.txt.gz", "../timeslice/testdata/before.folded.gz"},
		{"../../testdata/perf/clock-mono.txt.gz", "../timeslice/testdata/clock-mono.folded.gz"},
	} {
		code, out, stderr := run(t, nil, tc.from)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", tc.from, code, stderr)
		}
		golden.Check(t, tc.to, []byte(out))
	}
}

// TestClockReference: --ref-wall and --ref-perf put a clock reference known
// from elsewhere (the recorder's kernel-log marker) into the metadata.
func TestClockReference(t *testing.T) {
	text := "p 1 100.500000: 5 ev:\n\t1 a (/x)\n\n"
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--ref-wall", "1795316185.385988021", "--ref-perf", "100.25"}, 0, `ref-wall="2026-11-22T02:56:25.385988021Z" ref-perf="100.25"`},
		{[]string{"--ref-wall", "2026-11-22T03:56:25.5+01:00", "--ref-perf", "100.25"}, 0, `ref-wall="2026-11-22T02:56:25.5Z" ref-perf="100.25"`},
		{[]string{"--ref-wall", "1795316185"}, 2, "go together"},
		{[]string{"--ref-wall", "yesterday", "--ref-perf", "100"}, 2, "want RFC 3339"},
		{[]string{"--ref-wall", "1795316185", "--ref-perf=-3"}, 2, "want perf-clock seconds"},
	} {
		code, out, stderr := run(t, []byte(text), tc.args...)
		if code != tc.code || !strings.Contains(out+stderr, tc.want) {
			t.Errorf("%v: exit %d, want %d and %q:\n%s%s", tc.args, code, tc.code, tc.want, out, stderr)
		}
	}
}
