package source

import (
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"flamekit/internal/testkit/golden"
	"flamekit/pkg/folded"
	"flamekit/pkg/interop/pprof"
	"flamekit/pkg/source/decompress"
)

func gz(b []byte) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(b)
	zw.Close()
	return buf.Bytes()
}

// TestRealInputs opens every real capture of the repository, compressed
// as stored and decompressed through a stream, and checks its kind.
func TestRealInputs(t *testing.T) {
	globs := []struct {
		glob string
		want Kind
	}{
		{"../../testdata/perf/*.txt.gz", PerfScript},              // perf script --header text
		{"../../testdata/perf/perl/*.collapsed-*.txt.gz", Folded}, // stackcollapse-perf.pl output
		{"../../testdata/bpf/bpftrace-*.txt.gz", Bpftrace},
		{"../../testdata/bpf/bcc-*.txt.gz", Folded}, // bcc -f, with - and --
		{"../../testdata/bpf/async-profiler.txt.gz", Folded},
		{"../filter/window/testdata/*.folded.gz", Folded}, // timed lines from stackcollapse
		{"../../cmd/difffolded/testdata/*.folded", Folded},
		{"../svg/testdata/compat/diff-input.folded", Folded},     // differential lines
		{"testdata/cpu.pprof", Pprof},                            // go test -cpuprofile (gzipped by Go)
		{"testdata/perf.data.gz", PerfData},                      // perf record -F 199 -g, gzipped here
		{"../perf/perfdata/testdata/pipe.data.gz", PerfDataPipe}, // perf record -o -
	}
	for _, g := range globs {
		paths, err := filepath.Glob(g.glob)
		if err != nil || len(paths) == 0 {
			t.Fatalf("no files for %s", g.glob)
		}
		for _, p := range paths {
			if strings.Contains(p, "nocallgraph.collapsed") {
				continue // Perl printed nothing for it: empty files
			}
			in, err := Open(p, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if in.Kind != g.want || in.Stream {
				t.Errorf("%s: %v (stream %v), want %v", p, in.Kind, in.Stream, g.want)
			}
			whole, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if in.Method != decompress.Gzip {
				continue
			}
			plain := golden.Gunzip(t, whole)
			s, err := OpenReader("plain", bytes.NewReader(plain), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if s.Kind != g.want || s.Method != decompress.None || !s.Stream {
				t.Errorf("%s decompressed: %v, want %v", p, s.Kind, g.want)
			}
		}
	}
}

func TestSniff(t *testing.T) {
	long := strings.Repeat("frame;", PeekSize/6+10)
	tests := []struct {
		name     string
		in       string
		complete bool
		want     Kind
	}{
		{"empty", "", true, Empty},
		{"blank lines", "\n\n  \n", true, Empty},
		{"classic folded", "main;a;b 12\nmain;c 3\n", true, Folded},
		{"differential folded", "main;a;b 10 12\nmain;c 3 0\n", true, Folded},
		{"timed folded", "# flamekit v1 timed source=\"x\"\nmain;a 1003009 @696.885404\n", true, Folded},
		{"timed without metadata", "main;a 1003009 @696.885404\nmain;b 1003009 @696.895404\n", true, Folded},
		{"single frames", "swapper 52\nsh 3\n", true, Folded},
		{"bcc offwaketime without waker", "ponger;start_thread;--; 22\n", true, Folded},
		{"CRLF folded", "a;b 1\r\nc;d 2\r\n", true, Folded},
		{"folded line longer than the head", long, false, Folded},
		{"bpftrace header only", "Attaching 1 probe...\n", true, Bpftrace},
		{"bpftrace scalar map", "Attaching 2 probes...\n\n\n@m: 182\n", true, Bpftrace},
		{"bpftrace named map", "@cpu[comm, \n    f+1\n]: 3\n", true, Bpftrace},
		{"perf script without --header", "perf 1234 [000]  10.000001:     250000 cpu-clock:pppH: \n\tffffffff8100 do_syscall_64+0x71 ([kernel.kallsyms])\n\n", true, PerfScript},
		{"perf script, one line per sample", "       templates   12345  4794.123456:    1003009 cpu-clock:pppH:      55d1 main+0x12 (/tmp/templates)\n", true, PerfScript},
		{"perf script, comm of hex letters", "bash 1234 [000] 10.000001: 1 cpu-clock:\n\t7f00 main+0x1 (/bin/bash)\n\n", true, PerfScript},
		{"perf script tracepoint", "ls 7209 [001] 34.5: sched:sched_switch: prev_comm=ls prev_pid=7209 prev_prio=120\n\tffffffff821f8298 __schedule+0x618 ([kernel.kallsyms])\n", true, PerfScript},
		{"perf script --header", "# ========\n# captured on    : Sun Nov 22 20:00:00 2026\n", false, PerfScript},
		{"perf.data", "PERFILE2\x68\x00\x00\x00\x00\x00\x00\x00", false, PerfData},
		{"perf.data, pipe mode", "PERFILE2\x10\x00\x00\x00\x00\x00\x00\x00\x01\x00", false, PerfDataPipe},
		{"old perf.data", "PERFFILE\x00", false, PerfData},
		{"bpftrace JSON output", "{\"type\": \"attached_probes\", \"data\": {\"probes\": 1}}\n", true, Unknown},
		{"prose", "This is a note.\nIt took 30 minutes and 12 seconds\n", true, Unknown},
		{"comment then a long line", "# note\n" + long, false, Unknown},
		{"ELF", "\x7fELF\x02\x01\x01\x00\x00\x00", false, Unknown},
		{"zstd, not decompressed", "\x28\xb5\x2f\xfd\x04\x00", false, Unknown},
		{"gzip, not decompressed", string(gz([]byte("a;b 1\n"))), true, Unknown},
		{"cut last line ignored", "a;b 1\nc;d 2\nthis is not fol", false, Folded},
		{"random binary", "\x12\x05\x00\x01\x02", true, Unknown},
		{"NUL bytes in perf script names", "p\x00q 1 1.0: 5 ev:\n\t1 a\x00b (/x)\n\n", true, PerfScript},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Sniff([]byte(tt.in), tt.complete); got != tt.want {
				t.Errorf("Sniff = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestPprofPlain checks a pprof profile stored without gzip, and cut at
// every length: a head that ends inside a field is still a profile.
func TestPprofPlain(t *testing.T) {
	b, err := os.ReadFile("testdata/cpu.pprof")
	if err != nil {
		t.Fatal(err)
	}
	plain := golden.Gunzip(t, b)
	if got := Sniff(plain, true); got != Pprof {
		t.Fatalf("plain profile: %v", got)
	}
	// From 16 bytes on: the first field (time_nanos) and the sample
	// types' key are in.
	for n := 16; n < len(plain); n += 7 {
		if got := Sniff(plain[:n], false); got != Pprof {
			t.Fatalf("profile cut at %d bytes: %v", n, got)
		}
	}
}

func TestCheck(t *testing.T) {
	in, err := OpenReader("go.mod", strings.NewReader("module flamekit\n\ngo 1.25\n"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	err = in.Check()
	if !errors.Is(err, ErrUnknown) {
		t.Fatalf("err = %v", err)
	}
	for _, want := range []string{"go.mod", `text starting "module flamekit"`, "perf script text", "pprof", "bpftrace", "folded stacks"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	in, err = OpenReader("x.gz", bytes.NewReader(gz(gz([]byte("a;b 1\n")))), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := in.Check(); err == nil || !strings.Contains(err.Error(), "gzip data holding gzip data inside compressed data") {
		t.Errorf("gzip in gzip: %v", err)
	}
	in, err = OpenReader("x", strings.NewReader("a;b 1\n"), Options{})
	if err != nil || in.Kind != Folded || in.Check() != nil {
		t.Errorf("folded: %v %v", in.Kind, err)
	}
}

func TestFormats(t *testing.T) {
	for _, f := range strings.Split(FormatFlags(), ", ") {
		k, err := ParseFormat(f)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if f == "auto" {
			if k != Unknown {
				t.Errorf("auto: %v", k)
			}
			continue
		}
		if k.Flag() != f || k.String() == "" {
			t.Errorf("%s: kind %v flag %q", f, k, k.Flag())
		}
	}
	if FormatFlags() != "auto, perf-data, pprof, perf, bpftrace, folded" {
		t.Errorf("FormatFlags() = %q", FormatFlags())
	}
	if _, err := ParseFormat("perfdata"); err == nil || !strings.Contains(err.Error(), FormatFlags()) {
		t.Errorf("bad format: %v", err)
	}
	if Kind(99).String() != "Kind(99)" || Kind(99).Flag() != "" {
		t.Errorf("Kind(99): %v %q", Kind(99), Kind(99).Flag())
	}
	if PerfDataPipe.Flag() != "perf-data" || !PerfDataPipe.IsPerfData() || PerfScript.IsPerfData() {
		t.Errorf("pipe mode: %q", PerfDataPipe.Flag())
	}
	seen := map[Kind]bool{}
	for _, f := range Formats() {
		if seen[f.Kind] || f.Name == "" || (f.Binary == nil) == (f.Marker == nil) {
			t.Errorf("table entry %v: duplicate, unnamed, or neither/both binary and text", f.Kind)
		}
		seen[f.Kind] = true
	}
}

// TestPprofSniff: profiles as Go writes them and as pkg/interop/pprof builds
// them are pprof; text, even with a control byte, is not.
func TestPprofSniff(t *testing.T) {
	ours := pprof.NewBuilder(pprof.Options{})
	ours.Add(&folded.Record{Stack: []byte("a"), Count: 1, Kind: folded.Classic})
	var gz bytes.Buffer
	if err := ours.Write(&gz); err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(&gz)
	if err != nil {
		t.Fatal(err)
	}
	var built bytes.Buffer
	if _, err := built.ReadFrom(zr); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile("testdata/cpu.pprof")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		data []byte
		want Kind
	}{
		{"go cpu, first 256 bytes", golden.Gunzip(t, b)[:256], Pprof},
		{"built by pkg/interop/pprof", built.Bytes(), Pprof},
		{"short text with a control byte", []byte("H\x01x"), Unknown},
		{"perf script", []byte("\nswapper     0 [000] 413.417927: cpu-clock:\n"), PerfScript},
		{"folded", []byte("# flamekit v1 timed\nmain;a 1 @1.0\n"), Folded},
		{"bpftrace", []byte("Attaching 1 probe...\n\n@[\n"), Bpftrace},
		{"blank lines", []byte("\n\n\n\n"), Empty},
	}
	for _, tc := range tests {
		if got := Sniff(tc.data, tc.name != "go cpu, first 256 bytes"); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
