package heatmap

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"flamekit/internal/testkit/browsertest"
	"flamekit/pkg/folded"
	"flamekit/pkg/timeline/gaps"
)

func writeSVG(t *testing.T, g *Grid, info Info) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "heat.svg")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.WriteSVG(f, info); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return "file://" + path
}

// cellCenter returns the page position of the centre of detail cell
// (second s, row r) of the stretch shown.
func cellCenter(t *testing.T, b *browsertest.Browser, s int64, r int) (float64, float64) {
	var xy [2]float64
	b.Eval(t, fmt.Sprintf(`(() => { const d = hmData.detail; return [d.x0 + (%d - hm.start) * d.cw + d.cw / 2, d.y0 + (hm.rows - 1 - %d) * d.ch + d.ch / 2]; })()`, s, r), &xy)
	return b.Center(t, xy[0], xy[1])
}

func text(t *testing.T, b *browsertest.Browser, id string) string {
	var s string
	b.Eval(t, fmt.Sprintf(`document.getElementById(%q).textContent`, id), &s)
	return s
}

// The small map in a real browser: hover, a selection by two clicks, the
// command, Escape, and a range given in the address.
func TestBrowserSmallMap(t *testing.T) {
	b := browsertest.New(t)
	g := smallGrid()
	u := writeSVG(t, g, Info{Title: "test", Args: " --no-idle", Inputs: []Source{
		{Arg: "'/data/my file.folded'", First: sec("100.25"), Last: sec("105.9"), HasSpan: true},
		{Arg: "/data/other.folded", First: sec("200"), Last: sec("300"), HasSpan: true},
	}})
	b.Open(t, u)
	x, y := cellCenter(t, b, 2, 12)
	b.Do(t, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, x, y, chromedp.ButtonNone))
	if got := text(t, b, "details"); !strings.HasPrefix(got, "second 2, 240 ms (2.24s after the first sample): ") || !strings.Contains(got, "@102.490000") {
		t.Errorf("hover details %q", got)
	}
	b.Click(t, x, y)
	if got := text(t, b, "cmd"); !strings.HasPrefix(got, "Start: second 2, 240 ms.") {
		t.Errorf("after the first click: %q", got)
	}
	x2, y2 := cellCenter(t, b, 2, 17)
	b.Click(t, x2, y2)
	want := "timeslice --from @102.490000 --to @102.610000 --no-idle '/data/my file.folded'"
	if got := text(t, b, "cmd"); got != want {
		t.Errorf("command %q, want %q", got, want)
	}
	var n int64
	for r := 12; r <= 17; r++ {
		n += int64(g.Count(2, r))
	}
	if got := text(t, b, "copied"); !strings.HasPrefix(got, fmt.Sprintf("%d samples in the range, 2.24s to 2.36s after the first sample (--from 2.24s --to 2.36s).", n)) {
		t.Errorf("note %q, want %d samples", got, n)
	}
	var sel int
	b.Eval(t, `document.querySelectorAll("#sel rect").length`, &sel)
	if sel != 1 {
		t.Errorf("%d selection rectangles, want 1", sel)
	}
	b.Do(t, chromedp.KeyEvent(kb.Escape))
	b.Eval(t, `document.querySelectorAll("#sel rect").length`, &sel)
	if sel != 0 {
		t.Errorf("Escape left %d selection rectangles", sel)
	}
	// #range=S1:R1-S2:R2, end before start (a new page: a change of the
	// address's fragment alone does not load it again).
	b.Open(t, "about:blank")
	b.Open(t, u+"#range=3:10-1:45")
	if got := text(t, b, "cmd"); got != "timeslice --from @102.150000 --to @103.470000 --no-idle '/data/my file.folded'" {
		t.Errorf("#range: %q", got)
	}
}

// The canvas shows the cells in the colours of the static image, and a
// range's total is the sum of its cells, counted partly from the
// overview, on a two-hour map.
func TestBrowserLongMap(t *testing.T) {
	b := browsertest.New(t)
	rng := rand.New(rand.NewPCG(9, 10))
	origin := sec("1000.5")
	m := New(DefaultRows, origin)
	for i := 0; i < 100000; i++ {
		m.Add(origin + folded.Time(rng.Int64N(7200e9)))
	}
	g := m.Grid()
	mark := Mark{From: origin + sec("3000.3"), To: origin + sec("3002.5"), Label: "planted"}
	b.Open(t, writeSVG(t, g, Info{Title: "long", Marks: []Mark{mark}}))
	var start int64
	b.Eval(t, `hm.start`, &start)
	if start != 2850 {
		t.Errorf("the first stretch starts at second %d, want 2850 (the mark's, centred)", start)
	}
	// Pixels of the canvas against the palette.
	var px [][3]int
	b.Eval(t, `(() => { const d = hmData.detail, ctx = hm.canvas.getContext("2d"), out = [];
		for (let c = 0; c < d.cols; c += 7) for (let r = 0; r < hm.rows; r += 3) {
			const p = ctx.getImageData(c * d.cw + 1, (hm.rows - 1 - r) * d.ch + 1, 1, 1).data; out.push([p[0], p[1], p[2]]); }
		return out; })()`, &px)
	pal := Palette()
	i := 0
	for c := 0; c < StretchSeconds; c += 7 {
		for r := 0; r < g.Rows; r += 3 {
			want := pal[Level(int64(g.Count(int(start)+c, r)), int64(g.Max))]
			if got := px[i]; got != [3]int{int(want.R), int(want.G), int(want.B)} {
				t.Fatalf("cell (%d, %d): canvas %v, want %v", int(start)+c, r, got, want)
			}
			i++
		}
	}
	// Range totals, with whole overview rows inside.
	for _, rg := range [][4]int{{10, 5, 7000, 40}, {0, 0, 7199, 49}, {2851, 3, 2851, 40}, {100, 49, 101, 0}, {119, 0, 242, 10}} {
		var got int64
		b.Eval(t, fmt.Sprintf(`rangeTotal({s: %d, r: %d}, {s: %d, r: %d})`, rg[0], rg[1], rg[2], rg[3]), &got)
		var want int64
		for c := rg[0]; c <= rg[2]; c++ {
			for r := 0; r < g.Rows; r++ {
				if (c > rg[0] || r >= rg[1]) && (c < rg[2] || r <= rg[3]) {
					want += int64(g.Count(c, r))
				}
			}
		}
		if got != want {
			t.Errorf("range %v: %d samples in the browser, %d in the grid", rg, got, want)
		}
	}
	// A click on the overview opens the stretch around it.
	var xy [2]float64
	b.Eval(t, `(() => { const o = hmData.ov; return [o.x0 + Math.floor((5000 - o.first) / o.len) * o.cw + 1, o.y0 + 100]; })()`, &xy)
	x, y := b.Center(t, xy[0], xy[1])
	b.Click(t, x, y)
	b.Eval(t, `hm.start`, &start)
	if start > 5000 || start+StretchSeconds <= 5000 {
		t.Errorf("after a click on the overview at second 5000, the stretch starts at %d", start)
	}
	if h := text(t, b, "dhead"); !strings.HasPrefix(h, fmt.Sprintf("Sub-second map of seconds %d to %d", start, start+StretchSeconds-1)) {
		t.Errorf("header %q", h)
	}
}

// The cells not recorded, in a browser: hatched in every stretch the
// script draws (the same cells as Go's), "not recorded" on hover, and the
// time not recorded in an overview cell's details.
func TestBrowserUnrecorded(t *testing.T) {
	b := browsertest.New(t)
	rng := rand.New(rand.NewPCG(11, 12))
	origin := sec("1000.5")
	m := New(DefaultRows, origin)
	hole := gaps.Span{From: origin + sec("4000"), To: origin + sec("4600")}
	short := gaps.Span{From: origin + sec("3001.2"), To: origin + sec("3002.45")}
	for i := 0; i < 100000; i++ {
		at := origin + folded.Time(rng.Int64N(7200e9))
		if at >= hole.From && at < hole.To || at >= short.From && at < short.To {
			continue
		}
		m.Add(at)
	}
	g := m.Grid()
	g.SetUnrecorded([]gaps.Span{hole, short})
	b.Open(t, writeSVG(t, g, Info{Title: "long, with holes"}))
	for _, start := range []int64{2900, 3900, 4400} {
		b.Eval(t, fmt.Sprintf(`show(%d)`, start), nil)
		var n int
		b.Eval(t, `document.querySelectorAll("#dunrec rect").length`, &n)
		if want := len(g.unrecordedSegments(start, StretchSeconds)); n != want || n == 0 {
			t.Errorf("stretch at %d: %d hatched runs in the browser, %d in Go", start, n, want)
		}
	}
	b.Eval(t, `show(2900)`, nil)
	x, y := cellCenter(t, b, 3001, 30) // 3001.6 s: in the short hole
	b.Do(t, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, x, y, chromedp.ButtonNone))
	if got := text(t, b, "details"); !strings.HasPrefix(got, "second 3001, 600 ms (3001.6s after the first sample): not recorded") {
		t.Errorf("hover details in the hole: %q", got)
	}
	var xy [2]float64
	b.Eval(t, `(() => { const o = hmData.ov; return [o.x0 + Math.floor((4200 - o.first) / o.len) * o.cw + 1, o.y0 + 100]; })()`, &xy)
	x, y = b.Center(t, xy[0], xy[1])
	b.Do(t, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, x, y, chromedp.ButtonNone))
	if got := text(t, b, "details"); !strings.Contains(got, "s of it not recorded)") {
		t.Errorf("overview hover in the hole: %q", got)
	}
}
