package e2e

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The pipelines of the project's developer guide, run literally on real
// captures. "perf script" is the stand-in from testdata/bin, printing the
// capture named by FLAMEKIT_FAKE_PERF_SCRIPT or by -i.

// TestPipelineFlamegraph: perf script | stackcollapse | flamegraph > out.svg
func TestPipelineFlamegraph(t *testing.T) {
	need(t, "stackcollapse", "flamegraph")
	dir := t.TempDir()
	env := fakePerf(capture("burst"))
	ok(t, dir, "perf script | stackcollapse | flamegraph > out.svg", env)
	s := svgFile(t, filepath.Join(dir, "out.svg"))
	for _, name := range []string{"flamekit_burst", "burst_spin", "swapper", "pv_native_safe_halt", "sleep"} {
		if len(s.find(name)) == 0 {
			t.Errorf("no frame %q in out.svg", name)
		}
	}
	// 2 s of spinning on both CPUs in a mostly idle 30 s capture: 12% of
	// the weight (cpu-clock periods, ns) with stackcollapse-perf.pl.
	perl := readGzip(t, filepath.Join(root, "testdata", "perf", "perl", "burst.collapsed-none.txt.gz"))
	if got, want := s.pct("burst_spin"), 100*sumCounts(t, perl, "", "burst_spin")/sumCounts(t, perl, ""); math.Abs(got-want) > 0.02 {
		t.Errorf("burst_spin is %.2f%% of the graph, stackcollapse-perf.pl's output says %.2f%%", got, want)
	}
	// The graph's total is the sum of the folded counts, the same as with
	// the Perl tool's output.
	r := ok(t, dir, "perf script | stackcollapse --no-time", env)
	if got, want := s.total(), sumCounts(t, r.stdout, ""); got != want {
		t.Errorf("graph total %.0f, want the sum of the folded counts %.0f", got, want)
	}
	if got, want := s.total(), sumCounts(t, perl, ""); got != want {
		t.Errorf("graph total %.0f, want %.0f as with stackcollapse-perf.pl", got, want)
	}
}

// TestPipelineTimeslice: perf script | stackcollapse | timeslice --at 70s±2.5 | flamegraph > out.svg
// on a two-minute window recorded by perf-timetravel with a 2 s burst about
// 70 s in.
func TestPipelineTimeslice(t *testing.T) {
	need(t, "stackcollapse", "timeslice", "flamegraph")
	env := fakePerf(travelWindow(t))
	tests := []struct {
		name   string
		window string
		burst  bool
	}{
		{"around the burst", "--at 70s±2.5", true},
		{"around the burst without idle", "--at 70s±2.5 --no-idle", true},
		{"ascii spelling", "--at 70s+-2.5", true},
		{"from to", "--from 67.5s --to 72.5s", true},
		{"quiet minute", "--at 30s±2.5", false},
		{"after the burst", "--from 90s --to 100s", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			cmd := "perf script | stackcollapse | timeslice " + tt.window + " | flamegraph > out.svg"
			r := ok(t, dir, cmd, env)
			if !bytes.Contains(r.stderr, []byte("samples in the window")) {
				t.Errorf("timeslice did not report the window on stderr:\n%s", r.stderr)
			}
			s := svgFile(t, filepath.Join(dir, "out.svg"))
			p := s.pct("burst_spin")
			// A 2 s spin on both CPUs of a quiet machine, in a 5 s window:
			// 57% of the weight with the idle CPUs, all of it without.
			want := 45.0
			if strings.Contains(tt.window, "--no-idle") {
				want = 95
			}
			if tt.burst && p < want {
				t.Errorf("burst_spin is %.2f%% of the slice, want at least %.0f%%", p, want)
			}
			if !tt.burst && len(s.find("flamekit_burst")) > 0 {
				t.Errorf("flamekit_burst is in a slice away from the burst (%.2f%%)", p)
			}
		})
	}
}

// TestPipelineDmesgTime pastes the dmesg time of the burst's marker into
// timeslice --at @TIME, as the README tells users to.
func TestPipelineDmesgTime(t *testing.T) {
	need(t, "stackcollapse", "timeslice", "flamegraph")
	tests := []struct {
		name, capture, dmesg, marker string
	}{
		{"burst", capture("burst"), filepath.Join(root, "testdata", "perf", "burst.dmesg.txt"), "FLAMEKIT burst starts"},
		{"travel", travelWindow(t), travel("dmesg.txt"), "flamekit_burst: 2 s spin"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			at := dmesgTime(t, tt.dmesg, tt.marker) + 1 // the middle of the 2 s burst
			cmd := fmt.Sprintf("perf script | stackcollapse | timeslice --at @%.3f±0.8 | flamegraph > burst.svg", at)
			ok(t, dir, cmd, fakePerf(tt.capture), "FLAMEKIT_FAKE_DMESG="+tt.dmesg)
			s := svgFile(t, filepath.Join(dir, "burst.svg"))
			if p := s.pct("burst_spin"); p < 90 {
				t.Errorf("burst_spin is %.2f%% of the 1.6 s around the dmesg time, want most of it", p)
			}
		})
	}
}

var dmesgRE = regexp.MustCompile(`^\[\s*([0-9]+\.[0-9]+)\]\s*(.*)$`)

// dmesgTime is the time of the first dmesg line containing marker.
func dmesgTime(t *testing.T, path, marker string) float64 {
	t.Helper()
	for _, line := range strings.Split(string(readFile(t, path)), "\n") {
		if m := dmesgRE.FindStringSubmatch(line); m != nil && strings.Contains(m[2], marker) {
			v, err := strconv.ParseFloat(m[1], 64)
			if err != nil {
				t.Fatal(err)
			}
			return v
		}
	}
	t.Fatalf("no %q line in %s", marker, path)
	return 0
}

// TestPipelineSliceSum: consecutive slices add up to the whole capture.
func TestPipelineSliceSum(t *testing.T) {
	need(t, "stackcollapse", "timeslice")
	dir := t.TempDir()
	link(t, capture("burst"), filepath.Join(dir, "perf.data"))
	ok(t, dir, "perf script | stackcollapse > all.folded")
	whole := sumCounts(t, ok(t, dir, "timeslice all.folded").stdout, "")
	var parts float64
	for _, w := range []string{"--to 10s", "--from 10s --to 14.8s", "--from 14.8s --to 20s", "--from 20s"} {
		parts += sumCounts(t, ok(t, dir, "timeslice "+w+" all.folded").stdout, "")
	}
	if parts != whole || whole == 0 {
		t.Errorf("slices add up to %.0f, the whole capture is %.0f", parts, whole)
	}
}

// TestPipelineDiff: difffolded before.folded after.folded | flamegraph > diff.svg
// on two captures of a program whose compute() takes twice as long after.
func TestPipelineDiff(t *testing.T) {
	need(t, "stackcollapse", "difffolded", "flamegraph")
	dir := t.TempDir()
	link(t, capture("before"), filepath.Join(dir, "before.data"))
	link(t, capture("after"), filepath.Join(dir, "after.data"))
	ok(t, dir, "perf script -i before.data | stackcollapse > before.folded")
	ok(t, dir, "perf script -i after.data | stackcollapse > after.folded")
	ok(t, dir, "difffolded before.folded after.folded | flamegraph > diff.svg")
	s := svgFile(t, filepath.Join(dir, "diff.svg"))
	want := map[string]string{"compute": "grew", "parse": "shrank", "render": "shrank"}
	for fn, change := range want {
		parents := s.find(fn)
		if len(parents) != 1 {
			t.Fatalf("%d frames %q in diff.svg, want 1", len(parents), fn)
		}
		var spin *frame
		for _, f := range s.find("spin") {
			if f.calledBy(parents[0]) {
				spin = &f
				break
			}
		}
		if spin == nil {
			t.Fatalf("no frame spin above %s in diff.svg", fn)
		}
		switch change {
		case "grew":
			if !strings.HasPrefix(spin.fill, "rgb(255,") || spin.fill == "rgb(255,255,255)" || !strings.HasPrefix(spin.delta, "+") {
				t.Errorf("%s;spin grew, want red and a + delta; got fill %s, delta %q", fn, spin.fill, spin.delta)
			}
		case "shrank":
			if !strings.HasSuffix(spin.fill, ",255)") || spin.fill == "rgb(255,255,255)" || !strings.HasPrefix(spin.delta, "-") {
				t.Errorf("%s;spin shrank, want blue and a - delta; got fill %s, delta %q", fn, spin.fill, spin.delta)
			}
		}
	}
	// --negate swaps the colours.
	ok(t, dir, "difffolded before.folded after.folded | flamegraph --negate > negated.svg")
	n := svgFile(t, filepath.Join(dir, "negated.svg"))
	for _, f := range n.find("spin") {
		if f.calledBy(n.find("compute")[0]) && !strings.HasSuffix(f.fill, ",255)") {
			t.Errorf("--negate: compute;spin is %s, want blue", f.fill)
		}
	}
}

// TestPipelineGrepIdle: grep -v cpu_idle out.folded | flamegraph > out.svg
func TestPipelineGrepIdle(t *testing.T) {
	need(t, "stackcollapse", "flamegraph")
	dir := t.TempDir()
	link(t, capture("burst"), filepath.Join(dir, "perf.data"))
	ok(t, dir, "perf script | stackcollapse > out.folded")
	folded := readFile(t, filepath.Join(dir, "out.folded"))

	// On this capture's kernel the idle loop is pv_native_safe_halt, so
	// FlameGraph's documented "grep -v cpu_idle" keeps every line; the
	// graph must count exactly the lines grep lets through.
	ok(t, dir, "grep -v cpu_idle out.folded | flamegraph > out.svg")
	s := svgFile(t, filepath.Join(dir, "out.svg"))
	if s.hasSubstring("cpu_idle") {
		t.Error("a frame containing cpu_idle survived grep -v cpu_idle")
	}
	if got, want := s.total(), sumCounts(t, folded, "cpu_idle"); got != want {
		t.Errorf("graph total %.0f, want %.0f (the lines without cpu_idle)", got, want)
	}

	// The same with this kernel's idle function removes the idle CPUs.
	ok(t, dir, "grep -v pv_native_safe_halt out.folded | flamegraph > busy.svg")
	b := svgFile(t, filepath.Join(dir, "busy.svg"))
	if b.hasSubstring("pv_native_safe_halt") {
		t.Error("a frame containing pv_native_safe_halt survived grep -v")
	}
	if got, want := b.total(), sumCounts(t, folded, "pv_native_safe_halt"); got != want {
		t.Errorf("graph total %.0f, want %.0f (the lines without pv_native_safe_halt)", got, want)
	}
	if b.pct("burst_spin") < 2*s.pct("burst_spin") {
		t.Errorf("without idle, burst_spin is %.2f%%, with idle %.2f%%: want it much wider", b.pct("burst_spin"), s.pct("burst_spin"))
	}
}

// sumCounts adds the counts of the folded lines (classic or timed) that do
// not contain skip (when skip is not empty) and, when only is given, that
// do contain only.
func sumCounts(t *testing.T, folded []byte, skip string, only ...string) float64 {
	t.Helper()
	var sum float64
	sc := bufio.NewScanner(bytes.NewReader(folded))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") || (skip != "" && strings.Contains(line, skip)) {
			continue
		}
		if len(only) > 0 && !strings.Contains(line, only[0]) {
			continue
		}
		f := strings.Fields(line)
		for len(f) > 3 && strings.Contains(f[len(f)-1], "=") {
			f = f[:len(f)-1] // a timed line's cpu=, pid=, tid= fields
		}
		last := f[len(f)-1]
		if strings.HasPrefix(last, "@") && len(f) >= 3 {
			last = f[len(f)-2]
		}
		v, err := strconv.ParseFloat(last, 64)
		if err != nil {
			continue // flamegraph skips such lines too
		}
		sum += v
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return sum
}

// readGzip reads a gzipped file.
func readGzip(t testing.TB, path string) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(z)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// link makes a symbolic link newname -> oldname.
func link(t testing.TB, oldname, newname string) {
	t.Helper()
	if err := os.Symlink(oldname, newname); err != nil {
		t.Fatal(err)
	}
}
