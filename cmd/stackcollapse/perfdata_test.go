package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"flamekit/internal/testkit/golden"
)

// TestPerfDataParity is issue 13's differential test: for every real
// perf.data capture committed with the reader (system-wide, C++, Go, Rust,
// Java and Node with perf maps, perf record -z, mixed events, tracepoints,
// -k mono, --call-graph dwarf unwound in Go, compared with perf script
// --no-inline), the output
// of stackcollapse FILE.data equals that of perf script --header -i FILE |
// stackcollapse, line for line, timed and classic, with every flag. Both
// use this machine's symbols, so it runs wherever perf does.
func TestPerfDataParity(t *testing.T) {
	perf, err := exec.LookPath("perf")
	if err != nil {
		t.Skip("perf is not installed: the differential test needs perf script as the reference")
	}
	captures, _ := filepath.Glob("../../pkg/perf/perfdata/testdata/*.data.gz")
	if len(captures) == 0 {
		t.Fatal("no perf.data captures in pkg/perf/perfdata/testdata")
	}
	// Every flag of stackcollapse-perf.pl, in groups: the rules behind
	// them are shared by both paths and tested one by one on perf script
	// text (pkg/perf/perfscript); here what matters is that the samples are
	// the same.
	flagSets := [][]string{{}, {"--tid", "--all", "--addrs"}, {"--pid", "--kernel", "--no-idle"}, {"--jit"}}
	extra := map[string][][]string{
		"mixed":       {{"--event-filter", "page-faults"}},
		"sched":       {{"--off-cpu"}, {"--off-cpu", "--states", "all", "--clip-open"}},
		"tracepoints": {{"--event-filter", "sched_switch"}},
	}
	source := regexp.MustCompile(` source="[^"]*"`)
	pidField := regexp.MustCompile(` pid=-?[0-9]+`)
	dir := t.TempDir()
	for _, gz := range captures {
		name := strings.TrimSuffix(filepath.Base(gz), ".data.gz")
		if name == "pipe" {
			continue // pipe mode: perf script reads it from standard input only
		}
		if name == "killed" {
			continue // perf script reads nothing of it: TestPerfDataDamaged
		}
		data, err := golden.Read(gz)
		if err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(dir, name+".data")
		if err := os.WriteFile(file, data, 0o600); err != nil {
			t.Fatal(err)
		}
		args := []string{"script", "--header", "-i", file}
		if strings.HasPrefix(name, "dw") {
			// --call-graph dwarf: perf script adds the inlined
			// functions addr2line finds to the frames it unwinds;
			// stackcollapse does not (yet), so the reference leaves
			// them out.
			args = append(args, "--no-inline")
		}
		text, err := exec.Command(perf, args...).Output()
		if err != nil {
			t.Fatalf("%s: perf script: %v", name, err)
		}
		for _, flags := range append(flagSets, extra[name]...) {
			for _, classic := range []bool{false, true} {
				args := flags
				if classic {
					args = append([]string{"--no-time"}, flags...)
				}
				cw, want, _ := run(t, text, args...)
				cg, got, errData := run(t, nil, append(args, file)...)
				w := source.ReplaceAllString(want, "")
				g := source.ReplaceAllString(got, "")
				if !strings.Contains(w, " pid=") {
					// perf.data holds every sample's pid, which
					// perf script's default fields do not print.
					g = pidField.ReplaceAllString(g, "")
				}
				if cw != cg || w != g {
					t.Errorf("%s %v: stackcollapse FILE.data (exit %d) differs from perf script | stackcollapse (exit %d):\n%s\nstderr: %s",
						name, args, cg, cw, golden.Diff([]byte(w), []byte(g)), errData)
				}
			}
		}
	}
}

// TestPerfDataDamaged checks what stackcollapse does with a perf.data file
// perf record did not finish: the samples it holds, one line on stderr
// naming the file and what was lost, exit status 0; exit status 1 when
// not one sample could be read.
func TestPerfDataDamaged(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	killed, err := golden.Read("../../pkg/perf/perfdata/testdata/killed.data.gz")
	if err != nil {
		t.Fatal(err)
	}
	cut, err := golden.Read("../../pkg/perf/perfdata/testdata/cut.data.gz")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		data    []byte
		exit    int
		samples int
		msg     string
	}{
		{"killed.data", killed, 0, 332, "killed.data: unfinished: perf record was killed before it finished the file, or is still writing it (data size 0 in its header); read to the end of the file: 332 samples; its feature sections were never written: build-ids from this machine's files, event names from their attributes; hostname, os release, perf version, command line, sample times unknown"},
		{"cut60.data", cut[:len(cut)*6/10], 0, 269, "cut60.data: cut short: the file holds 104,530 of the 169,176 bytes of its data section"},
		{"cut10.data", cut[:len(cut)/10], 1, 0, "cut10.data: cut short: the file holds 17,068 of the 169,176 bytes of its data section (a full disk, a copy cut off, a host that died); read to its last complete record: 0 samples; a partial last record (84 bytes) left out"},
	} {
		for _, flags := range [][]string{{}, {"--no-perf"}} {
			path := write(tc.name, tc.data)
			code, out, stderr := run(t, nil, append(flags, path)...)
			samples := 0
			for _, line := range strings.Split(out, "\n") {
				if line != "" && !strings.HasPrefix(line, "#") {
					samples++
				}
			}
			var lines []string
			for _, l := range strings.Split(strings.TrimSpace(stderr), "\n") {
				if strings.Contains(l, tc.name) {
					lines = append(lines, l)
				}
			}
			if code != tc.exit || samples != tc.samples || len(lines) != 1 || !strings.Contains(lines[0], tc.msg) {
				t.Errorf("%s %v: exit %d, %d samples, want exit %d, %d samples and one line with %q; stderr:\n%s",
					tc.name, flags, code, samples, tc.exit, tc.samples, tc.msg, stderr)
			}
		}
	}
}
