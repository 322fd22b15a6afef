package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"flamekit/internal/cli"
	"flamekit/internal/testkit/clitest"
	gold "flamekit/internal/testkit/golden"
	"flamekit/pkg/filter/idle"
	"flamekit/pkg/folded"
	"flamekit/pkg/interop/pyroscope"
	"flamekit/pkg/tool/slicecmd"
	"flamekit/pkg/tool/timeslice"
	"flamekit/pkg/view/bursts"
	"flamekit/pkg/view/heatmap"
)

// The real capture: 30 s system-wide, perf record -a -g -F 97, with a 2 s
// busy process named flamekit_burst starting at @427.204232 (its dmesg
// marker, testdata/perf/burst.dmesg.txt), collapsed to timed folded.
const (
	burstFile  = "../../pkg/filter/window/testdata/burst.folded.gz"
	burstStart = "427.204232"
	burstComm  = "flamekit_burst"
)

func run(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return clitest.Run(t, "timeslice", description, &command{}, stdin, args...)
}

// golden compares got with testdata/golden/name (go test -update
// rewrites it).
func golden(t *testing.T, name, got string) {
	t.Helper()
	gold.Check(t, filepath.Join("testdata", "golden", name), []byte(got))
}

func clip(s string) string {
	if len(s) > 3000 {
		return s[:3000] + "..."
	}
	return s
}

// profile parses classic folded output into stack -> count.
func profile(t *testing.T, out string) map[string]float64 {
	t.Helper()
	m := map[string]float64{}
	rd := folded.NewReader(strings.NewReader(out), "output")
	for rd.Next() {
		r := rd.Record()
		if r.Kind != folded.Classic {
			t.Fatalf("output line of kind %v", r.Kind)
		}
		m[string(r.Stack)] += r.Count
	}
	if err := rd.Err(); err != nil {
		t.Fatal(err)
	}
	return m
}

// samples returns the sample count timeslice printed on stderr.
func samples(t *testing.T, stderr string) int64 {
	t.Helper()
	m := regexp.MustCompile(`(\d+) samples in the`).FindStringSubmatch(stderr)
	if m == nil {
		t.Fatalf("no sample count on stderr:\n%s", stderr)
	}
	n, _ := strconv.ParseInt(m[1], 10, 64)
	return n
}

func total(m map[string]float64) float64 {
	var n float64
	for _, v := range m {
		n += v
	}
	return n
}

func share(m map[string]float64, comm string) float64 {
	var n float64
	for k, v := range m {
		if strings.HasPrefix(k, comm+";") || k == comm {
			n += v
		}
	}
	return n / total(m)
}

func TestBurstSliceAroundAndElsewhere(t *testing.T) {
	// The burst dominates the slice around it, idle excluded.
	code, out, stderr := run(t, "", "--from", "@"+burstStart, "--to", "@429.2", "--no-idle", burstFile)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	around := profile(t, out)
	if s := share(around, burstComm); s < 0.8 {
		t.Errorf("%s is %.0f%% of the slice around it, want at least 80%%", burstComm, 100*s)
	}
	golden(t, "burst-around.folded", out)
	golden(t, "burst-around.stderr", stderr)

	// And is absent from a slice elsewhere.
	code, out, stderr = run(t, "", "--at", "5s±2.5", burstFile)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	elsewhere := profile(t, out)
	if total(elsewhere) == 0 {
		t.Fatal("empty slice at 5 s")
	}
	if s := share(elsewhere, burstComm); s != 0 {
		t.Errorf("%s is in the slice at 5s±2.5 (%.1f%%)", burstComm, 100*s)
	}
	golden(t, "burst-5s.folded", out)
}

func TestConsecutiveSlicesSumToWhole(t *testing.T) {
	// The whole: every timed sample (the capture also holds one untimed
	// line, which no window keeps).
	code, out, _ := run(t, "", "--from", "@0", burstFile)
	if code != 0 {
		t.Fatal("conversion failed")
	}
	whole := profile(t, out)
	_, conv, _ := run(t, "", burstFile)
	golden(t, "burst-whole.folded", conv)
	sum := map[string]float64{}
	// Slices of 0.7 s, so that boundaries fall between and on samples; the
	// last ends after the capture.
	for from := time.Duration(0); from < 30*time.Second; from += 700 * time.Millisecond {
		to := from + 700*time.Millisecond
		args := []string{"-q", "--from", "@" + (sec("413.417927") + folded.Time(from)).String(),
			"--to", "@" + (sec("413.417927") + folded.Time(to)).String(), burstFile}
		code, out, stderr := run(t, "", args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		for k, v := range profile(t, out) {
			sum[k] += v
		}
	}
	if len(sum) != len(whole) || total(sum) != total(whole) {
		t.Fatalf("slices sum to %v samples in %d stacks, the whole has %v in %d", total(sum), len(sum), total(whole), len(whole))
	}
	for k, v := range whole {
		if sum[k] != v {
			t.Errorf("stack %q: slices sum to %v, whole %v", k, sum[k], v)
		}
	}
	// A window ending exactly on a sample excludes it; the next one
	// starting there includes it.
	_, _, a := run(t, "", "--from", "@413.417927", "--to", "@413.428210", burstFile)
	_, _, b := run(t, "", "--from", "@413.428210", "--to", "@413.438531", burstFile)
	if samples(t, a) != 1 || samples(t, b) != 1 {
		t.Errorf("half-open windows: %q then %q", a, b)
	}
}

func TestWindowForms(t *testing.T) {
	// The same window, written five ways, gives the same slice.
	saved := time.Local
	time.Local = time.UTC // "captured on" is read in the local zone
	defer func() { time.Local = saved }()
	forms := [][]string{
		{"--from", "@427.417927", "--to", "@429.417927"},
		{"--at", "@428.417927±1"},
		{"--at", "15s±1"},
		{"--at", "15s+-1000ms"},
		{"--from", "14s", "--to", "16s"},
	}
	var first string
	for i, f := range forms {
		code, out, stderr := run(t, "", append(f, burstFile)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", f, code, stderr)
		}
		if i == 0 {
			first = out
		} else if out != first {
			t.Errorf("%v gives another slice than %v", f, forms[0])
		}
		for _, want := range []string{"@427.417927 to @429.417927", "14 s to 16 s after the first sample (@413.417927)", "2026-11-22T02:24:38.010213Z"} {
			if !strings.Contains(stderr, want) {
				t.Errorf("%v: stderr lacks %q:\n%s", f, want, stderr)
			}
		}
	}
	// Wall clock, estimated from "captured on" (02:24:54 UTC = the last
	// sample @443.407714): a warning says so and how.
	code, out, stderr := run(t, "", "--at", "2026-11-22T02:24:39.010213Z±1", burstFile)
	if code != 0 || out != first {
		t.Errorf("wall-clock window: exit %d, same slice %v: %s", code, out == first, stderr)
	}
	for _, want := range []string{"warning: wall-clock time is estimated", "captured on", "TZ", "perf record -k"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("wall-clock window: stderr lacks %q:\n%s", want, stderr)
		}
	}
}

func TestStdinAndGzip(t *testing.T) {
	raw := gold.MustRead(t, burstFile)
	_, fromFile, _ := run(t, "", "-q", "--at", "15s±1", burstFile)
	code, fromStdin, stderr := run(t, string(raw), "-q", "--at", "15s±1")
	if code != 0 || fromStdin != fromFile {
		t.Errorf("stdin slice differs from file slice (exit %d): %s", code, stderr)
	}
	plain := filepath.Join(t.TempDir(), "burst.folded")
	if err := os.WriteFile(plain, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, fromPlain, _ := run(t, "", "-q", "--at", "15s±1", plain); fromPlain != fromFile {
		t.Error("uncompressed file slice differs from gzipped file slice")
	}
	// No window: timed -> classic, the same as summing every line.
	_, conv, _ := run(t, string(raw))
	var p folded.Profile
	rd := folded.NewReader(bytes.NewReader(raw), "burst")
	for rd.Next() {
		p.Add(rd.Record())
	}
	var want bytes.Buffer
	p.WriteTo(&want)
	if conv != want.String() {
		t.Error("conversion without a window differs from folded.Profile")
	}
}

func TestNoIdle(t *testing.T) {
	code, out, stderr := run(t, "", "--no-idle", "--at", "5s±2.5", burstFile)
	if code != 0 {
		t.Fatal(stderr)
	}
	for k := range profile(t, out) {
		if strings.HasPrefix(k, "swapper;") && strings.Contains(k, "pv_native_safe_halt") && !strings.Contains(k, "interrupt") {
			t.Errorf("idle stack kept: %s", k)
		}
	}
	if !strings.Contains(stderr, "idle samples dropped") {
		t.Errorf("stderr does not count the idle samples: %s", stderr)
	}
	// Interrupt work on an idle CPU is kept (unlike FlameScope).
	_, out, _ = run(t, "", "--no-idle", "testdata/small.folded")
	p := profile(t, out)
	if p["swapper;do_idle;asm_common_interrupt;handle_softirqs;net_rx_action"] != 1 {
		t.Errorf("softirq work on an idle CPU was dropped:\n%s", out)
	}
	if p["swapper;do_idle;default_idle;native_safe_halt"] != 0 {
		t.Errorf("idle samples kept:\n%s", out)
	}
}

func TestKeepTimeChains(t *testing.T) {
	code, timed, stderr := run(t, "", "-q", "--from", "10s", "--to", "20s", "--keep-time", burstFile)
	if code != 0 {
		t.Fatal(stderr)
	}
	lines := strings.Split(strings.TrimSuffix(timed, "\n"), "\n")
	var metas []folded.Meta
	samples := 0
	for i, l := range lines {
		if !strings.HasPrefix(l, folded.MetaPrefix) {
			if len(metas) > 0 {
				t.Fatalf("line %d: a sample after the metadata lines", i+1)
			}
			samples++
			continue
		}
		m, err := folded.ParseMeta([]byte(l))
		if err != nil {
			t.Fatal(err)
		}
		metas = append(metas, m)
	}
	if len(metas) != 3 {
		t.Fatalf("--keep-time output ends with %d metadata lines, want the capture's two and the slice's", len(metas))
	}
	slice := metas[len(metas)-1]
	for k, want := range map[string]string{"first": "413.417927", "slice-from": "423.417927", "slice-to": "433.417927", "samples": strconv.Itoa(samples)} {
		if v, _ := slice.Get(k); v != want {
			t.Errorf("slice metadata %s=%q, want %q", k, v, want)
		}
	}
	host := false
	for _, m := range metas {
		h, _ := m.Get("host")
		host = host || h == "vm"
	}
	if !host {
		t.Errorf("the capture's facts (host) are not carried on: %+v", metas)
	}
	// Relative times keep their meaning: 15s±1 of the slice is 15s±1 of
	// the capture.
	_, chained, _ := run(t, timed, "-q", "--at", "15s±1")
	_, direct, _ := run(t, "", "-q", "--at", "15s±1", burstFile)
	if chained != direct {
		t.Error("a slice of a --keep-time slice differs from the same slice of the capture")
	}
	// Slices as files: each one's span is its window, so a window in one
	// of them skips the others.
	dir := t.TempDir()
	var parts []string
	for i, w := range [][2]string{{"0s", "10s"}, {"10s", "20s"}, {"20s", "31s"}} {
		_, out, _ := run(t, "", "-q", "--keep-time", "--from", w[0], "--to", w[1], burstFile)
		name := filepath.Join(dir, fmt.Sprintf("slice%d.folded", i))
		os.WriteFile(name, []byte(out), 0o644)
		parts = append(parts, name)
	}
	code, fromSlices, stderr := run(t, "", append([]string{"--at", "15s±1"}, parts...)...)
	if code != 0 || fromSlices != direct || !strings.Contains(stderr, "from 1 of 3 inputs: "+parts[1]) {
		t.Errorf("window over three slices: exit %d, same as direct %v:\n%s", code, fromSlices == direct, stderr)
	}
}

func TestUntimedInput(t *testing.T) {
	code, _, stderr := run(t, "", "--at", "1s±1", "testdata/classic.folded")
	if code != 1 || !strings.Contains(stderr, "run stackcollapse without --no-time") || !strings.Contains(stderr, "testdata/classic.folded:1") {
		t.Errorf("classic input with a window: exit %d, %s", code, stderr)
	}
	// Mixed: the classic and malformed lines are counted as skipped.
	code, out, stderr := run(t, "", "--from", "@10", "--to", "@11", "testdata/mixed.folded")
	if code != 0 || out != "app;main;io 1\napp;main;work 1\n" {
		t.Errorf("mixed input: exit %d, output %q", code, out)
	}
	for _, want := range []string{"skipped 1 untimed line (first: testdata/mixed.folded:2: line without a time", "skipped 1 malformed line (first: testdata/mixed.folded:4: "} {
		if !strings.Contains(stderr, want) {
			t.Errorf("mixed input: stderr lacks %q:\n%s", want, stderr)
		}
	}
	// Without a window, classic lines are summed with the rest.
	_, out, _ = run(t, "", "testdata/classic.folded")
	if out != "app;main;io 2\napp;main;work 3\n" {
		t.Errorf("classic input without a window: %q", out)
	}
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"--at", "70s±"},
		{"--at", "70s"},
		{"--at", "70s±1", "--from", "1s"},
		{"--from", "5s", "--to", "4s"},
		{"--rows", "0"},
		{"--heatmap=png"},
		{"--heatmap", "--keep-time"},
		{"-", "-"},
		{"--bursts", "--threshold", "NaN"},
		{"--bursts", "--threshold", "+Inf"},
		{"--bursts", "--threshold", "0"},
	} {
		code, out, stderr := run(t, "", args...)
		if code != 2 || out != "" {
			t.Errorf("%q: exit %d, output %q; want exit 2 and no output", args, code, out)
		}
		if strings.HasPrefix(args[0], "--at") || strings.HasPrefix(args[0], "--from") {
			if !strings.Contains(stderr, "accepted forms") || !strings.Contains(stderr, "--at @43521.274±2.5") {
				t.Errorf("%q: the accepted forms are not shown:\n%s", args, stderr)
			}
		}
	}
	code, _, stderr := run(t, "", "--at", "70s±1", "testdata/nonexistent.folded")
	if code != 1 || !strings.Contains(stderr, "nonexistent.folded") {
		t.Errorf("missing file: exit %d: %s", code, stderr)
	}
	code, out, _ := run(t, "", "--help")
	if code != 0 || !strings.Contains(out, "--at @43521.274±2.5") || !strings.Contains(out, "half-open") {
		t.Errorf("--help lacks the window forms")
	}
}

// split writes the capture as n files of consecutive time ranges, each
// with its own metadata head, alternately gzipped and plain.
func split(t *testing.T, n int) []string {
	t.Helper()
	raw := gold.MustRead(t, burstFile)
	var recs [][]byte
	var times []folded.Time
	for line := range bytes.Lines(raw) {
		var r folded.Record
		if folded.ParseLine(bytes.TrimSuffix(line, []byte("\n")), &r) == nil {
			recs = append(recs, line)
			times = append(times, r.Time)
		}
	}
	dir := t.TempDir()
	var names []string
	per := (len(recs) + n - 1) / n
	for i := 0; i < n; i++ {
		lo, hi := i*per, min((i+1)*per, len(recs))
		var b bytes.Buffer
		fmt.Fprintf(&b, "%s host=\"vm\" first=\"%v\" last=\"%v\"\n", folded.MetaPrefix, times[lo], times[hi-1])
		for _, l := range recs[lo:hi] {
			b.Write(l)
		}
		name := filepath.Join(dir, fmt.Sprintf("part%d.folded", i))
		data := b.Bytes()
		if i%2 == 0 {
			name += ".gz"
			var z bytes.Buffer
			zw := gzip.NewWriter(&z)
			zw.Write(data)
			zw.Close()
			data = z.Bytes()
		}
		if err := os.WriteFile(name, data, 0o644); err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
	}
	return names
}

func TestManyInputs(t *testing.T) {
	parts := split(t, 3) // about 413-423, 423-433, 433-443
	_, whole, _ := run(t, "", "-q", "--from", "@420", "--to", "@426", burstFile)
	// Given in any order, the files are read whole; the window holds
	// samples of the first two, named in time order.
	shuffled := []string{parts[2], parts[0], parts[1]}
	code, out, stderr := run(t, "", append([]string{"--from", "@420", "--to", "@426"}, shuffled...)...)
	if code != 0 || out != whole {
		t.Errorf("window across two files: exit %d, same as one file: %v\n%s", code, out == whole, stderr)
	}
	if !strings.Contains(stderr, "from 2 of 3 inputs: "+filepath.Base(parts[0])) && !strings.Contains(stderr, "from 2 of 3 inputs: "+parts[0]+", "+parts[1]) {
		t.Errorf("stderr does not say two of three inputs were used, in time order:\n%s", stderr)
	}
	// Relative times count from the earliest first sample of all inputs.
	_, rel, _ := run(t, "", "-q", "--at", "15s±1", parts[2], parts[1], parts[0])
	_, relWhole, _ := run(t, "", "-q", "--at", "15s±1", burstFile)
	if rel != relWhole {
		t.Error("relative window over many inputs differs from the whole capture")
	}
	// A window outside every input names the spans it found.
	code, out, stderr = run(t, "", append([]string{"--at", "@500±1"}, parts...)...)
	if code != 1 || out != "" || !strings.Contains(stderr, "holds no sample") || strings.Count(stderr, "part") != 3 {
		t.Errorf("window outside the inputs: exit %d:\n%s", code, stderr)
	}
	for _, p := range parts {
		if !strings.Contains(stderr, p+" @") {
			t.Errorf("the error does not name the span of %s:\n%s", p, stderr)
		}
	}
}

func TestDisorderedInputs(t *testing.T) {
	raw := gold.MustRead(t, burstFile)
	lines := strings.SplitAfter(string(raw), "\n")
	sorted := slices.Clone(lines)
	slices.Sort(sorted) // sort(1): metadata first, then by stack
	dir := t.TempDir()
	// Earlier and later halves swapped: cat later.folded earlier.folded.
	half := len(lines) / 2
	swapped := strings.Join(lines[half:], "") + strings.Join(lines[:half], "")
	for name, data := range map[string]string{"sorted.folded": strings.Join(sorted, ""), "swapped.folded": swapped} {
		path := filepath.Join(dir, name)
		os.WriteFile(path, []byte(data), 0o644)
		// Absolute windows: the swapped file's first line is not the
		// capture's first sample, so relative times would differ.
		for _, win := range [][]string{{"--at", "@428.4±1"}, {"--from", "@420.5", "--to", "@421.3"}, {"--from", "@440"}, {"--to", "@414"}} {
			_, want, _ := run(t, "", append([]string{"-q"}, append(win, burstFile)...)...)
			code, got, stderr := run(t, "", append([]string{"-q"}, append(win, path)...)...)
			if code != 0 || got != want {
				t.Errorf("%s %v: exit %d, same slice as the ordered capture: %v\n%s", name, win, code, got == want, stderr)
			}
		}
	}
	// Small steps back (under the 1 s slack) are perf's own disorder.
	code, out, stderr := run(t, "app;a 1 @10.0\napp;b 1 @10.9\napp;c 1 @10.2\napp;d 1 @13.0\n", "--from", "@10.1", "--to", "@10.5")
	if code != 0 || out != "app;c 1\n" {
		t.Errorf("small disorder: exit %d, %q, %s", code, out, stderr)
	}
}

// utc reads perf's "captured on" in UTC for the test (it is read in the
// local zone), so that golden files do not depend on the machine's zone.
func utc(t *testing.T) {
	saved := time.Local
	time.Local = time.UTC
	t.Cleanup(func() { time.Local = saved })
}

func TestHeatmapShowsBurst(t *testing.T) {
	utc(t)
	code, out, stderr := run(t, "", "--heatmap=text", "--no-idle", burstFile)
	if code != 0 {
		t.Fatal(stderr)
	}
	golden(t, "burst-heatmap.txt", out)
	// The two busiest seconds are those of the burst: 14 and 15 s after
	// the first sample, @413.417927 (it starts at @427.204, 13.79 s in,
	// and lasts 2 s); the map marks it.
	type col struct {
		sec int
		n   int
	}
	var cols []col
	marked := map[int]bool{}
	for _, l := range strings.Split(out, "\n") {
		l, after, marked1 := strings.Cut(l, "  <- mark ")
		mark := marked1 && strings.HasPrefix(after, "1")
		f := strings.Fields(strings.ReplaceAll(l, "|", " | "))
		if len(f) < 3 || !strings.HasPrefix(f[len(f)-1], "@") {
			continue
		}
		s, err1 := strconv.Atoi(f[0])
		n, err2 := strconv.Atoi(f[len(f)-2])
		if err1 == nil && err2 == nil {
			cols = append(cols, col{s, n})
			if mark {
				marked[s] = true
			}
		}
	}
	if len(cols) != 30 {
		t.Fatalf("%d columns, want 30 (413.417927 to 443.407714)", len(cols))
	}
	if !marked[13] || !marked[14] || !marked[15] || len(marked) != 3 {
		t.Errorf("marked seconds %v, want the burst's 13, 14 and 15", marked)
	}
	slices.SortFunc(cols, func(a, b col) int { return b.n - a.n })
	if cols[0].sec != 14 || cols[1].sec != 15 || cols[1].n < 2*cols[2].n {
		t.Errorf("busiest seconds %v, want 14 and 15 far ahead", cols[:4])
	}
}

// What a person reads on the map is what they type: column 14, row 10 is
// --from 14.2s, and the command a selection gives cuts the samples of
// its cells, from any directory.
func TestHeatmapCommandReproducesSlice(t *testing.T) {
	utc(t)
	code, svg, stderr := run(t, "", "--heatmap", "--no-idle", burstFile)
	if code != 0 {
		t.Fatal(stderr)
	}
	golden(t, "burst-heatmap.svg", heatmapStructure(svg))
	origin := sec("413.417927")
	hm := heatmap.New(50, origin)
	raw := gold.MustRead(t, burstFile)
	rd := folded.NewReader(bytes.NewReader(raw), "burst")
	for rd.Next() {
		if r := rd.Record(); r.Kind == folded.Timed && !isIdle(r.Stack) {
			hm.Add(r.Time)
		}
	}
	g := hm.Grid()
	if g.First != 0 || g.CellStart(14, 10) != origin+sec("14.2") {
		t.Fatalf("column 14 row 10 starts at %v, want 14.2 s after the first sample", g.CellStart(14, 10))
	}
	// The range a user would click: from the cell of the dmesg marker to
	// the cell 2 s later.
	s1, r1 := hm.Cell(sec(burstStart))
	s2, r2 := hm.Cell(sec(burstStart) + sec("2"))
	var inRange int64
	for c := s1; c <= s2; c++ {
		for r := 0; r < g.Rows; r++ {
			if (c > s1 || r >= r1) && (c < s2 || r <= r2) {
				inRange += int64(g.Count(int(c-g.First), r))
			}
		}
	}
	abs, err := filepath.Abs(burstFile)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(svg, `data-args=" --no-idle"`) || !strings.Contains(svg, ">"+abs+"</text>") {
		t.Fatalf("the SVG does not carry the option and the absolute input name %q", abs)
	}
	from, to := g.CellRange(int(s1-g.First), r1, int(s2-g.First), r2)
	cmd := slicecmd.Range(from, to, " --no-idle "+abs)
	if cmd != "timeslice --from @427.197927 --to @429.217927 --no-idle "+abs {
		t.Errorf("command %q", cmd)
	}
	// Run it from another directory.
	wd, _ := os.Getwd()
	if err := os.Chdir(t.TempDir()); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	f := strings.Fields(cmd)
	code, out, stderr := run(t, "", f[1:]...)
	if code != 0 {
		t.Fatal(stderr)
	}
	if got := samples(t, stderr); got != inRange {
		t.Errorf("%s gives %v samples, the selected cells hold %d", cmd, got, inRange)
	}
	if share(profile(t, out), burstComm) < 0.9 {
		t.Errorf("the burst is not the slice of its cells")
	}
}

// heatmapStructure is an SVG heat map without its base64 data (images and
// cells), which are checked by decoding them: the golden file shows the
// structure and stays readable.
func heatmapStructure(svg string) string {
	if wd, err := os.Getwd(); err == nil {
		root := filepath.Dir(filepath.Dir(wd)) // the checkout
		svg = strings.ReplaceAll(svg, root+"/", "ROOT/")
	}
	svg = regexp.MustCompile(`data:image/png;base64,[A-Za-z0-9+/=]+`).ReplaceAllStringFunc(svg, func(s string) string {
		return fmt.Sprintf("data:image/png;base64,(%d bytes)", len(s))
	})
	svg = regexp.MustCompile(`cells: "[A-Za-z0-9+/=]*"`).ReplaceAllStringFunc(svg, func(s string) string {
		return fmt.Sprintf(`cells: "(%d bytes)"`, len(s))
	})
	// The script has tests of its own.
	i := strings.Index(svg, `<script type="text/ecmascript"><![CDATA[`+"\n"+`"use strict";`)
	j := strings.Index(svg, "]]></script>\n<rect")
	if i >= 0 && j > i {
		svg = svg[:i] + "<script>(heatmap.js)" + svg[j:]
	}
	return svg
}

func isIdle(stack []byte) bool { return idle.Is(stack) }

func TestHeatmapEscapesInput(t *testing.T) {
	utc(t)
	code, svg, stderr := run(t, "", "--heatmap", "testdata/small.folded")
	if code != 0 {
		t.Fatal(stderr)
	}
	if strings.Contains(svg, `test<&>`) || !strings.Contains(svg, `test&lt;&amp;&gt;&quot;host`) {
		t.Errorf("host name not escaped in the SVG")
	}
	golden(t, "small-heatmap.svg", heatmapStructure(svg))
	// An input name that would break out of an attribute or a script.
	dir := t.TempDir()
	evil := filepath.Join(dir, `a"><script>alert(1)</script>]]>'.folded`)
	data, _ := os.ReadFile("testdata/small.folded")
	if err := os.WriteFile(evil, data, 0o644); err != nil {
		t.Skip("file system refuses the name:", err)
	}
	_, svg, _ = run(t, "", "--heatmap", evil)
	if strings.Contains(svg, "<script>alert") || strings.Count(svg, "]]>") != 2 {
		t.Errorf("input name not escaped")
	}
}

// Idle seconds count alike at both ends under --no-idle: a busy sample at
// 10.5 s and an idle one at 13.7 s give four columns, and so do the same
// samples the other way round.
func TestHeatmapIdleAtBothEnds(t *testing.T) {
	const idleStack = "swapper;secondary_startup_64;cpu_startup_entry;do_idle;default_idle_call;default_idle;pv_native_safe_halt"
	for _, in := range []string{
		"app;work 1 @10.5\n" + idleStack + " 1 @13.7\n",
		idleStack + " 1 @10.5\napp;work 1 @13.7\n",
	} {
		code, out, stderr := run(t, in, "--heatmap=text", "--no-idle", "--rows", "10")
		if code != 0 {
			t.Fatal(stderr)
		}
		var secs []string
		for _, l := range strings.Split(out, "\n") {
			if f := strings.Fields(l); len(f) > 0 && strings.Contains(l, "  @") && strings.Contains(l, "|") {
				secs = append(secs, f[0])
			}
		}
		if strings.Join(secs, " ") != "0 1 2 3" {
			t.Errorf("%q: seconds %v, want 0 1 2 3\n%s", in, secs, out)
		}
	}
}

// Milliseconds are rounded, and a map of standard input says so in the
// command it hands back.
func TestHeatmapRoundedAndStdin(t *testing.T) {
	code, svg, stderr := run(t, "app;a 1 @10.5\napp;b 1 @11.25\n", "--heatmap", "--rows", "49")
	if code != 0 {
		t.Fatal(stderr)
	}
	if !strings.Contains(svg, "rows of 20.4 ms") || strings.Contains(svg, "20.408") {
		t.Errorf("the legend does not round the rows' milliseconds")
	}
	if !strings.Contains(svg, `<g id="inputs" display="none">`+"\n"+`<text data-first="0" data-last="750000000">-</text>`) {
		t.Errorf("standard input is not named - in the inputs of the command")
	}
}

// The bursts of the real capture: the flamekit_burst process is the
// first, with its command.
func TestBurstsRealCapture(t *testing.T) {
	utc(t)
	code, out, stderr := run(t, "", "--bursts", burstFile)
	if code != 0 {
		t.Fatal(stderr)
	}
	abs, _ := filepath.Abs(burstFile)
	golden(t, "burst-bursts.txt", strings.ReplaceAll(out, abs, "ABS/burst.folded.gz"))
	first, _, _ := strings.Cut(out, "\n")
	m := regexp.MustCompile(`^1  rate: z [0-9.]+: .* @([0-9.]+) to @([0-9.]+) = .* top: (\d+)% flamekit_burst[,;].*\|  (timeslice --from @[0-9.]+ --to @[0-9.]+ --no-idle (.*))$`).FindStringSubmatch(first)
	if m == nil {
		t.Fatalf("first line %q", first)
	}
	// flamekit_burst's samples run from 427.211693 to 429.201473.
	if sec(m[1]) > sec("427.211693") || sec(m[2]) <= sec("429.201473") || sec(m[2])-sec(m[1]) > sec("2.3") {
		t.Errorf("first burst @%s to @%s, the burst's samples @427.211693 to @429.201473", m[1], m[2])
	}
	if m[5] != abs {
		t.Errorf("the command names %q, want the absolute path %q", m[5], abs)
	}
	code, slice, stderr := run(t, "", strings.Fields(m[4])[1:]...)
	if code != 0 {
		t.Fatal(stderr)
	}
	if share(profile(t, slice), burstComm) < 0.9 {
		t.Errorf("the slice of the first burst is not the burst")
	}
	// From standard input, the same, naming it -.
	code, stdin, stderr := run(t, string(gold.MustRead(t, burstFile)), "--bursts")
	if want := strings.ReplaceAll(out, abs, "-"); code != 0 || stdin != want {
		t.Errorf("from standard input: exit %d\n%s\nwant\n%s\n%s", code, stdin, want, stderr)
	}
}

// TestDrainsStdin checks that a window read from a pipe leaves the pipe
// empty: reading stops once past the window, but what the writer still
// sends is read and dropped, so that it does not die of SIGPIPE and a
// pipeline run with pipefail succeeds.
func TestDrainsStdin(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 20000; i++ {
		fmt.Fprintf(&b, "app;work%d 1 @%d.%06d\n", i%7, 100+i/100, (i%100)*10000)
	}
	in := strings.NewReader(b.String())
	var out, errb bytes.Buffer
	code := cli.Run("timeslice", description, &command{}, []string{"--from", "@101", "--to", "@102"}, in, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if in.Len() != 0 {
		t.Errorf("%d bytes of standard input left unread: the writer of the pipe would get SIGPIPE", in.Len())
	}
	if !strings.Contains(errb.String(), "100 samples") {
		t.Errorf("stderr %q, want 100 samples in the window", errb.String())
	}
}

func sec(s string) folded.Time {
	t, err := folded.ParseTime([]byte(s))
	if err != nil {
		panic(err)
	}
	return t
}

func TestTruncatedGzip(t *testing.T) {
	data, err := os.ReadFile(burstFile)
	if err != nil {
		t.Fatal(err)
	}
	cut := data[:len(data)*2/3]
	name := filepath.Join(t.TempDir(), "cut.folded.gz")
	if err := os.WriteFile(name, cut, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		stdin string
		args  []string
	}{
		{"", []string{name}},
		{string(cut), []string{"-"}},
	} {
		code, _, stderr := run(t, tt.stdin, tt.args...)
		if code == 0 || !strings.Contains(stderr, "gzip data is truncated (unexpected end of file)") {
			t.Errorf("timeslice %v: exit %d, stderr %q; want an error saying the gzip data is truncated", tt.args, code, stderr)
		}
	}
}

// TestConcatenationOrder is issue 10's promise: captures concatenated in
// any order, with or without their metadata lines, give the same slice as
// the same files named as arguments, for windows of every kind. A is a
// capture at perf time 545.8-548.8 s, B one at 413.4-443.4 s, C one
// recorded with perf record -k mono (an exact wall-clock reference).
func TestConcatenationOrder(t *testing.T) {
	saved := time.Local
	time.Local = time.UTC // perf's "captured on" is read as local time
	defer func() { time.Local = saved }()
	dir := t.TempDir()
	plain := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	noMeta := func(b []byte) []byte {
		var out []byte
		for _, l := range strings.SplitAfter(string(b), "\n") {
			if !strings.HasPrefix(l, "#") {
				out = append(out, l...)
			}
		}
		return out
	}
	a, b, c := gold.MustRead(t, "testdata/before.folded.gz"), gold.MustRead(t, burstFile), gold.MustRead(t, "testdata/clock-mono.folded.gz")
	fa, fb, fc := plain("A.folded", a), plain("B.folded", b), plain("C.folded", c)
	na, nb := plain("A.nometa", noMeta(a)), plain("B.nometa", noMeta(b))
	cat := func(parts ...[]byte) string { return string(bytes.Join(parts, nil)) }

	type form struct {
		name  string
		stdin string
		files []string
	}
	withMeta := []form{
		{"files A B", "", []string{fa, fb}},
		{"files B A", "", []string{fb, fa}},
		{"cat B A | timeslice", cat(b, a), nil},
		{"cat A B | timeslice", cat(a, b), nil},
		{"cat A | timeslice - B", cat(a), []string{"-", fb}},
	}
	withoutMeta := []form{
		{"grep -v '^#' files A B", "", []string{na, nb}},
		{"grep -v '^#' files B A", "", []string{nb, na}},
		{"cat B A | grep -v '^#' | timeslice", cat(noMeta(b), noMeta(a)), nil},
		{"cat A B | grep -v '^#' | timeslice", cat(noMeta(a), noMeta(b)), nil},
	}
	windows := [][]string{
		{"--at", "@547±1"},
		{"--at", "@420±5"},
		{"--from", "@440", "--to", "@546"},
		{"--at", "5s±2.5"},
		{"--at", "133s±1"},
		{"--from", "130s"},
		{"--at", "2026-11-22T02:26:38Z±1"},
		{"--at", "2026-11-22T02:24:40Z±3"},
		{"--heatmap=text"},
		{"--keep-time", "--at", "@547±0.5"},
		{},
	}
	for _, w := range windows {
		for _, forms := range [][]form{withMeta, withoutMeta} {
			var want string
			var wantCode int
			for i, f := range forms {
				args := append(append([]string{"-q"}, w...), f.files...)
				code, out, stderr := run(t, f.stdin, args...)
				if code == 2 {
					t.Fatalf("%s %v: usage error: %s", f.name, w, stderr)
				}
				if i == 0 {
					want, wantCode = out, code
					if code == 0 && strings.Contains(strings.Join(w, " "), "@547") && !strings.Contains(out, "diffdemo") {
						t.Errorf("%s %v: the slice does not hold A's samples:\n%s", f.name, w, clip(out))
					}
					continue
				}
				if len(w) > 0 && (w[0] == "--heatmap=text" || w[0] == "--keep-time") {
					out, want = normaliseNames(out, dir), normaliseNames(want, dir)
				}
				if code != wantCode || out != want {
					t.Errorf("%v: %s gives exit %d and %d bytes, %s gives exit %d and %d bytes:\n%s",
						w, f.name, code, len(out), forms[0].name, wantCode, len(want), gold.Diff([]byte(want), []byte(out)))
				}
			}
		}
	}
	// The exact reference of C converts a wall-clock window exactly: the
	// window keeps its length whichever capture is named with it.
	for _, files := range [][]string{{fc}, {fa, fc, fb}, {fb, fc}} {
		code, _, stderr := run(t, "", append([]string{"--at", "2026-11-22T02:25:58Z±1"}, files...)...)
		if code != 0 || !strings.Contains(stderr, "window @506.377471735 to @508.377471735") || strings.Contains(stderr, "estimated") {
			t.Errorf("%v: exit %d, want the exact 2 s window:\n%s", files, code, stderr)
		}
	}
}

// normaliseNames drops the names of the inputs from heat maps and
// metadata, which differ between the ways of naming the same captures.
func normaliseNames(s, dir string) string {
	s = regexp.MustCompile(` source="[^"]*"`).ReplaceAllString(s, "")
	s = regexp.MustCompile(`(?m)^Heat map of .*$`).ReplaceAllString(s, "Heat map of ...")
	s = regexp.MustCompile(`timeslice --from \S+ --to \S+.*`).ReplaceAllString(s, "timeslice ...")
	return strings.ReplaceAll(s, dir, "")
}

// TestHeatmapSumsOffCPUTime: for off-CPU input (stackcollapse --off-cpu),
// the heat map's cells sum the microseconds; --measure samples counts lines.
func TestHeatmapSumsOffCPUTime(t *testing.T) {
	in := "# flamekit v1 timed event=\"sched:sched_switch\" weight=\"off-cpu\" unit=\"us\"\n" +
		"app;read 150000 @10.010000\napp;sleep 800000 @10.500000\napp;read 2000 @11.010000\n" +
		"# flamekit v1 timed event=\"sched:sched_switch\" first=\"10.010000\" last=\"11.010000\" samples=\"3\" weight=\"off-cpu\" unit=\"us\"\n"
	code, out, stderr := run(t, in, "--heatmap=text")
	if code != 0 || !strings.Contains(out, "a cell sums the µs off-CPU of its samples: 952000 in all, fullest cell 800000") {
		t.Errorf("off-CPU heat map: exit %d, stderr %s\n%s", code, stderr, out)
	}
	code, out, _ = run(t, in, "--heatmap=text", "--measure", "samples")
	if code != 0 || !strings.Contains(out, "a cell counts samples (lines, not periods): 3 in all, fullest cell 1") {
		t.Errorf("--measure samples: exit %d\n%s", code, out)
	}
	code, svg, _ := run(t, in, "--heatmap")
	if code != 0 || !strings.Contains(svg, `data-unit="µs off-CPU"`) || !strings.Contains(svg, "µs off-CPU per 20 ms cell:") {
		t.Errorf("the SVG does not name the unit of its cells (exit %d)", code)
	}
}

// TestNoFlagsGivesDefaults: the defaults of --rows, --top, --threshold and
// --bucket are those of the packages that use them.
// bucketOf is the time resolution the flags of c give.
func bucketOf(c *command) time.Duration {
	cfg := timeslice.Config{Push: c.Push, Format: c.Format, Bucket: c.Bucket}
	return cfg.Resolution()
}

func TestNoFlagsGivesDefaults(t *testing.T) {
	var c command
	code := cli.Run("timeslice", description, &c, []string{"/nonexistent"}, strings.NewReader(""), io.Discard, io.Discard)
	if code != 1 {
		t.Fatalf("exit %d, want 1 (the flags are parsed, then the input is missing)", code)
	}
	if c.Rows != heatmap.DefaultRows || c.Top != bursts.DefaultMax || c.Threshold != bursts.DefaultThreshold || c.Bucket != nil || bucketOf(&c) != timeslice.DefaultPprofBucket {
		t.Errorf("defaults: rows %d, top %d, threshold %v, bucket %v (%v)", c.Rows, c.Top, c.Threshold, c.Bucket, bucketOf(&c))
	}
	if c.Push = "http://localhost:4040"; bucketOf(&c) != pyroscope.DefaultBucket {
		t.Errorf("--push bucket %v, want %v", bucketOf(&c), pyroscope.DefaultBucket)
	}
}

// The page's summary counts the idle samples it leaves out as the SVG
// heat map's does (issue 29: the page said "0 idle samples dropped").
func TestNoIdleHTMLCountsAsSVG(t *testing.T) {
	summary := func(format string) string {
		code, _, stderr := run(t, "", "--heatmap="+format, "--no-idle", burstFile)
		if code != 0 {
			t.Fatal(stderr)
		}
		for _, l := range strings.Split(stderr, "\n") {
			if strings.Contains(l, "in the heat map") {
				return l
			}
		}
		t.Fatalf("--heatmap=%s: no summary line in %q", format, stderr)
		return ""
	}
	svg, html := summary("svg"), summary("html")
	if svg != html || strings.Contains(html, " 0 idle") {
		t.Errorf("summaries differ:\n svg  %s\n html %s", svg, html)
	}
}
