package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"flamekit/internal/cli"
	"flamekit/internal/testkit/browsertest"
	"flamekit/internal/testkit/night"
)

func TestMain(m *testing.M) {
	code := m.Run()
	night.RemoveShared()
	os.Exit(code)
}

// testNight is the length of the night the tests read: an hour is a
// night for timeslice (over 10 minutes: the overview, a burst to find
// among thousands of seconds) at a twelfth of the cost of twelve hours,
// which the benchmarks keep (night.TestLength).
const testNight = time.Hour

// sharedNight returns the night of the given length, generated once.
func sharedNight(t testing.TB, length time.Duration) *night.Night {
	t.Helper()
	n, err := night.Shared(length, false)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestNightBursts: on a night of 2-minute recorder windows with one
// planted two-second burst, --bursts names the planted burst first, and
// its command cuts it.
func TestNightBursts(t *testing.T) {
	n := sharedNight(t, testNight)
	code, out, stderr := run(t, "", append([]string{"--bursts"}, n.Files...)...)
	if code != 0 {
		t.Fatal(stderr)
	}
	t.Logf("%s%s", stderr, out)
	first, _, _ := strings.Cut(out, "\n")
	m := regexp.MustCompile(` @([0-9.]+) to @([0-9.]+) = .*  top: \d+% flamekit_burst[,;].*\|  (timeslice .*)$`).FindStringSubmatch(first)
	if m == nil {
		t.Fatalf("the first line is not the planted burst: %q", first)
	}
	if from, to := sec(m[1]), sec(m[2]); from > n.BurstFrom || to <= n.BurstTo || to-from > sec("2.4") {
		t.Errorf("first burst @%v to @%v, the planted one @%v to @%v", from, to, n.BurstFrom, n.BurstTo)
	}
	cmd := strings.Fields(m[3])
	if len(cmd) != 7 || !filepath.IsAbs(cmd[6]) {
		t.Errorf("the command should name the one file that holds the burst, by its absolute path: %q", m[3])
	}
	code, slice, stderr := run(t, "", cmd[1:]...)
	if code != 0 {
		t.Fatal(stderr)
	}
	if s := share(profile(t, slice), night.BurstComm); s < 0.9 {
		t.Errorf("the burst's process is %.2f of the slice the command cuts", s)
	}
}

// nightMap writes the heat map of the night into a file and returns its
// path.
func nightMap(t testing.TB, n *night.Night) string {
	t.Helper()
	var out, errb strings.Builder
	code := runTo(&out, &errb, append([]string{"--heatmap", "--no-idle"}, n.Files...)...)
	if code != 0 {
		t.Fatal(errb.String())
	}
	path := filepath.Join(t.TempDir(), "night.svg")
	if err := os.WriteFile(path, []byte(out.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestNightInBrowser opens the heat map of a night in Chromium and finds
// the planted burst by clicks alone: its mark on the overview opens the
// sub-second map of its stretch; a click on the first cell of its mark
// there and one on the last give the timeslice command; the command
// cuts a slice that is the burst. It asserts nothing about time; it logs
// the load and click times (BenchmarkNightInBrowser measures them).
func TestNightInBrowser(t *testing.T) {
	n := sharedNight(t, testNight)
	b := browsertest.New(t)
	path := nightMap(t, n)
	st, _ := os.Stat(path)
	load := b.Open(t, "file://"+path)

	// The overview: the first mark is the first burst's.
	var box [4]float64
	b.Eval(t, `(() => { const r = document.querySelector("#ogrid rect.mark").getBBox(); return [r.x, r.y, r.width, r.height]; })()`, &box)
	x, y := b.Center(t, box[0]+box[2]/2, box[1]+box[3]/2)
	overview := b.Click(t, x, y)
	var head string
	b.Eval(t, `document.getElementById("dhead").textContent`, &head)
	burstSec := int64((n.BurstFrom - n.First) / 1e9)
	var lo, hi int64
	if _, err := fmt.Sscanf(head, "Sub-second map of seconds %d to %d", &lo, &hi); err != nil || burstSec < lo || burstSec+2 > hi {
		t.Fatalf("after the click on the overview, the sub-second map shows %q, not second %d", head, burstSec)
	}

	// The burst's outline in the stretch: its first cell is the bottom of
	// its first column, its last the top of its last.
	var cells [][4]float64
	b.Eval(t, `Array.from(document.querySelectorAll("#dmarks rect")).map(r => { const b = r.getBBox(); return [b.x, b.y, b.width, b.height]; })`, &cells)
	if len(cells) == 0 {
		t.Fatal("no burst outlined in the sub-second map")
	}
	var ch float64
	b.Eval(t, `hmData.detail.ch`, &ch)
	firstCol, lastCol := cells[0], cells[0]
	for _, c := range cells {
		if c[0] < firstCol[0] {
			firstCol = c
		}
		if c[0] > lastCol[0] {
			lastCol = c
		}
	}
	x1, y1 := b.Center(t, firstCol[0]+firstCol[2]/2, firstCol[1]+firstCol[3]-ch/2)
	x2, y2 := b.Center(t, lastCol[0]+lastCol[2]/2, lastCol[1]+ch/2)
	start := b.Click(t, x1, y1)
	end := b.Click(t, x2, y2)
	var cmd, note string
	b.Eval(t, `document.getElementById("cmd").textContent`, &cmd)
	b.Eval(t, `document.getElementById("copied").textContent`, &note)
	t.Logf("night map: %d bytes; load %v, click on the overview %v, start cell %v, end cell %v",
		st.Size(), load.Round(time.Millisecond), overview.Round(time.Millisecond), start.Round(time.Millisecond), end.Round(time.Millisecond))
	t.Logf("command: %s\n%s", cmd, note)

	// Run the command: the slice is the burst, and holds the samples the
	// selected cells count.
	f := strings.Fields(cmd)
	if len(f) < 7 || f[0] != "timeslice" || f[5] != "--no-idle" {
		t.Fatalf("command %q", cmd)
	}
	code, slice, stderr := run(t, "", f[1:]...)
	if code != 0 {
		t.Fatal(stderr)
	}
	if s := share(profile(t, slice), night.BurstComm); s < 0.9 {
		t.Errorf("the burst's process is %.2f of the slice", s)
	}
	m := regexp.MustCompile(`^(\d+) samples in the range`).FindStringSubmatch(note)
	if m == nil {
		t.Fatalf("no sample count in %q", note)
	}
	want, _ := strconv.ParseInt(m[1], 10, 64)
	if got := samples(t, stderr); got != want {
		t.Errorf("the command cuts %d samples, the selection counts %d", got, want)
	}
	if got := samples(t, stderr); got < int64(n.BurstSamples) {
		t.Errorf("the slice holds %d samples, the burst alone %d", got, n.BurstSamples)
	}
}

// BenchmarkNightInBrowser measures, in Chromium, the load of a night's
// heat map and the clicks that lead to the burst: load-ms from navigation
// to the first painted frame, init-ms of that in the map's script, and
// click-ms per click (on the overview, on a start cell, on an end cell)
// until the next painted frame. Noisy on a shared machine.
// FLAMEKIT_NIGHT_SVG=file.svg measures that map instead of generating a
// night (scripts/bench).
func BenchmarkNightInBrowser(b *testing.B) {
	path := os.Getenv("FLAMEKIT_NIGHT_SVG")
	if path == "" {
		path = nightMap(b, sharedNight(b, night.TestLength()))
	}
	br := browsertest.New(b)
	var load, click time.Duration
	var initMs float64
	clicks := 0
	for b.Loop() {
		br.Open(b, "about:blank")
		load += br.Open(b, "file://"+path)
		var ms float64
		br.Eval(b, `hm.initMs`, &ms)
		initMs += ms
		var box [4]float64
		br.Eval(b, `(() => { const r = document.querySelector("#ogrid rect.mark").getBBox(); return [r.x, r.y, r.width, r.height]; })()`, &box)
		x, y := br.Center(b, box[0]+box[2]/2, box[1]+box[3]/2)
		click += br.Click(b, x, y)
		var cell [4]float64
		br.Eval(b, `(() => { const r = document.querySelector("#dmarks rect").getBBox(); return [r.x, r.y, r.width, r.height]; })()`, &cell)
		x, y = br.Center(b, cell[0]+cell[2]/2, cell[1]+cell[3]/2)
		click += br.Click(b, x, y)
		click += br.Click(b, x, y)
		clicks += 3
	}
	b.ReportMetric(float64(load.Microseconds())/1e3/float64(b.N), "load-ms")
	b.ReportMetric(initMs/float64(b.N), "init-ms")
	b.ReportMetric(float64(click.Microseconds())/1e3/float64(clicks), "click-ms")
	st, _ := os.Stat(path)
	b.ReportMetric(float64(st.Size()), "svg-bytes")
}

// BenchmarkNightHeatmap measures timeslice --heatmap --no-idle over a
// night of recorder windows.
func BenchmarkNightHeatmap(b *testing.B) {
	n := sharedNight(b, night.TestLength())
	args := append([]string{"-q", "--heatmap", "--no-idle"}, n.Files...)
	for b.Loop() {
		var out, errb strings.Builder
		if code := runTo(&out, &errb, args...); code != 0 {
			b.Fatal(errb.String())
		}
		b.ReportMetric(float64(out.Len()), "svg-bytes")
	}
}

// runTo runs timeslice with empty standard input.
func runTo(stdout, stderr io.Writer, args ...string) int {
	return cli.Run("timeslice", description, &command{}, args, strings.NewReader(""), stdout, stderr)
}
