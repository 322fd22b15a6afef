package explorer

import (
	"cmp"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

	"flamekit/pkg/folded"
	"flamekit/pkg/view/flamegraph"
)

type chartBox struct {
	Name       string
	Start, End float64
	Depth      int32
	Samples    int
	Lane       bool
}

type pageChart struct {
	X0, Interval float64
	Boxes        []chartBox
	Window       []float64
	Details      string
	Axis         [][3]any // the time axis's labels: x, width, text
	Width        float64  // the canvas's CSS width
}

// checkAxis fails unless the chart's time axis has labels, each inside the
// axis (10 px margins) and apart from the one before.
func checkAxis(t *testing.T, c pageChart, when string) {
	t.Helper()
	if len(c.Axis) < 2 {
		t.Errorf("%s: the time axis has %d labels", when, len(c.Axis))
	}
	end := 10.0
	for _, l := range c.Axis {
		x, w := l[0].(float64), l[1].(float64)
		if x < end || x+w > c.Width-10 {
			t.Errorf("%s: axis label %v at %.1f-%.1f, outside %.0f-%.0f or over the one before", when, l[2], x, x+w, end, c.Width-10)
		}
		end = x + w
	}
}

// The flame chart as a user gets it: select the burst, click "Flame
// chart". A lane per thread of the capture (labelled with its process,
// pid and tid), every box at its samples' own times: the boxes are
// flamegraph.LayoutChart's of the samples the command gives, and the
// boxes' starts are samples' times; hover says the function, its duration
// and samples; a click zooms the time axis to the box.
func TestFlameChartPerThread(t *testing.T) {
	in := foldedFile(t, "burst")
	page := filepath.Join(shared, "chart.html")
	shell(t, "timeslice -q --heatmap=html --no-idle "+in+" > "+page)
	b := newBrowser(t, 1400, 1000)
	b.open(t, "file://"+page)
	x, y := b.point(t, `flamekit.cellPoint(0, 13.8e9)`)
	b.Click(t, x, y)
	x, y = b.point(t, `flamekit.cellPoint(0, 15.79e9)`)
	b.Click(t, x, y)
	b.clickID(t, "view-chart")
	if st := b.state(t); st.View != "chart" || !strings.HasPrefix(st.Fragment, "from=13.8s&to=15.8s&no-idle") {
		t.Fatalf("state after clicking Flame chart: %+v", st)
	}
	// the selection's weight in the top table's unit (issue 29)
	if st := b.text(t, "status"); !regexp.MustCompile(`: [0-9,]+ samples, [0-9.]+(s|ms) of cpu-clock`).MatchString(st) {
		t.Errorf("status %q: no weight in seconds", st)
	}
	var got pageChart
	b.Eval(t, `flamekit.chart()`, &got)
	if len(got.Boxes) < 2 {
		t.Fatalf("the chart has %d boxes", len(got.Boxes))
	}
	checkAxis(t, got, "the chart")

	// The samples the page's command gives, as LayoutChart lays them out.
	cmd, _, _ := strings.Cut(b.text(t, "cmd"), "   # ")
	pipe := cmd[:strings.LastIndex(cmd, " | flamegraph")]
	lines, _ := readTimedRecords(t, shell(t, pipe))
	slices.SortStableFunc(lines, func(a, b flamegraph.ChartSample) int { return cmp.Compare(a.Time, b.Time) }) // as flamegraph reads them
	want := flamegraph.LayoutChart(lines)
	if len(want.Nodes) != len(got.Boxes) {
		t.Fatalf("the page draws %d boxes, LayoutChart of its command's %d samples %d", len(got.Boxes), len(lines), len(want.Nodes))
	}
	threads := map[string]bool{}
	for _, s := range lines {
		comm, _, _ := strings.Cut(s.Stack, ";")
		switch s.Has & (folded.HasPID | folded.HasTID) {
		case folded.HasPID | folded.HasTID:
			comm += fmt.Sprintf(" %d/%d", s.PID, s.TID)
		case folded.HasPID:
			comm += fmt.Sprintf(" %d", s.PID)
		case folded.HasTID:
			comm += fmt.Sprintf(" %d", s.TID)
		}
		threads[comm] = true
	}
	lanes := 0
	for i, n := range want.Nodes {
		g := got.Boxes[i]
		if g.Name != n.Name && i > 0 || g.Start != n.Start || g.End != n.End || g.Depth != n.Depth {
			t.Errorf("box %d: page %+v, LayoutChart %+v", i, g, n)
		}
		if g.Lane {
			lanes++
			if !threads[g.Name] {
				t.Errorf("lane %q is no thread of the samples", g.Name)
			}
		}
	}
	if lanes != len(threads) || lanes < 2 {
		t.Errorf("%d lanes for %d threads", lanes, len(threads))
	}
	// every box starts at a sample's own time
	at := map[float64]bool{}
	first := lines[0].Time
	for _, s := range lines {
		at[float64(s.Time-first)] = true
	}
	for i, g := range got.Boxes[1:] {
		if !at[g.Start] {
			t.Errorf("box %d (%s) starts at %v ns, no sample's time", i+1, g.Name, g.Start)
		}
	}

	// Hover the burst's function, then click it: the time axis shows its
	// span.
	best := -1
	for i, g := range got.Boxes {
		if g.Name == "burst_spin" && (best < 0 || g.End-g.Start > got.Boxes[best].End-got.Boxes[best].Start) {
			best = i
		}
	}
	if best < 0 {
		t.Fatalf("no burst_spin box")
	}
	x, y = b.point(t, `flamekit.framePoint("burst_spin")`)
	b.Do(t, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, x, y))
	var hover pageChart
	b.Eval(t, `flamekit.chart()`, &hover)
	bx := got.Boxes[best]
	// the duration and its share of the chart, as the SVG's title says
	// them ("burst_spin (N ns, P%)")
	if want := fmt.Sprintf("burst_spin — %s (%.2f%%), %d samples, ", durLabel(bx.End-bx.Start), 100*(bx.End-bx.Start)/got.Boxes[0].End, bx.Samples); !strings.HasPrefix(hover.Details, want) {
		t.Errorf("hovering burst_spin: %q, want %q…", hover.Details, want)
	}
	b.Click(t, x, y)
	var zoomed pageChart
	b.Eval(t, `flamekit.chart()`, &zoomed)
	if len(zoomed.Window) != 2 || zoomed.Window[0] != bx.Start || zoomed.Window[1] != bx.End-bx.Start {
		t.Errorf("after a click on burst_spin the window is %v, want [%v %v]", zoomed.Window, bx.Start, bx.End-bx.Start)
	}
	checkAxis(t, zoomed, "zoomed to burst_spin")

	// More threads than the chart's rows: it draws the busiest, says so,
	// and its command selects their threads, so that its SVG is still the
	// command's.
	b.Eval(t, `(() => { CHART_ROWS = 12; update("view"); return true; })()`, nil)
	if head := b.text(t, "graph-head"); !strings.Contains(head, ", the busiest: ") {
		t.Errorf("a cut chart's heading: %q", head)
	}
	// the status line gives the chart's samples beside the selection's:
	// the command's
	var drawn pageChart
	b.Eval(t, `flamekit.chart()`, &drawn)
	if st, want := b.text(t, "status"), fmt.Sprintf("The chart draws %s of them, the ", commas(float64(drawn.Boxes[0].Samples))); !strings.Contains(st, want) {
		t.Errorf("a cut chart's status %q lacks %q", st, want)
	}
	cmd, _, _ = strings.Cut(b.text(t, "cmd"), "   # ")
	if !strings.Contains(cmd, " --tid ") {
		t.Errorf("a cut chart's command selects no threads: %s", cmd)
	}
	if got, want := b.download(t, "save-svg"), string(shell(t, strings.TrimSuffix(cmd, " > chart.svg"))); got != want {
		t.Errorf("a cut chart's SVG differs from %q: %s", cmd, firstDiff(got, want))
	}
}

// readTimedRecords reads timed folded lines as chart samples.
func readTimedRecords(t testing.TB, text []byte) ([]flamegraph.ChartSample, error) {
	t.Helper()
	rd := folded.NewReader(strings.NewReader(string(text)), "in")
	var out []flamegraph.ChartSample
	for rd.Next() {
		r := rd.Record()
		if r.Kind == folded.Timed {
			out = append(out, flamegraph.ChartSample{Time: r.Time, PID: r.PID, TID: r.TID, Has: r.Has, Stack: string(r.Stack)})
		}
	}
	if err := rd.Err(); err != nil {
		t.Fatal(err)
	}
	return out, nil
}

// durLabel prints ns as the chart's tooltip does (pprof's units, as
// stacktop: two decimals, no ".00").
func durLabel(ns float64) string {
	v, u := ns, "ns"
	for _, s := range []struct {
		f float64
		u string
	}{{1e3, "us"}, {1e6, "ms"}, {1e9, "s"}} {
		if ns >= s.f {
			v, u = ns/s.f, s.u
		}
	}
	return strings.TrimSuffix(fmt.Sprintf("%.2f", v), ".00") + u
}
