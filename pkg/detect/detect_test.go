package detect

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// head returns the first PeekSize bytes of the file at path (as stored:
// gzip stays gzip) and whether that is the whole file.
func head(t *testing.T, path string) ([]byte, bool) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, PeekSize+1))
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > PeekSize {
		return b[:PeekSize], false
	}
	return b, true
}

func gunzip(t *testing.T, b []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func gz(b []byte) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(b)
	zw.Close()
	return buf.Bytes()
}

// TestRealInputs checks every real capture of the repository, gzipped as
// stored and decompressed.
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
		{"../../pkg/timeslice/testdata/*.folded.gz", Folded}, // timed lines from stackcollapse
		{"../../cmd/difffolded/testdata/*.folded", Folded},
		{"../../pkg/svg/testdata/compat/diff-input.folded", Folded}, // differential lines
		{"testdata/cpu.pprof", Pprof},                               // go test -cpuprofile (gzipped by Go)
		{"testdata/perf.data.gz", PerfData},                         // perf record -F 199 -g, gzipped here
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
			b, complete := head(t, p)
			if got := Detect(b, complete); got != g.want {
				t.Errorf("%s: %v, want %v", p, got, g.want)
			}
			if !isGzip(b) {
				continue
			}
			whole, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			plain := gunzip(t, whole)
			complete = len(plain) <= PeekSize
			if !complete {
				plain = plain[:PeekSize]
			}
			if got := Detect(plain, complete); got != g.want {
				t.Errorf("%s decompressed: %v, want %v", p, got, g.want)
			}
		}
	}
}

func TestDetect(t *testing.T) {
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
		{"old perf.data", "PERFFILE\x00", false, PerfData},
		{"bpftrace JSON output", "{\"type\": \"attached_probes\", \"data\": {\"probes\": 1}}\n", true, Unknown},
		{"prose", "This is a note.\nIt took 30 minutes and 12 seconds\n", true, Unknown},
		{"ELF", "\x7fELF\x02\x01\x01\x00\x00\x00", false, Unknown},
		{"zstd", "\x28\xb5\x2f\xfd\x04\x00", false, Unknown},
		{"gzip inside gzip", string(gz(gz([]byte("a;b 1\n")))), true, Unknown},
		{"gzipped folded", string(gz([]byte("a;b 1\n"))), true, Folded},
		{"gzipped bpftrace, cut", string(gz([]byte("@[\n    f+1\n]: 3\n"))[:20]), false, Bpftrace},
		{"cut last line ignored", "a;b 1\nc;d 2\nthis is not fol", false, Folded},
		{"random binary", "\x12\x05\x00\x01\x02", true, Unknown},
		{"NUL bytes in perf script names", "p\x00q 1 1.0: 5 ev:\n\t1 a\x00b (/x)\n\n", true, PerfScript},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Detect([]byte(tt.in), tt.complete); got != tt.want {
				t.Errorf("Detect = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestPprofPlain checks a pprof profile stored without gzip, and cut at
// every length: a head that ends inside a field is still a profile.
func TestPprofPlain(t *testing.T) {
	b, _ := head(t, "testdata/cpu.pprof")
	plain := gunzip(t, b)
	if got := Detect(plain, true); got != Pprof {
		t.Fatalf("plain profile: %v", got)
	}
	// From 16 bytes on: the first field (time_nanos) and the sample
	// types' key are in.
	for n := 16; n < len(plain); n += 7 {
		if got := Detect(plain[:n], false); got != Pprof {
			t.Fatalf("profile cut at %d bytes: %v", n, got)
		}
	}
}

func TestCheck(t *testing.T) {
	_, err := Check([]byte("module flamekit\n\ngo 1.25\n"), true, "go.mod")
	if !errors.Is(err, ErrUnknown) {
		t.Fatalf("err = %v", err)
	}
	for _, want := range []string{"go.mod", `text starting "module flamekit"`, "perf script text", "pprof", "bpftrace", "folded stacks"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	_, err = Check([]byte("\x28\xb5\x2f\xfd\x04\x00"), false, "x.zst")
	if err == nil || !strings.Contains(err.Error(), "zstd") {
		t.Errorf("zstd: %v", err)
	}
	if k, err := Check([]byte("a;b 1\n"), true, "x"); k != Folded || err != nil {
		t.Errorf("folded: %v %v", k, err)
	}
}

func TestFormats(t *testing.T) {
	for _, f := range strings.Split(Formats, ", ") {
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
	if _, err := ParseFormat("perfdata"); err == nil || !strings.Contains(err.Error(), Formats) {
		t.Errorf("bad format: %v", err)
	}
	if Kind(99).String() != "Kind(99)" || Kind(99).Flag() != "" {
		t.Errorf("Kind(99): %v %q", Kind(99), Kind(99).Flag())
	}
}
