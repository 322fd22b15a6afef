package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSymbolDiagnosis runs stackcollapse on real captures whose frames
// lack names for different reasons, and checks that its one line on
// stderr names the cause: kernel symbols hidden, a program without
// symbols, JIT code without a perf map, or stacks broken by code built
// without frame pointers (Debian's libc, bash, ls, dpkg: garbage return
// addresses such as 0x0, in no mapping), which is not JIT code.
func TestSymbolDiagnosis(t *testing.T) {
	const (
		broken = "are broken ("
		fpCure = "Record with perf record --call-graph dwarf, or build that code with -fno-omit-frame-pointer"
		jit    = "of the user frames are in anonymous memory with no symbol, as JIT-compiled code is: have the runtime write /tmp/perf-PID.map"
		noSyms = "of the user frames have no symbol, most in "
		kernel = "of the kernel frames have no symbol ([unknown]): perf could not read the kernel's symbols"
	)
	perf := "../../testdata/perf/"
	tests := []struct {
		name, file string
		want       []string // parts of the lines wanted, in their order
	}{
		// System-wide, mostly idle: ls, bash and python3 break after
		// libc's getdents64 and lgetxattr (address 0).
		{"burst", perf + "burst.txt.gz", []string{"the user stacks of bash, ls, python3, ... " + broken, "(libc.so.6, bash, ld-linux-x86-64.so.2, ...)", "such as 0x0", fpCure}},
		// dpkg unpacking: broken stacks, and dpkg and liblzma have no
		// symbols (the frame-pointer cure is said once).
		{"clock-mono", perf + "clock-mono.txt.gz", []string{"the user stacks of dpkg, dpkg-deb " + broken, "(libc.so.6, dpkg, ld-linux-x86-64.so.2)", fpCure,
			noSyms + "/usr/bin/dpkg (18), /usr/lib/x86_64-linux-gnu/liblzma.so.5.4.1 (15)", "or build with -g\n"}},
		// A few broken stacks, looping to perf's depth limit; most
		// unnamed frames are in programs whose file perf could not read.
		{"hotcold", perf + "hotcold.txt.gz", []string{noSyms + "/tmp/go-build307517007/b001/symbols.test (102), /usr/lib/chromium/chromium (64)"}},
		{"nojitmap", perf + "nojitmap.txt.gz", []string{"43% " + jit}},
		{"nokallsyms", perf + "nokallsyms.txt.gz", []string{"100% " + kernel}},
		{"stripped", perf + "stripped.txt.gz", []string{"67% " + noSyms + "/tmp/flamekit-capture.4GKCIh/hotcold.stripped (74)"}},
		{"kernel (all named)", perf + "kernel.txt.gz", nil},
		{"java (with its perf map)", perf + "java.txt.gz", nil},
		{"broken, perf script text", "testdata/symcheck/broken.script.gz", []string{"the user stacks of ls, perl " + broken, "(libc.so.6, ls, perl)", "such as 0x0", fpCure}},
		{"nojit, perf script text", "testdata/symcheck/nojit.script.gz", []string{"27% " + jit}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := run(t, nil, "--no-time", tc.file)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			diag := symbolLines(stderr)
			if len(tc.want) == 0 {
				if diag != "" {
					t.Errorf("stderr %q, want no symbol warning", diag)
				}
				return
			}
			rest := diag
			for _, w := range tc.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("stderr %q, want %q (in this order: %q)", diag, w, tc.want)
				}
				rest = rest[i+len(w):]
			}
			if isJIT := strings.Contains(tc.want[0], "JIT"); strings.Contains(diag, "JIT") != isJIT {
				t.Errorf("stderr %q: JIT code named where it is not the cause, or not where it is", diag)
			}
			if strings.Contains(diag, broken) != strings.Contains(tc.want[0], broken) {
				t.Errorf("stderr %q: broken stacks named where they are not the cause, or not where they are", diag)
			}
		})
	}
}

// TestSymbolDiagnosisReaders: the perf.data reader and the perf script text
// reader give the same diagnosis of the same capture. The lines about
// broken stacks and JIT code depend on the mappings the capture holds, not
// on this machine's files, so they are compared wherever the test runs.
func TestSymbolDiagnosisReaders(t *testing.T) {
	for _, name := range []string{"broken", "nojit"} {
		t.Run(name, func(t *testing.T) {
			data := readFile(t, "testdata/symcheck/"+name+".data.gz")
			file := filepath.Join(t.TempDir(), name+".data")
			if err := os.WriteFile(file, data, 0o600); err != nil {
				t.Fatal(err)
			}
			_, _, fromData := run(t, nil, "--no-time", file)
			_, _, fromText := run(t, nil, "--no-time", "testdata/symcheck/"+name+".script.gz")
			d, x := userCause(fromData), userCause(fromText)
			if d == "" || d != x {
				t.Errorf("perf.data: %q\nperf script: %q\nwant the same line, naming the cause", d, x)
			}
		})
	}
}

// symbolLines returns the lines of stderr that are symbol warnings.
func symbolLines(stderr string) string {
	var out []string
	for _, l := range strings.SplitAfter(stderr, "\n") {
		if strings.Contains(l, "no symbol") || strings.Contains(l, "are broken (") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "")
}

// userCause returns the warning lines about broken stacks or JIT code.
func userCause(stderr string) string {
	var out []string
	for _, l := range strings.SplitAfter(stderr, "\n") {
		if strings.Contains(l, "are broken (") || strings.Contains(l, "JIT-compiled") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "")
}
