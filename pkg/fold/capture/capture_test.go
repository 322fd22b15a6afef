package capture

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"flamekit/internal/testkit/golden"
	"flamekit/pkg/fold/collapse"
	"flamekit/pkg/folded"
	"flamekit/pkg/perf/perfdata"
	"flamekit/pkg/perf/symbols"
	"flamekit/pkg/source"
)

// noSymbols is a resolver that finds nothing, so that the tests give the
// same answers on every machine: every frame is [unknown] and the output
// depends on the capture alone.
func noSymbols(t *testing.T) *symbols.Resolver {
	dir := t.TempDir()
	return symbols.NewResolver(symbols.Options{BuildIDDir: dir, DebugDir: dir, Kallsyms: filepath.Join(dir, "none"),
		KernelNotes: filepath.Join(dir, "none"), PerfMapDir: dir})
}

// fold runs a Folder on the input in makes and returns the output and the
// messages.
func fold(t *testing.T, opt collapse.Options, setup func(*Folder), in func(*Folder) collapse.Input) (string, string, error) {
	t.Helper()
	var out bytes.Buffer
	var msgs strings.Builder
	warnf := func(format string, args ...any) {
		msgs.WriteString(strings.TrimSpace(fmt.Sprintf(format, args...)) + "\n")
	}
	f := &Folder{Driver: collapse.Driver{Options: opt, Warnf: warnf}, Resolver: noSymbols(t), AllowForeign: true}
	if setup != nil {
		setup(f)
	}
	_, err := f.Run(&out, []collapse.Input{in(f)})
	return out.String(), msgs.String(), err
}

// textInput opens text as a perf script input.
func textInput(text []byte) func() (io.ReadCloser, error) {
	return func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(text)), nil }
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
			data := filepath.Join("../../perf/perfdata/testdata", name+".data.gz")
			text, err := golden.Read(filepath.Join("../../perf/perfdata/testdata", name+".script.gz"))
			if err != nil {
				t.Fatal(err)
			}
			fromData, _, err := fold(t, collapse.Options{}, nil, func(f *Folder) collapse.Input { return f.Data(open(t, data), "x") })
			if err != nil {
				t.Fatal(err)
			}
			fromText, _, err := fold(t, collapse.Options{}, nil, func(f *Folder) collapse.Input { return f.Text("text", "x", textInput(text)) })
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
// perf does (here pipe mode) is read through perf script, with a message;
// without perf, it is an error that says what to run. (The stand-in perf
// prints the text of another capture.)
func TestFallbackToPerfScript(t *testing.T) {
	data := "../../perf/perfdata/testdata/pipe.data.gz"
	text, err := golden.Read("../../../testdata/perf/dwarf.txt.gz")
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
	out, msgs, err := fold(t, collapse.Options{NoTime: true}, func(f *Folder) { f.Perf = perf }, func(f *Folder) collapse.Input { return f.Data(open(t, data), "x") })
	if err != nil {
		t.Fatal(err)
	}
	want, _, _ := fold(t, collapse.Options{NoTime: true}, nil, func(f *Folder) collapse.Input { return f.Text("text", "x", textInput(text)) })
	if out != want || out == "" {
		t.Errorf("the fallback's output differs from folding perf script's text:\n%s", golden.Diff([]byte(want), []byte(out)))
	}
	if !strings.Contains(msgs, "pipe.data.gz: ") || !strings.Contains(msgs, "reading it with "+perf+" script instead") {
		t.Errorf("no message saying perf script was run:\n%s", msgs)
	}
	_, _, err = fold(t, collapse.Options{}, nil, func(f *Folder) collapse.Input { return f.Data(open(t, data), "x") })
	if err == nil || !strings.Contains(err.Error(), "gzip -dc "+data+" > ../../perf/perfdata/testdata/pipe.data) and run perf script --header -i ../../perf/perfdata/testdata/pipe.data") {
		t.Errorf("without perf: %v, want an error saying to run perf script", err)
	}
}

// TestPipeCutSaid: a pipe-mode perf.data file cut inside a record (a
// copy cut off, a full disk) is read by the real perf script to its last
// complete record, every complete sample kept, and the cut is said.
func TestPipeCutSaid(t *testing.T) {
	perf, err := exec.LookPath("perf")
	if err != nil {
		t.Skip("perf is not installed: the fallback to perf script cannot be run")
	}
	data, err := golden.Read("../../perf/perfdata/testdata/pipe.data.gz")
	if err != nil {
		t.Fatal(err)
	}
	for _, cut := range []int{len(data), len(data) - 3, 4500, 4252} { // whole, in the last record, in the fifth sample, after the third
		t.Run(strconv.Itoa(cut), func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "cut.data")
			if err := os.WriteFile(file, data[:cut], 0o600); err != nil {
				t.Fatal(err)
			}
			end, err := perfdata.ScanPipe(bytes.NewReader(data[:cut]), file)
			if err != nil {
				t.Fatal(err)
			}
			out, msgs, err := fold(t, collapse.Options{}, func(f *Folder) { f.Perf = perf }, func(f *Folder) collapse.Input { return f.Data(open(t, file), "x") })
			if err != nil {
				t.Fatal(err)
			}
			if n := int64(len(roots(t, out))); n != end.Samples || n == 0 {
				t.Errorf("%d samples folded, %d complete in the file", n, end.Samples)
			}
			said := strings.Contains(msgs, fmt.Sprintf("cut.data: cut short: the last %d bytes hold no complete record; the %d complete samples before them are read", int64(cut)-end.Complete, end.Samples))
			if said != end.Cut() {
				t.Errorf("cut inside a record: %v; messages:\n%s", end.Cut(), msgs)
			}
		})
	}
}

// TestRefusedFileSaid: a real node capture whose perf map the profiled
// process made a FIFO is read without hanging, and stderr says, once,
// that the map was skipped and why (issue 34).
func TestRefusedFileSaid(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "perf-24697.map"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := symbols.NewResolver(symbols.Options{BuildIDDir: dir, DebugDir: dir, Kallsyms: filepath.Join(dir, "none"),
		KernelNotes: filepath.Join(dir, "none"), PerfMapDir: dir, Proc: filepath.Join(dir, "noproc")})
	data := "../../perf/perfdata/testdata/node.data.gz"
	_, msgs, err := fold(t, collapse.Options{}, func(f *Folder) { f.Resolver = r }, func(f *Folder) collapse.Input { return f.Data(open(t, data), "x") })
	if err != nil {
		t.Fatal(err)
	}
	want := "perf map " + filepath.Join(dir, "perf-24697.map") + ": skipped: not a regular file (a FIFO)"
	if n := strings.Count(msgs, want); n != 1 {
		t.Errorf("%q said %d times, want once:\n%s", want, n, msgs)
	}
}

// foldText is the folded text stackcollapse writes for the perf capture
// in (Folder.Run, the default resolver), and the fold's messages.
func foldText(t *testing.T, in *source.Input, o Options) (string, []string) {
	t.Helper()
	var msgs []string
	f := &Folder{Driver: collapse.Driver{Options: o.Collapse, Warnf: func(format string, args ...any) {
		msgs = append(msgs, fmt.Sprintf(format, args...))
	}}, Perf: o.Perf}
	input := f.Data(in, SourceName(in))
	if in.Kind == source.PerfScript {
		input = f.Text(in.Display, SourceName(in), in.Open)
	}
	var buf bytes.Buffer
	if _, err := f.Run(&buf, []collapse.Input{input}); err != nil {
		t.Fatal(err)
	}
	return buf.String(), msgs
}

// scanText is what Scan gives of in, each record written as a folded
// line, and its messages.
func scanLines(t *testing.T, in *source.Input, o Options) (string, Scanned, []string) {
	t.Helper()
	var msgs []string
	o.Warnf = func(format string, args ...any) { msgs = append(msgs, fmt.Sprintf(format, args...)) }
	var out []byte
	sc, err := Scan(in, o, ScanOptions{}, func(rec *folded.Record, _ int, _ []byte) error {
		out = folded.AppendRecord(out, rec)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return string(out), sc, msgs
}

// TestScan: Scan gives the records of the text a Folder writes, and a
// reading stopped early stops the folding without its messages.
func TestScan(t *testing.T) {
	data := "../../perf/perfdata/testdata/syswide.data.gz"
	o := Options{Collapse: collapse.Options{NoTime: true}}
	text, wantMsgs := foldText(t, open(t, data), o)
	var want []byte
	rd := folded.NewReader(strings.NewReader(text), data)
	rd.Lenient = true
	for rd.Next() {
		want = folded.AppendRecord(want, rd.Record())
	}
	got, sc, msgs := scanLines(t, open(t, data), o)
	if got != string(want) || len(sc.Metas) != len(rd.Meta()) || strings.Join(msgs, "\n") != strings.Join(wantMsgs, "\n") {
		t.Errorf("Scan differs from the Folder's text: %d and %d bytes, %d and %d metadata lines, messages %q and %q", len(got), len(want), len(sc.Metas), len(rd.Meta()), msgs, wantMsgs)
	}
	msgs = nil
	n := 0
	o.Warnf = func(format string, args ...any) { msgs = append(msgs, fmt.Sprintf(format, args...)) }
	if _, err := Scan(open(t, data), o, ScanOptions{}, func(*folded.Record, int, []byte) error {
		if n++; n == 3 {
			return ErrStop
		}
		return nil
	}); err != nil || n != 3 {
		t.Errorf("stopped: %v after %d records", err, n)
	}
	if len(msgs) != 0 {
		t.Errorf("messages of a fold stopped early: %q", msgs)
	}
}

// TestScanKinds: Scan reads every kind of input: folded stacks as they
// are, the others folded, binary data of no known kind an error.
func TestScanKinds(t *testing.T) {
	dir := t.TempDir()
	elf := filepath.Join(dir, "a.out")
	os.WriteFile(elf, append([]byte("\x7fELF\x02\x01\x01\x00"), bytes.Repeat([]byte{0, 1, 2, 3}, 100)...), 0o644)
	tests := []struct {
		path  string
		kind  source.Kind
		timed bool // timed records, else classic
	}{
		{"../../../testdata/perf/burst.txt.gz", source.PerfScript, true},
		{"../../perf/perfdata/testdata/syswide.data.gz", source.PerfData, true},
		{"../../source/testdata/cpu.pprof", source.Pprof, false},
		{"../../../testdata/bpf/bpftrace-profile.txt.gz", source.Bpftrace, false},
		{"../../../testdata/bpf/bcc-profile.txt.gz", source.Folded, false},
	}
	for _, tt := range tests {
		in := open(t, tt.path)
		if in.Kind != tt.kind {
			t.Fatalf("%s: %v, want %v", tt.path, in.Kind, tt.kind)
		}
		n, timed := 0, 0
		_, err := Scan(in, Options{}, ScanOptions{}, func(rec *folded.Record, _ int, _ []byte) error {
			n++
			if rec.Kind == folded.Timed {
				timed++
			}
			return nil
		})
		if err != nil && !strings.Contains(err.Error(), "another host") {
			t.Fatalf("%s: %v", tt.path, err)
		}
		if err == nil && (n == 0 || (timed == n) != tt.timed) {
			t.Errorf("%s: %d records, %d timed", tt.path, n, timed)
		}
	}
	if _, err := Scan(open(t, elf), Options{}, ScanOptions{}, func(*folded.Record, int, []byte) error { return nil }); !errors.Is(err, source.ErrUnknown) {
		t.Errorf("ELF: %v", err)
	}
	var got []byte
	Scan(open(t, "../../../testdata/bpf/bcc-profile.txt.gz"), Options{}, ScanOptions{}, func(_ *folded.Record, _ int, text []byte) error {
		got = append(append(got, text...), '\n')
		return nil
	})
	want, _ := golden.Read("../../../testdata/bpf/bcc-profile.txt.gz")
	if !bytes.Equal(got, want) {
		t.Error("folded input is not read as it is")
	}
}

var capturedOn = regexp.MustCompile(` captured-on="[^"]*"`)

// TestDataCutDoesNotMatter: a perf.data file folded by two workers in
// chunks of a few samples gives what one worker gives on one chunk, timed
// and classic, with and without the off-CPU stage.
func TestDataCutDoesNotMatter(t *testing.T) {
	for _, data := range []string{"../../perf/perfdata/testdata/syswide.data.gz", "../../perf/perfdata/testdata/sched.data.gz", "../../perf/perfdata/testdata/switch.data.gz"} {
		if _, err := os.Stat(data); err != nil {
			continue
		}
		for _, opt := range []collapse.Options{{}, {NoTime: true, PID: true}, {OffCPU: true}, {HotCold: true, NoTime: true}} {
			fold1 := func(workers, size int) string {
				defer func(n int) { chunkSamples = n }(chunkSamples)
				chunkSamples = size
				out, _, err := fold(t, opt, func(f *Folder) { f.Workers = workers }, func(f *Folder) collapse.Input { return f.Data(open(t, data), data) })
				if err != nil && !strings.Contains(err.Error(), "--off-cpu needs") {
					t.Fatal(err)
				}
				// The gunzipped copy's time is the "captured on".
				return capturedOn.ReplaceAllString(out, "")
			}
			want := fold1(1, 1<<30)
			if want == "" {
				t.Fatalf("%s %+v: no output", data, opt)
			}
			for _, size := range []int{1, 7, 100} {
				if got := fold1(2, size); got != want {
					t.Errorf("%s %+v: chunks of %d samples differ from one chunk:\n%.600s\nwant:\n%.600s", data, opt, size, got, want)
				}
			}
		}
	}
}
