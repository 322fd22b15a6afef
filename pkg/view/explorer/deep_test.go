package explorer

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

	"flamekit/pkg/timeline"
)

// frameH is the height of a row of frames (flame.js: FRAME_H).
const frameH = 16.0

// graphView is what the page shows of a deep flame graph: the graph's
// height, the canvas's and the box's, and how far the box is scrolled.
type graphView struct {
	Graph, Canvas, Box, Scroll, ScrollTop, Top float64
}

const readGraphView = `new Promise(r => requestAnimationFrame(() => setTimeout(() => {
	const c = UI.flameCanvas, box = c.parentNode;
	r({graph: UI.flame.cssH, canvas: c.getBoundingClientRect().height, box: box.clientHeight, scroll: box.scrollHeight, scrollTop: box.scrollTop, top: UI.flame.top});
}, 0)))`

// pixelAt is the colour the flame canvas shows at a point of the window,
// as "rgb(r,g,b)".
func pixelAt(x, y float64) string {
	return fmt.Sprintf(`(() => { const c = UI.flameCanvas, b = c.getBoundingClientRect(), d = devicePixelRatio || 1;
		const p = c.getContext("2d").getImageData(Math.floor((%g - b.left) * d), Math.floor((%g - b.top) * d), 1, 1).data;
		return "rgb(" + p[0] + "," + p[1] + "," + p[2] + ")"; })()`, x, y)
}

// A stack of 128 frames (issue 29: the canvas was 2,072 px tall and the
// labelled frames began 1,900 px below the top of a 900 px window): the
// graph scrolls in its box with its base in view; its canvas is no taller
// than the box (a canvas as tall as the graph cost Chromium more to
// allocate and paint than the drawing); a scroll draws the rows then in
// view, and hover and click find the frame under the mouse at any scroll.
func TestDeepStackInView(t *testing.T) {
	var deep []string
	for i := range 128 {
		deep = append(deep, fmt.Sprintf("d%d", i))
	}
	var in strings.Builder
	in.WriteString("# flamekit v1 timed\n")
	for i := range 20 {
		fmt.Fprintf(&in, "%s 5 @%d.000000 cpu=0\n", strings.Join(deep, ";"), 100+i%5)
		fmt.Fprintf(&in, "s0;s1 3 @%d.500000 cpu=1\n", 100+i%5)
	}
	tl, skips, err := readTimeline(strings.NewReader(in.String()), "deep", timeline.Options{})
	if err != nil || skips.Count > 0 {
		t.Fatal(err, skips)
	}
	page := pageFile(t, "deep.html", tl, Options{Files: []string{"deep.folded"}})
	b := newBrowser(t, 1200, 900)
	// The page opened without a selection draws a graph off screen on
	// the graph's canvas (warmUp), at the size the box shows: the first
	// selection finds it allocated (a new canvas of a million pixels cost
	// Chromium tens of ms).
	b.open(t, "file://"+page)
	var before, after []int
	const backing = `[UI.flameCanvas.width, UI.flameCanvas.height]`
	b.Eval(t, backing, &before)
	b.Eval(t, `new Promise(r => { addEventListener("hashchange", () => setTimeout(() => r(true), 0), {once: true}); location.hash = "#from=0s&to=10s"; })`, nil)
	b.Eval(t, backing, &after)
	if !slices.Equal(before, after) {
		t.Errorf("the first selection made the canvas %v, the warm-up %v", after, before)
	}

	var v graphView
	b.Eval(t, readGraphView, &v)
	if v.Graph != 129*frameH+8 {
		t.Errorf("graph %v px tall, want %v (128 frames and the root)", v.Graph, 129*frameH+8)
	}
	if v.Canvas > v.Box || v.Box >= v.Graph || v.Scroll != v.Graph {
		t.Errorf("canvas %v px, box %v px, its scroll height %v px: want a canvas no taller than the box, which scrolls the graph's %v px", v.Canvas, v.Box, v.Scroll, v.Graph)
	}
	if math.Abs(v.ScrollTop-(v.Scroll-v.Box)) > 1 || math.Abs(v.Top-v.ScrollTop) > 1 {
		t.Errorf("box scrolled to %v, drawn from %v: want the base in view (%v)", v.ScrollTop, v.Top, v.Scroll-v.Box)
	}

	// frameColor is the colour the graph gives a frame
	frameColor := func(name string) string {
		var c string
		b.Eval(t, fmt.Sprintf(`(() => { const g = UI.flame.g; for (let i = 0; i < g.n; i++) if (g.label(i) === %q) return g.color[i]; return ""; })()`, name), &c)
		return c
	}
	// a scroll of the box (as the wheel scrolls it) draws the rows then
	// in view: the top
	b.Eval(t, `(() => { document.getElementById("flamewrap").scrollTop = 0; return true; })()`, nil)
	b.Eval(t, readGraphView, &v)
	if v.ScrollTop != 0 || v.Top != 0 {
		t.Errorf("scrolled to the top: box at %v, drawn from %v", v.ScrollTop, v.Top)
	}
	var top []float64
	b.Eval(t, `(() => { const r = UI.flameCanvas.getBoundingClientRect(); return [r.left + r.width / 2, r.top + 4 + 2]; })()`, &top)
	var px string
	b.Eval(t, pixelAt(top[0], top[1]), &px)
	if want := frameColor("d127"); px != want {
		t.Errorf("the top row after a scroll is drawn %s, want d127's %s", px, want)
	}
	// hover, then the colour under the mouse, of the top, the middle and
	// the base (framePoint scrolls the box to the frame)
	for _, name := range []string{"d127", "d64", "d0"} {
		x, y := b.point(t, fmt.Sprintf(`flamekit.framePoint(%q)`, name))
		b.Do(t, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, x, y))
		if d := b.text(t, "details"); !strings.HasPrefix(d, name+" — ") {
			t.Errorf("hovering %s: %q", name, d)
		}
		var px string
		b.Eval(t, pixelAt(x, y-frameH/2+2), &px)
		if want := frameColor(name); px != want {
			t.Errorf("%s is drawn %s under the mouse, want %s", name, px, want)
		}
	}
	// a click zooms to the frame under the mouse
	x, y := b.point(t, `flamekit.framePoint("d100")`)
	b.Click(t, x, y)
	var zoomed string
	b.Eval(t, `UI.flame.zoom >= 0 ? UI.flame.g.label(UI.flame.zoom) : ""`, &zoomed)
	if zoomed != "d100" {
		t.Errorf("a click on d100 zoomed to %q", zoomed)
	}
}
