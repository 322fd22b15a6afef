package capture

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"flamekit/internal/golden"
	"flamekit/pkg/collapse"
	"flamekit/pkg/folded"
	"flamekit/pkg/source"
	"flamekit/pkg/symbols"
)

// noSymbols is a resolver that finds nothing, so that the tests give the
// same answers on every machine: every frame is [unknown] and the output
// depends on the capture alone.
func noSymbols(t *testing.T) *symbols.Resolver {
	dir := t.TempDir()
	return symbols.NewResolver(symbols.Options{BuildIDDir: dir, DebugDir: dir, Kallsyms: filepath.Join(dir, "none"),
		KernelNotes: filepath.Join(dir, "none"), PerfMapDir: dir})
}

// fold runs the Folder method do on a new stage and returns the output and
// the messages.
func fold(t *testing.T, opt collapse.Options, setup func(*Folder), do func(*Folder) error) (string, string, error) {
	t.Helper()
	var out bytes.Buffer
	var msgs strings.Builder
	st, err := collapse.New(&out, opt)
	if err != nil {
		t.Fatal(err)
	}
	warnf := func(format string, args ...any) {
		msgs.WriteString(strings.TrimSpace(fmt.Sprintf(format, args...)) + "\n")
	}
	st.Warnf = warnf
	f := &Folder{Stage: st, Resolver: noSymbols(t), AllowForeign: true, Warnf: warnf}
	if setup != nil {
		setup(f)
	}
	err = do(f)
	if _, cerr := st.Close(); err == nil {
		err = cerr
	}
	return out.String(), msgs.String(), err
}

// open opens an input for the tests.
func open(t *testing.T, path string) *source.Input {
	t.Helper()
	in, err := source.Open(path, source.Options{TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close() })
	return in
}

// roots reduces timed folded output to each sample's process, count and
// time: what a capture says whatever the symbols found.
func roots(t *testing.T, out string) []string {
	t.Helper()
	rd := folded.NewReader(strings.NewReader(out), "out")
	var rs []string
	for rd.Next() {
		r := rd.Record()
		root, _, _ := strings.Cut(string(r.Stack), ";")
		rs = append(rs, root+" "+folded.FormatCount(r.Count)+" @"+r.Time.String())
	}
	if err := rd.Err(); err != nil {
		t.Fatal(err)
	}
	return rs
}

// TestDataAgreesWithPerfScript folds real perf.data files (gzipped, as
// committed) and the perf script text perf printed for them, and checks
// that both give the same samples: process, weight and time, in order.
func TestDataAgreesWithPerfScript(t *testing.T) {
	for _, name := range []string{"cpp", "syswide", "zstd", "mixed"} {
		t.Run(name, func(t *testing.T) {
			data := filepath.Join("../perfdata/testdata", name+".data.gz")
			text, err := golden.Read(filepath.Join("../perfdata/testdata", name+".script.gz"))
			if err != nil {
				t.Fatal(err)
			}
			fromData, _, err := fold(t, collapse.Options{}, nil, func(f *Folder) error { return f.Data(open(t, data), "x") })
			if err != nil {
				t.Fatal(err)
			}
			fromText, _, err := fold(t, collapse.Options{}, nil, func(f *Folder) error { return f.Text(bytes.NewReader(text), "text", "x") })
			if err != nil {
				t.Fatal(err)
			}
			a, b := roots(t, fromData), roots(t, fromText)
			if len(a) == 0 || strings.Join(a, "\n") != strings.Join(b, "\n") {
				t.Errorf("perf.data gives %d samples, its perf script text %d, or they differ:\n%s",
					len(a), len(b), golden.Diff([]byte(strings.Join(b, "\n")), []byte(strings.Join(a, "\n"))))
			}
		})
	}
}

// TestFallbackToPerfScript: a perf.data file the reader cannot read as
// perf does (--call-graph dwarf) is read through perf script, with a
// message; without perf, it is an error that says what to run.
func TestFallbackToPerfScript(t *testing.T) {
	data := "../perfdata/testdata/dwarf.data.gz"
	text, err := golden.Read("../../testdata/perf/dwarf.txt.gz")
	if err != nil {
		t.Fatal(err)
	}
	// A stand-in for perf: prints the text of a dwarf capture.
	dir := t.TempDir()
	txt := filepath.Join(dir, "dwarf.txt")
	if err := os.WriteFile(txt, text, 0o644); err != nil {
		t.Fatal(err)
	}
	perf := filepath.Join(dir, "perf")
	script := "#!/bin/sh\n[ \"$1\" = script ] || exit 2\nexec cat " + txt + "\n"
	if err := os.WriteFile(perf, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	out, msgs, err := fold(t, collapse.Options{NoTime: true}, func(f *Folder) { f.Perf = perf }, func(f *Folder) error { return f.Data(open(t, data), "x") })
	if err != nil {
		t.Fatal(err)
	}
	want, _, _ := fold(t, collapse.Options{NoTime: true}, nil, func(f *Folder) error { return f.Text(bytes.NewReader(text), "text", "x") })
	if out != want || out == "" {
		t.Errorf("the fallback's output differs from folding perf script's text:\n%s", golden.Diff([]byte(want), []byte(out)))
	}
	if !strings.Contains(msgs, "dwarf.data.gz: ") || !strings.Contains(msgs, "reading it with "+perf+" script instead") {
		t.Errorf("no message saying perf script was run:\n%s", msgs)
	}
	_, _, err = fold(t, collapse.Options{}, nil, func(f *Folder) error { return f.Data(open(t, data), "x") })
	if err == nil || !strings.Contains(err.Error(), "gzip -dc "+data+" > ../perfdata/testdata/dwarf.data) and run perf script --header -i ../perfdata/testdata/dwarf.data") {
		t.Errorf("without perf: %v, want an error saying to run perf script", err)
	}
}

// TestFolded: the pipe gives what a Folder writes, and a reader that stops
// early stops the folding without its messages.
func TestFolded(t *testing.T) {
	data := "../perfdata/testdata/syswide.data.gz"
	want, _, err := fold(t, collapse.Options{}, nil, func(f *Folder) error { return f.Data(open(t, data), data) })
	if err != nil {
		t.Fatal(err)
	}
	// Folded uses the default resolver; compare what does not depend on
	// symbols.
	var msgs []string
	warnf := func(format string, args ...any) { msgs = append(msgs, fmt.Sprintf(format, args...)) }
	rc, err := Folded(open(t, data), Options{Warnf: warnf})
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(rc)
	rc.Close()
	if err != nil && !strings.Contains(err.Error(), "another host") {
		t.Fatal(err)
	}
	if err == nil && strings.Join(roots(t, string(got)), "\n") != strings.Join(roots(t, want), "\n") {
		t.Error("Folded's output differs from the Folder's")
	}
	msgs = nil
	rc, err = Folded(open(t, data), Options{Warnf: warnf})
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 10)
	io.ReadFull(rc, buf)
	rc.Close()
	if len(msgs) != 0 {
		t.Errorf("messages of a fold stopped early: %q", msgs)
	}
}

// TestFoldedKinds: Folded gives folded text for every kind of input:
// folded stacks as they are, the others folded, binary data of no known
// kind an error.
func TestFoldedKinds(t *testing.T) {
	dir := t.TempDir()
	elf := filepath.Join(dir, "a.out")
	os.WriteFile(elf, append([]byte("\x7fELF\x02\x01\x01\x00"), bytes.Repeat([]byte{0, 1, 2, 3}, 100)...), 0o644)
	tests := []struct {
		path  string
		kind  source.Kind
		timed bool // timed lines, else classic
	}{
		{"../../testdata/perf/burst.txt.gz", source.PerfScript, true},
		{"../perfdata/testdata/syswide.data.gz", source.PerfData, true},
		{"../source/testdata/cpu.pprof", source.Pprof, false},
		{"../../testdata/bpf/bpftrace-profile.txt.gz", source.Bpftrace, false},
		{"../../testdata/bpf/bcc-profile.txt.gz", source.Folded, false},
	}
	for _, tt := range tests {
		in := open(t, tt.path)
		if in.Kind != tt.kind {
			t.Fatalf("%s: %v, want %v", tt.path, in.Kind, tt.kind)
		}
		rc, err := Folded(in, Options{})
		if err != nil {
			t.Fatal(err)
		}
		rd := folded.NewReader(rc, tt.path)
		n, timed := 0, 0
		for rd.Next() {
			n++
			if rd.Record().Kind == folded.Timed {
				timed++
			}
		}
		rc.Close()
		if err := rd.Err(); err != nil && !strings.Contains(err.Error(), "another host") {
			t.Fatalf("%s: %v", tt.path, err)
		}
		if rd.Err() == nil && (n == 0 || (timed == n) != tt.timed) {
			t.Errorf("%s: %d lines, %d timed", tt.path, n, timed)
		}
	}
	if _, err := Folded(open(t, elf), Options{}); !errors.Is(err, source.ErrUnknown) {
		t.Errorf("ELF: %v", err)
	}
	in := open(t, "../../testdata/bpf/bcc-profile.txt.gz")
	rc, _ := Folded(in, Options{})
	got, _ := io.ReadAll(rc)
	rc.Close()
	want, _ := golden.Read("../../testdata/bpf/bcc-profile.txt.gz")
	if !bytes.Equal(got, want) {
		t.Error("folded input is not passed as it is")
	}
}
