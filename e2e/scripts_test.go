package e2e

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Tests of scripts/: the batch Makefile, the time-travel recorder (with the
// perf stand-in everywhere, with the real perf when there is one and we are
// root) and the benchmark.

func script(name string) string { return filepath.Join(root, "scripts", name) }

// TestFlamegraphsMk: make -f scripts/flamegraphs.mk -j2 DIR=caps SLICE=10s HEATMAP=1
func TestFlamegraphsMk(t *testing.T) {
	need(t)
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not installed")
	}
	dir := t.TempDir()
	caps := filepath.Join(dir, "caps")
	if err := os.Mkdir(caps, 0o755); err != nil {
		t.Fatal(err)
	}
	// A timed .folded.gz as perf-timetravel --convert writes it, a .data
	// (the perf stand-in prints the text it points to), and a classic
	// .folded.gz, which gets no slices.
	ok(t, dir, "perf script | stackcollapse | gzip > caps/burst.folded.gz", fakePerf(capture("burst")))
	link(t, travelWindow(t), filepath.Join(caps, "travel.data"))
	ok(t, dir, "perf script | stackcollapse --no-time | gzip > caps/before.folded.gz", fakePerf(capture("before")))

	cmd := "make -f " + script("flamegraphs.mk") + " -j2 DIR=caps SLICE=10s HEATMAP=1"
	ok(t, dir, cmd)
	for _, name := range []string{"burst.svg", "travel.svg", "before.svg", "burst.heatmap.svg", "travel.heatmap.svg", "travel.folded.gz"} {
		if _, err := os.Stat(filepath.Join(caps, name)); err != nil {
			t.Errorf("%s did not make %s", cmd, name)
		}
	}
	for _, name := range []string{"before.heatmap.svg", "before.slice-0000s.svg"} {
		if _, err := os.Stat(filepath.Join(caps, name)); err == nil {
			t.Errorf("%s made %s from classic (untimed) stacks", cmd, name)
		}
	}

	tests := []struct {
		name   string
		slices int // the captures span 30 s and 120 s
		burst  []string
	}{
		{"burst", 3, []string{"0010"}},           // burst 13.8 s to 15.8 s in
		{"travel", 12, []string{"0060", "0070"}}, // burst 69.7 s to 71.7 s in
	}
	for _, tt := range tests {
		whole := svgFile(t, filepath.Join(caps, tt.name+".svg"))
		parseSVG(t, readFile(t, filepath.Join(caps, tt.name+".heatmap.svg")))
		got, _ := filepath.Glob(filepath.Join(caps, tt.name+".slice-*s.svg"))
		sort.Strings(got)
		if len(got) != tt.slices {
			t.Errorf("%s: %d slices, want %d: %v", tt.name, len(got), tt.slices, got)
		}
		var sum float64
		for _, path := range got {
			s := svgFile(t, path)
			sum += s.total()
			offset := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(path), tt.name+".slice-"), "s.svg")
			wantBurst := false
			for _, b := range tt.burst {
				wantBurst = wantBurst || b == offset
			}
			if has := len(s.find("flamekit_burst")) > 0; has != wantBurst {
				t.Errorf("%s: flamekit_burst in the slice: %v, want %v", filepath.Base(path), has, wantBurst)
			}
		}
		if sum != whole.total() {
			t.Errorf("%s: the slices hold %.0f samples, the whole capture %.0f", tt.name, sum, whole.total())
		}
	}

	// Nothing to do the second time; clean removes the outputs.
	r := ok(t, dir, cmd)
	if !strings.Contains(string(r.stdout), "Nothing to be done") {
		t.Errorf("second run did work:\n%s", r.stdout)
	}
	ok(t, dir, "make -f "+script("flamegraphs.mk")+" DIR=caps SLICE=10s HEATMAP=1 clean")
	left, _ := filepath.Glob(filepath.Join(caps, "*.svg"))
	if len(left) != 0 {
		t.Errorf("clean left %v", left)
	}

	// A bad slice length is refused before any work.
	r = sh(t, dir, "make -f "+script("flamegraphs.mk")+" DIR=caps SLICE=1.5s")
	if r.code == 0 || !strings.Contains(string(r.stderr), "SLICE=1.5s") {
		t.Errorf("SLICE=1.5s accepted:\n%s", r)
	}
}

// ledgerName is the file where perf-timetravel --push records the windows
// sent.
const ledgerName = ".perf-timetravel-pushed"

var windowName = regexp.MustCompile(`^perf-[A-Za-z0-9_-]+-[0-9]{8}-[0-9]{6}-([0-9]+)s\.(data|folded\.gz)$`)

// windows lists the files of dir, and fails on leftovers of unfinished
// windows or names the recorder should not write.
func windows(t *testing.T, dir string) (data, folded []string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		m := windowName.FindStringSubmatch(e.Name())
		switch {
		case e.Name() == ledgerName: // what --push sent
		case m == nil:
			t.Errorf("unexpected file %s in the recorder's directory", e.Name())
		case m[2] == "data":
			data = append(data, e.Name())
		default:
			folded = append(folded, e.Name())
		}
	}
	return data, folded
}

// TestPerfTimetravelOptions: --help explains every knob; bad options exit 2.
func TestPerfTimetravelOptions(t *testing.T) {
	dir := t.TempDir()
	r := ok(t, dir, script("perf-timetravel")+" --help")
	for _, knob := range []string{"--dir", "--freq", "--window", "--duration", "--windows", "--max-bytes",
		"--max-age", "--min-free", "--convert", "--drop-data", "--stackcollapse", "--no-marker", "--quiet",
		"/dev/kmsg", "SIGTERM", "perf-HOST-YYYYmmdd-HHMMSS-120s.data", "Exit status",
		"--push", "--push-format", "--push-backoff", ".perf-timetravel-pushed"} {
		if !strings.Contains(string(r.stdout), knob) {
			t.Errorf("--help does not explain %s", knob)
		}
	}
	for _, bad := range []string{"--window 2x", "--freq 0", "--max-bytes lots", "--bogus", "--drop-data", "--window",
		"--push http://x --push-format json", "--push http://x --push-backoff 0", "--push http://x --label host=a"} {
		r := sh(t, dir, script("perf-timetravel")+" "+bad)
		if r.code != 2 || !strings.Contains(string(r.stderr), "--help") {
			t.Errorf("perf-timetravel %s: exit status %d, want 2 and a pointer to --help:\n%s", bad, r.code, r.stderr)
		}
	}
}

// TestPerfTimetravelStandIn runs the recorder with the perf stand-in, so
// that its loop, names, conversion and disk guards are tested without perf
// or root.
func TestPerfTimetravelStandIn(t *testing.T) {
	need(t, "stackcollapse", "timeslice")
	rec := script("perf-timetravel")

	t.Run("windows and conversion", func(t *testing.T) {
		dir := t.TempDir()
		r := ok(t, dir, rec+" -o tt -w 1 -n 3 --convert --no-marker")
		data, folded := windows(t, filepath.Join(dir, "tt"))
		if len(data) != 3 || len(folded) != 3 {
			t.Fatalf("%d .data and %d .folded.gz, want 3 of each:\n%s", len(data), len(folded), r.stderr)
		}
		for _, name := range data {
			if m := windowName.FindStringSubmatch(name); m[1] != "1" {
				t.Errorf("%s: window length %ss in the name, want 1s", name, m[1])
			}
		}
		// The converted windows are timed folded stacks timeslice reads,
		// made by stackcollapse from the perf.data itself (a real one,
		// see testdata/bin/perf): the burst process spins from about
		// 0.3 s to 1.1 s. Its name comes from the capture, whatever
		// symbols this machine has.
		ok(t, dir, "timeslice --at 0.7s±0.3 tt/"+folded[0]+" > slice.folded")
		if !strings.Contains(string(readFile(t, filepath.Join(dir, "slice.folded"))), "flamekit_burst;") {
			t.Error("the converted window does not hold the capture's stacks")
		}
	})

	t.Run("drop data", func(t *testing.T) {
		dir := t.TempDir()
		ok(t, dir, rec+" -o tt -w 1 -n 2 --convert --drop-data --no-marker")
		data, folded := windows(t, filepath.Join(dir, "tt"))
		if len(data) != 0 || len(folded) != 2 {
			t.Errorf("--drop-data left %v and %v, want 2 .folded.gz only", data, folded)
		}
	})

	t.Run("byte budget", func(t *testing.T) {
		dir := t.TempDir()
		// Windows of 100,000 bytes, a budget of 250 KiB: two fit.
		r := ok(t, dir, rec+" -o tt -w 1 -n 5 -b 250K --min-free 0 --no-marker", "FLAMEKIT_FAKE_PERF_RECORD_BYTES=100000")
		data, _ := windows(t, filepath.Join(dir, "tt"))
		if len(data) != 2 {
			t.Errorf("%d windows left, want the newest 2:\n%s", len(data), r.stderr)
		}
		if n := strings.Count(string(r.stderr), "deleting"); n != 3 {
			t.Errorf("%d windows reported deleted, want 3:\n%s", n, r.stderr)
		}
	})

	t.Run("max age", func(t *testing.T) {
		dir := t.TempDir()
		tt := filepath.Join(dir, "tt")
		ok(t, dir, rec+" -o tt -w 1 -n 1 --no-marker")
		old, _ := windows(t, tt)
		past := time.Now().Add(-3 * time.Hour)
		for _, name := range old {
			if err := os.Chtimes(filepath.Join(tt, name), past, past); err != nil {
				t.Fatal(err)
			}
		}
		ok(t, dir, rec+" -o tt -w 1 -n 2 -a 2h --no-marker")
		data, _ := windows(t, tt)
		for _, name := range data {
			if name == old[0] {
				t.Errorf("the 3-hour-old window %s survived -a 2h", name)
			}
		}
		if len(data) != 2 {
			t.Errorf("%d windows, want the 2 new ones", len(data))
		}
	})

	t.Run("free space floor", func(t *testing.T) {
		dir := t.TempDir()
		r := sh(t, dir, rec+" -o tt -w 1 --min-free 1000000T --no-marker")
		if r.code != 3 || !strings.Contains(string(r.stderr), "below --min-free") {
			t.Errorf("want exit status 3 and a message about --min-free:\n%s", r)
		}
		if data, _ := windows(t, filepath.Join(dir, "tt")); len(data) != 0 {
			t.Errorf("recorded %v below the floor", data)
		}
	})

	t.Run("free space falls during a window", func(t *testing.T) {
		if os.Geteuid() != 0 {
			t.Skip("not root: needs a small tmpfs to fill")
		}
		dir := t.TempDir()
		if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=50m", "tmpfs", dir).CombinedOutput(); err != nil {
			t.Skipf("cannot mount a tmpfs: %v %s", err, out)
		}
		defer exec.Command("umount", dir).Run()
		tt := filepath.Join(dir, "tt")
		cmd := exec.Command(rec, "-o", tt, "-w", "60", "-f", "30M", "--no-marker")
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		waitFor(t, filepath.Join(tt, ".perf-*.partial"))
		if err := os.WriteFile(filepath.Join(dir, "fill"), make([]byte, 25<<20), 0o644); err != nil {
			t.Fatal(err)
		}
		err := cmd.Wait() // the recorder checks free space every 5 s
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 3 || !strings.Contains(stderr.String(), "below --min-free") {
			t.Errorf("want exit status 3 and a message about --min-free; got %v:\n%s", err, stderr.String())
		}
		if data, _ := windows(t, tt); len(data) != 1 {
			t.Errorf("want the window that was under way, ended early; got %v", data)
		}
	})

	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run("stopped by "+sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			tt := filepath.Join(dir, "tt")
			cmd := exec.Command(rec, "-o", tt, "-w", "60", "--no-marker", "--convert")
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			waitFor(t, filepath.Join(tt, ".perf-*.partial"))
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			if err := cmd.Wait(); err != nil {
				t.Fatalf("after %v: %v\n%s", sig, err, stderr.String())
			}
			data, folded := windows(t, tt)
			if len(data) != 1 || len(folded) != 1 {
				t.Errorf("after %v: %v and %v, want the shortened window and its conversion\n%s", sig, data, folded, stderr.String())
			}
		})
	}
}

// waitFor waits (up to a minute) for a file matching pattern, here for
// perf to have started a window.
func waitFor(t *testing.T, pattern string) {
	t.Helper()
	for i := 0; i < 600; i++ {
		if p, _ := filepath.Glob(pattern); len(p) > 0 {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("no %s after a minute", pattern)
}

// TestPerfTimetravelRealPerf records two 2 s windows with the real perf,
// converts them, and slices them. It needs perf and root.
func TestPerfTimetravelRealPerf(t *testing.T) {
	if realPerf == "" {
		t.Skip("perf is not installed: the recorder is tested with the perf stand-in only")
	}
	if os.Geteuid() != 0 {
		t.Skip("not root: perf record -a and the /dev/kmsg markers need root; the recorder is tested with the perf stand-in only")
	}
	need(t, "stackcollapse", "timeslice", "flamegraph")
	dir := t.TempDir()
	tt := filepath.Join(dir, "tt")
	// The real perf first on PATH, then the commands under test.
	path := "PATH=" + filepath.Dir(realPerf) + string(os.PathListSeparator) + binDir + string(os.PathListSeparator) + basePath
	r := ok(t, dir, script("perf-timetravel")+" -o tt -w 2 -n 2 --convert", path)
	data, folded := windows(t, tt)
	if len(data) != 2 || len(folded) != 2 {
		t.Fatalf("%v and %v, want 2 windows, each converted:\n%s", data, folded, r.stderr)
	}
	// Each window starts with a marker in the kernel log, carrying the wall
	// clock time.
	r = ok(t, dir, "dmesg", path)
	for _, name := range data {
		re := regexp.MustCompile(`\] perf-timetravel: window ` + regexp.QuoteMeta(name) + ` starts wall=[0-9]+\.[0-9]{9} \([0-9-]+T[0-9:.]+Z\)`)
		if !re.Match(r.stdout) {
			t.Errorf("no dmesg marker for %s", name)
		}
	}
	// The windows are timed folded stacks with perf's header facts; a slice
	// across both files draws.
	ok(t, dir, "timeslice tt/*.folded.gz | flamegraph > all.svg", path)
	s := svgFile(t, filepath.Join(dir, "all.svg"))
	if s.total() == 0 {
		t.Error("no samples in two windows of perf record -a")
	}
	// The second window's marker: written at the switch, with samples on
	// both sides (the first one's is written before perf starts).
	meta := ok(t, dir, "zcat tt/"+folded[1]+" | awk '/^# flamekit v1 timed/ && !n++'", path)
	for _, key := range []string{`first="`, `cmdline="`, `ref-wall="`, `ref-perf="`} {
		if !strings.Contains(string(meta.stdout), key) {
			t.Errorf("converted window lacks %s…: %s", key, meta.stdout)
		}
	}
	// The marker's times make a wall-clock window exact: it is placed with
	// the reference, not estimated from "captured on".
	m := regexp.MustCompile(`ref-wall="([^"]+)"`).FindSubmatch(meta.stdout)
	if m != nil {
		r := ok(t, dir, "timeslice --at "+string(m[1])+"±1 tt/*.folded.gz > /dev/null", path)
		if strings.Contains(string(r.stderr), "estimated") || !strings.Contains(string(r.stderr), "exact: clock reference") {
			t.Errorf("a wall-clock window of converted windows is not exact:\n%s", r.stderr)
		}
	}
}
