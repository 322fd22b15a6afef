package e2e

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Tests of the recorder's windows (back to back, -t counting recorded
// time) and of what it does under faults: a full disk, SIGKILL of the
// recorder, perf killed, and the restart that recovers what they left.

// realPerfPath returns the PATH for the real perf first, then the commands
// under test, or skips the test without perf or root.
func realPerfPath(t *testing.T) string {
	t.Helper()
	if realPerf == "" {
		t.Skip("perf is not installed: the recorder is tested with the perf stand-in only")
	}
	if os.Geteuid() != 0 {
		t.Skip("not root: perf record -a and the /dev/kmsg markers need root; the recorder is tested with the perf stand-in only")
	}
	return "PATH=" + filepath.Dir(realPerf) + string(os.PathListSeparator) + binDir + string(os.PathListSeparator) + basePath
}

var atTime = regexp.MustCompile(` @([0-9]+\.[0-9]+)`)

// sampleTimes returns the times of the timed lines of a .folded.gz, sorted.
func sampleTimes(t *testing.T, path string) []float64 {
	t.Helper()
	var ts []float64
	for _, m := range atTime.FindAllSubmatch(readGzip(t, path), -1) {
		v, err := strconv.ParseFloat(string(m[1]), 64)
		if err != nil {
			t.Fatal(err)
		}
		ts = append(ts, v)
	}
	slices.Sort(ts)
	return ts
}

// maxGap returns the longest time between consecutive samples.
func maxGap(ts []float64) (gap, at float64) {
	for i := 1; i < len(ts); i++ {
		if d := ts[i] - ts[i-1]; d > gap {
			gap, at = d, ts[i-1]
		}
	}
	return gap, at
}

// TestPerfTimetravelBackToBack records three 2 s windows with the real perf
// and measures the time between the last sample of a window and the first
// of the next: under two sample periods (the recorder that stopped perf and
// started the next one lost about 1.2 s there). -t counts recorded time:
// -t 5 -w 2 records 2 s, 2 s and 1 s.
func TestPerfTimetravelBackToBack(t *testing.T) {
	path := realPerfPath(t)
	need(t, "stackcollapse")
	dir := t.TempDir()
	r := ok(t, dir, script("perf-timetravel")+" -o tt -w 2 -n 3 --convert --no-marker", path)
	data, folded := windows(t, filepath.Join(dir, "tt"))
	if len(data) != 3 || len(folded) != 3 {
		t.Fatalf("%v and %v, want 3 windows, each converted:\n%s", data, folded, r.stderr)
	}
	const freq = 97.0 // the recorder's default -F
	var inner float64
	for i := range folded {
		ts := sampleTimes(t, filepath.Join(dir, "tt", folded[i]))
		if len(ts) == 0 {
			t.Fatalf("%s holds no sample", folded[i])
		}
		g, _ := maxGap(ts)
		inner = max(inner, g)
		if i == 0 {
			continue
		}
		prev := sampleTimes(t, filepath.Join(dir, "tt", folded[i-1]))
		gap := ts[0] - prev[len(prev)-1]
		t.Logf("%s -> %s: %.1f ms from the last sample to the next window's first (%.2f sample periods)",
			folded[i-1], folded[i], gap*1e3, gap*freq)
		// perf reads each CPU's ring buffer in turn when it switches
		// output: a sample of one CPU may go to the next window though
		// another CPU's later one went to this one, so the windows may
		// overlap by part of a period (seen: -0.00 periods), never by one.
		if gap <= -1/freq || gap >= 2/freq {
			t.Errorf("gap between %s and %s: %.4f s, want above minus one and under two sample periods (%.4f s); the longest gap inside a window is %.4f s",
				folded[i-1], folded[i], gap, 2/freq, inner)
		}
	}

	// Nothing between the windows is drawn as not recorded.
	need(t, "timeslice")
	hm := ok(t, dir, "timeslice --heatmap=text tt/*.folded.gz", path)
	if bytes.Contains(hm.stdout, []byte("not recorded")) {
		t.Errorf("the heat map of back-to-back windows shows time not recorded:\n%s", hm.stdout)
	}

	dir = t.TempDir()
	r = ok(t, dir, script("perf-timetravel")+" -o tt -w 2 -t 5 --no-marker", path)
	data, _ = windows(t, filepath.Join(dir, "tt"))
	var lens []string
	for _, name := range data {
		lens = append(lens, windowName.FindStringSubmatch(name)[1])
	}
	if strings.Join(lens, ",") != "2,2,1" {
		t.Errorf("-t 5 -w 2 recorded windows of %v s, want 2, 2 and 1:\n%s", lens, r.stderr)
	}
}

// TestPerfTimetravelRealFaults: with the real perf, a full disk, perf
// killed after a switch, and the recorder killed, each followed by a
// restart that recovers what was left; and -k mono, whose windows keep
// perf's clock reference rather than the kernel-log marker's.
func TestPerfTimetravelRealFaults(t *testing.T) {
	path := realPerfPath(t)
	need(t, "stackcollapse")
	rec := script("perf-timetravel")

	t.Run("disk full", func(t *testing.T) {
		dir := t.TempDir()
		if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=512k", "tmpfs", dir).CombinedOutput(); err != nil {
			t.Skipf("cannot mount a tmpfs: %v %s", err, out)
		}
		defer exec.Command("umount", dir).Run()
		r := sh(t, dir, rec+" -o tt -w 60 -f 0 --no-marker", path)
		if r.code != 1 {
			t.Fatalf("want exit status 1 when the disk is full:\n%s", r)
		}
		// perf's own words are shown, not lost with the full directory.
		if !regexp.MustCompile(`perf record failed .*it said:\n\s+\S.*No space left on device`).Match(r.stderr) {
			t.Errorf("perf's message about the full disk is not shown:\n%s", r.stderr)
		}
		// What perf wrote is kept: perf finished the window (ENOSPC while it
		// starts), or left it unfinished (later).
		data, _ := filepath.Glob(filepath.Join(dir, "tt", "perf-*.data"))
		left, _ := filepath.Glob(filepath.Join(dir, "tt", ".perf-*.data.partial"))
		if len(data)+len(left) != 1 || len(left) == 1 && !strings.Contains(string(r.stderr), "recovers it") {
			t.Fatalf("want the window kept, as a window or as .perf-*.data.partial; got %v %v:\n%s", data, left, r.stderr)
		}
		// Room again: the restart names the unfinished window.
		if out, err := exec.Command("mount", "-o", "remount,size=64m", dir).CombinedOutput(); err != nil {
			t.Fatalf("remount: %v %s", err, out)
		}
		r = ok(t, dir, rec+" -o tt -w 1 -n 1 -f 0 --convert --no-marker", path)
		names, folded := windows(t, filepath.Join(dir, "tt"))
		if len(names) != 2 || len(folded) != 2 || len(left) == 1 && !strings.Contains(string(r.stderr), "recovered "+names[0]+" ") {
			t.Errorf("want the window of the full disk and a new one; got %v:\n%s", names, r.stderr)
		}
	})

	t.Run("perf killed after a switch", func(t *testing.T) {
		dir := t.TempDir()
		tt := filepath.Join(dir, "tt")
		cmd, stderr := startRecorder(t, path, rec, "-o", tt, "-w", "2", "--no-marker")
		waitFor(t, filepath.Join(tt, "perf-*.data")) // the first window is done
		time.Sleep(1500 * time.Millisecond)          // perf writes some of the second
		killPerf(t, cmd.Process.Pid)
		err := cmd.Wait()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.Contains(stderr.String(), "perf record failed (exit status 137, as when killed by SIGKILL)") {
			t.Fatalf("want exit status 1 and perf's end reported; got %v:\n%s", err, stderr)
		}
		r := ok(t, dir, rec+" -o tt -w 1 -n 1 --convert --no-marker", path)
		data, folded := windows(t, tt)
		// The first window was recorded without --convert; a run with
		// --convert converts it too (issue 34 item 9: every window an
		// earlier run left unconverted), as the recovered one and the
		// new one.
		if len(data) != 3 || len(folded) != 3 || strings.TrimSuffix(folded[1], ".folded.gz") != strings.TrimSuffix(data[1], ".data") {
			t.Fatalf("want the first window, the recovered one and a new one, all three converted; got %v %v:\n%s", data, folded, r.stderr)
		}
		if len(sampleTimes(t, filepath.Join(tt, folded[1]))) == 0 {
			t.Errorf("the recovered window %s holds no sample:\n%s", folded[1], r.stderr)
		}
		// perf starts a file after a switch with zeros where it writes the
		// header when it finishes the file: the recovered window has the
		// header of the first, and says it is unfinished (data size 0).
		first, got := readFile(t, filepath.Join(tt, data[0])), readFile(t, filepath.Join(tt, data[1]))
		off := binary.LittleEndian.Uint64(first[40:])
		if !strings.Contains(string(r.stderr), "header from "+data[0]) || len(got) <= int(off) ||
			!bytes.Equal(got[:48], first[:48]) || binary.LittleEndian.Uint64(got[48:]) != 0 {
			t.Errorf("%s: want the header of %s, data size 0, and records after it:\n%s", data[1], data[0], r.stderr)
		}
	})

	t.Run("recorder killed", func(t *testing.T) {
		dir := t.TempDir()
		tt := filepath.Join(dir, "tt")
		cmd, _ := startRecorder(t, path, rec, "-o", tt, "-w", "60", "--no-marker")
		waitFor(t, filepath.Join(tt, ".perf-*.partial"))
		time.Sleep(2 * time.Second)
		if err := cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		cmd.Wait()
		// perf sees its input close, finishes the window and exits.
		waitFor(t, filepath.Join(tt, ".perf-*.data.partial.[0-9]*"))
		r := ok(t, dir, rec+" -o tt -w 1 -n 1 --convert --no-marker", path)
		data, folded := windows(t, tt)
		if len(data) != 2 || len(folded) != 2 || !strings.Contains(string(r.stderr), "finished by perf after the recorder stopped") {
			t.Errorf("want the window of the killed recorder recovered and converted, and a new one; got %v %v:\n%s", data, folded, r.stderr)
		}
	})

	t.Run("clock reference of perf record -k", func(t *testing.T) {
		// A loaded machine can leave a one-second window without a
		// sample (perf starts late): try again, up to three times.
		var dir string
		var folded []string
		var meta []byte
		for try := 1; ; try++ {
			dir = t.TempDir()
			ok(t, dir, rec+" -o tt -w 1 -n 1 --convert -- -k mono", path)
			_, folded = windows(t, filepath.Join(dir, "tt"))
			if len(folded) != 1 {
				t.Fatalf("want one converted window, got %v", folded)
			}
			meta = readGzip(t, filepath.Join(dir, "tt", folded[0]))
			if i := bytes.IndexByte(meta, '\n'); i >= 0 {
				meta = meta[:i]
				break
			}
			if try == 3 {
				t.Fatalf("the converted window %s is empty three times in a row", folded[0])
			}
			t.Logf("try %d: the converted window is empty (no sample in the window); again", try)
		}
		marker := ok(t, dir, "dmesg | grep -F 'window "+strings.TrimSuffix(folded[0], ".folded.gz")+".data starts'", path)
		m := regexp.MustCompile(`^\[\s*([0-9.]+)\]`).FindSubmatch(marker.stdout)
		if m == nil {
			t.Fatalf("no marker in the kernel log:\n%s", marker.stdout)
		}
		if !bytes.Contains(meta, []byte(`clockid="monotonic"`)) || !bytes.Contains(meta, []byte(`ref-perf="`)) ||
			bytes.Contains(meta, []byte(`ref-perf="`+string(m[1])+`"`)) {
			t.Errorf("want perf's own reference (monotonic clock), not the marker's (dmesg @%s):\n%s", m[1], meta)
		}
	})
}

// startRecorder starts the recorder with env added to the environment.
func startRecorder(t *testing.T, env, rec string, args ...string) (*exec.Cmd, *strings.Builder) {
	t.Helper()
	cmd := exec.Command(rec, args...)
	if env != "" {
		cmd.Env = append(os.Environ(), env)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Signal(syscall.SIGTERM)
			cmd.Wait()
		}
	})
	return cmd, &stderr
}

// killPerf kills (SIGKILL) the perf the recorder pid started.
func killPerf(t *testing.T, pid int) {
	t.Helper()
	tasks, _ := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/task/*/children")
	for _, f := range tasks {
		b, _ := os.ReadFile(f)
		for _, c := range strings.Fields(string(b)) {
			// perf, or the stand-in (a script: its command is bash)
			args, _ := os.ReadFile("/proc/" + c + "/cmdline")
			if !bytes.Contains(args, []byte("perf\x00record\x00")) {
				continue
			}
			n, _ := strconv.Atoi(c)
			if err := syscall.Kill(n, syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			return
		}
	}
	t.Fatalf("the recorder (pid %d) has no perf child", pid)
}

// TestPerfTimetravelStandInFaults: with the perf stand-in, what a killed
// recorder, a killed perf and an older recorder's finished .partial leave
// is named, and converted, at the next start.
func TestPerfTimetravelStandInFaults(t *testing.T) {
	need(t, "stackcollapse")
	rec := script("perf-timetravel")

	t.Run("recorder killed", func(t *testing.T) {
		dir := t.TempDir()
		tt := filepath.Join(dir, "tt")
		cmd, _ := startRecorder(t, "", rec, "-o", tt, "-w", "60", "--no-marker")
		waitFor(t, filepath.Join(tt, ".perf-*.partial"))
		if err := cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		cmd.Wait()
		waitFor(t, filepath.Join(tt, ".perf-*.data.partial.[0-9]*"))
		r := ok(t, dir, rec+" -o tt -w 1 -n 1 --convert --no-marker")
		data, folded := windows(t, tt)
		if len(data) != 2 || len(folded) != 2 || !strings.Contains(string(r.stderr), "recovered ") {
			t.Errorf("want the killed recorder's window recovered and converted, and a new one; got %v %v:\n%s", data, folded, r.stderr)
		}
	})

	t.Run("perf killed", func(t *testing.T) {
		dir := t.TempDir()
		tt := filepath.Join(dir, "tt")
		cmd, stderr := startRecorder(t, "", rec, "-o", tt, "-w", "60", "--no-marker")
		waitFor(t, filepath.Join(tt, ".perf-*.partial"))
		killPerf(t, cmd.Process.Pid)
		err := cmd.Wait()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.Contains(stderr.String(), "perf record failed (exit status 137, as when killed by SIGKILL)") {
			t.Fatalf("want exit status 1 and perf's end reported; got %v:\n%s", err, stderr)
		}
		left, _ := filepath.Glob(filepath.Join(tt, ".perf-*.data.partial"))
		if len(left) != 1 {
			t.Fatalf("want the unfinished window kept, got %v", left)
		}
		r := ok(t, dir, rec+" -o tt -w 1 -n 1 --no-marker")
		if data, _ := windows(t, tt); len(data) != 2 || !strings.Contains(string(r.stderr), "left unfinished by perf") {
			t.Errorf("want the unfinished window named and a new one; got %v:\n%s", data, r.stderr)
		}
	})

	t.Run("conversion failed or killed", func(t *testing.T) {
		// A window named, but its conversion failed (a full disk) or was
		// killed with the recorder: a .data without its .folded.gz. The
		// next start converts it, or the heat map draws its seconds as
		// not recorded.
		dir := t.TempDir()
		tt := filepath.Join(dir, "tt")
		if err := os.MkdirAll(tt, 0o755); err != nil {
			t.Fatal(err)
		}
		left := filepath.Join(tt, "perf-old-20260101-000000-120s.data")
		ok(t, dir, "zcat "+filepath.Join(root, "e2e", "testdata", "record", "window.data.gz")+" > "+left)
		r := ok(t, dir, rec+" -o tt -w 1 -n 1 --convert --no-marker")
		_, folded := windows(t, tt)
		if !slices.Contains(folded, "perf-old-20260101-000000-120s.folded.gz") || len(folded) != 2 ||
			!strings.Contains(string(r.stderr), "converting 1 window(s) an earlier run recorded but did not convert") {
			t.Errorf("want the window left unconverted converted, and a new one; got %v:\n%s", folded, r.stderr)
		}
	})

	t.Run("finished partial of an older recorder", func(t *testing.T) {
		// The recorder before version 2 wrote each window to its own
		// .NAME.data.partial; killed, it left the window perf finished
		// under that name, and deleted it at the next start.
		dir := t.TempDir()
		tt := filepath.Join(dir, "tt")
		if err := os.MkdirAll(tt, 0o755); err != nil {
			t.Fatal(err)
		}
		left := filepath.Join(tt, ".perf-old-20260101-000000-120s.data.partial")
		ok(t, dir, "zcat "+filepath.Join(root, "e2e", "testdata", "record", "window.data.gz")+" > "+left)
		past := time.Date(2026, 1, 1, 0, 2, 0, 0, time.Local)
		if err := os.Chtimes(left, past, past); err != nil {
			t.Fatal(err)
		}
		r := ok(t, dir, rec+" -o tt -w 1 -n 1 --convert --no-marker")
		data, folded := windows(t, tt)
		want := "perf-old-20260101-000000-120s.data"
		if !slices.Contains(data, want) || len(folded) != 2 {
			t.Errorf("want %s recovered and converted; got %v %v:\n%s", want, data, folded, r.stderr)
		}
	})
}

// TestTimesliceUnrecorded: two windows of the recorder before version 2,
// with the 1.256 s hole it left between them (testdata/travel/holes): the
// heat map (text and SVG) shows the hole as not recorded, never as idle
// cells, whether the windows are named or concatenated; --bursts says
// where the hole is and leaves it out of the baseline.
func TestTimesliceUnrecorded(t *testing.T) {
	need(t, "timeslice")
	dir := t.TempDir()
	holes := filepath.Join(root, "e2e", "testdata", "travel", "holes")
	files := filepath.Join(holes, "perf-vm-20261125-211304-5s.folded.gz") + " " + filepath.Join(holes, "perf-vm-20261125-211310-5s.folded.gz")

	named := ok(t, dir, "timeslice --heatmap=text "+files)
	cat := ok(t, dir, "zcat "+files+" | timeslice --heatmap=text")
	if _, a, _ := bytes.Cut(named.stdout, []byte("\n")); !bytes.HasSuffix(cat.stdout, a) { // but the title
		t.Errorf("the windows named and concatenated give different maps:\n%s\n%s", named.stdout, cat.stdout)
	}
	if !bytes.Contains(named.stdout, []byte("not recorded (hatched grey; '/' in text): 1.256 s in 1 part: no sample on any CPU for 51.5 ms or more")) {
		t.Errorf("the map does not say what was not recorded:\n%s", named.stdout)
	}
	// The hole is @622.826451 to @624.082605: seconds 4.99 to 6.246 after
	// the first sample (@617.836634), cells of 20 ms.
	cells := 0
	for _, l := range strings.Split(string(named.stdout), "\n") {
		m := regexp.MustCompile(`^ +(\d+)  \|(.{50})\|`).FindStringSubmatch(l)
		if m == nil {
			continue
		}
		s, _ := strconv.Atoi(m[1])
		for r, c := range m[2] {
			at := float64(s) + float64(r)*0.02 + 0.01 // the cell's middle
			inHole := at > 4.99 && at < 6.246
			if c == '/' {
				cells++
			}
			if (c == '/') != inHole && (at < 4.97 || at > 6.26) {
				t.Errorf("second %d, cell %d (%.2f s): %q", s, r, at, c)
			}
		}
	}
	if cells < 60 || cells > 64 {
		t.Errorf("%d cells not recorded, want the 62 or so of 1.256 s", cells)
	}

	ok(t, dir, "timeslice --heatmap "+files+" > heat.svg")
	svg := readFile(t, filepath.Join(dir, "heat.svg"))
	parseSVG(t, svg)
	group := regexp.MustCompile(`(?s)<g id="dunrec">(.*?)</g>`).FindSubmatch(svg)
	if group == nil || bytes.Count(group[1], []byte(`<rect class="unrec"`)) < 2 || !bytes.Contains(svg, []byte(">not recorded</text>")) {
		t.Errorf("the SVG does not hatch the hole, or has no legend entry for it")
	}

	r := ok(t, dir, "timeslice --bursts "+files)
	for _, want := range []string{"recorded (1 more not recorded, left out)", "not recorded: 1.256s in 1 parts", "@622.826451 to @624.082605 (1.256s)"} {
		if !strings.Contains(string(r.stderr), want) {
			t.Errorf("--bursts does not say %q:\n%s", want, r.stderr)
		}
	}
}
