package svg

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"flamekit/internal/testkit/browsertest"
	"flamekit/pkg/folded"
	"flamekit/pkg/view/flamegraph"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// browser is a headless Chromium (see internal/testkit/browsertest).
type browser struct{ *browsertest.Browser }

func newBrowser(t testing.TB) *browser { return &browser{browsertest.NewSize(t, 1300, 900)} }

func (b *browser) setAnswer(s string) { b.SetAnswer(s) }

func (b *browser) dialogCount() int { return b.Dialogs() }

func (b *browser) run(t testing.TB, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	b.Do(t, actions...)
}

func eval[T any](t testing.TB, b *browser, js string) T {
	t.Helper()
	return browsertest.Evaluate[T](t, b.Browser, js)
}

func (b *browser) eval(t testing.TB, js string, out any) {
	t.Helper()
	b.Eval(t, js, out)
}

// writeSVG renders lines of folded text into a file and returns its URL.
func writeSVG(t testing.TB, folded string, o Options) string {
	t.Helper()
	dir := t.TempDir()
	in := filepath.Join(dir, "in.folded")
	if err := os.WriteFile(in, []byte(folded), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.svg")
	if err := os.WriteFile(out, draw(t, in, o, flamegraph.Rewrite{}, false), 0o644); err != nil {
		t.Fatal(err)
	}
	return "file://" + out
}

const clickable = `a;b 1
a;c 2
d 1
`

// frameJS finds the drawn (visible) frame whose tooltip starts with
// name+" (".
func frameJS(name string) string {
	return fmt.Sprintf(`Array.from(document.querySelectorAll("#frames > g > *")).find(g => g.getBoundingClientRect().width > 0 && `+tipJS+`(g).startsWith(%q))`, name+" (")
}

// tipJS is a function of a frame element that returns its tooltip: its
// <title> (frames written by Render, or hovered), or what the script
// writes there on the first hover.
const tipJS = `(g => g.firstElementChild.tagName === "title" ? g.firstElementChild.textContent : tooltip(g.fgi))`

func TestBrowserInteractions(t *testing.T) {
	b := newBrowser(t)
	u := writeSVG(t, clickable, DefaultOptions())
	b.run(t, chromedp.Navigate(u))

	// hover
	var details string
	b.eval(t, frameJS("c")+`.querySelector("rect").dispatchEvent(new MouseEvent("mouseover", {bubbles: true})); document.getElementById("details").textContent`, &details)
	if details != "Function: c (2 samples, 50.00%)" {
		t.Errorf("hover details = %q", details)
	}

	// click to zoom on "a" (a real mouse click in the middle of its rect)
	var box []float64
	b.eval(t, `(() => { const r = `+frameJS("a")+`.querySelector("rect").getBoundingClientRect(); return [r.x + r.width/2, r.y + r.height/2]; })()`, &box)
	b.run(t, chromedp.MouseClickXY(box[0], box[1]))
	var state struct {
		Unzoom   bool
		Search   string
		CLeft    float64
		CWidth   float64
		AtD      string
		Labels   []string
		Parent   bool
		ViewBoxW float64
	}
	stateJS := `(() => {
		const rc = ` + frameJS("c") + `.querySelector("rect").getBoundingClientRect();
		const el = document.elementFromPoint(1000, ` + frameJS("a") + `.querySelector("rect").getBoundingClientRect().y + 5);
		const g = el && el.closest("#frames > g > *");
		return {
			unzoom: !document.getElementById("unzoom").classList.contains("hide"),
			search: location.search,
			cLeft: rc.left, cWidth: rc.width,
			atD: g ? ` + tipJS + `(g) : "",
			labels: Array.from(document.querySelectorAll("text")).filter(t => t.getBoundingClientRect().width > 0 && !t.id).map(t => t.textContent),
			parent: ` + frameJS("all") + `.classList.contains("parent"),
		};
	})()`
	b.eval(t, stateJS, &state)
	if !state.Unzoom || !strings.Contains(state.Search, "x=10") || !strings.Contains(state.Search, "y=53") {
		t.Errorf("after zoom: unzoom shown %v, URL query %q", state.Unzoom, state.Search)
	}
	// a (885 px wide) now spans 1180 px: c was 305..895, now 10+295*4/3..1190
	if d := state.CLeft - (10 + 295*1180.0/885); d > 1 || d < -1 {
		t.Errorf("after zoom: c starts at %v px", state.CLeft)
	}
	if d := state.CWidth - 590*1180.0/885; d > 1 || d < -1 {
		t.Errorf("after zoom: c is %v px wide", state.CWidth)
	}
	if strings.HasPrefix(state.AtD, "d ") {
		t.Errorf("after zoom: d (outside the zoomed frame) is still visible")
	}
	if !state.Parent {
		t.Errorf("after zoom: root not marked as parent")
	}
	if strings.Join(state.Labels, ",") != "all,a,b,c" {
		t.Errorf("after zoom: labels %q, want all,a,b,c", state.Labels)
	}

	// reset zoom
	b.run(t, chromedp.Click(chromedp.CSS("#unzoom")))
	b.eval(t, stateJS, &state)
	if state.Unzoom || strings.Contains(state.Search, "x=") || !strings.HasPrefix(state.AtD, "d ") {
		t.Errorf("after reset: unzoom shown %v, URL %q, frame at d's place %q", state.Unzoom, state.Search, state.AtD)
	}
	if strings.Join(state.Labels, ",") != "a,b,c,d" {
		t.Errorf("after reset: labels %q", state.Labels)
	}

	// search with the button (prompt answered "^C"), then Ctrl-I
	b.setAnswer("^C")
	b.run(t, chromedp.Click(chromedp.CSS("#search")))
	var res struct {
		Fill, Matched, Search, Button string
	}
	resJS := `({fill: ` + frameJS("c") + `.querySelector("rect").getAttribute("fill"),
		matched: document.getElementById("matched").textContent,
		search: location.search, button: document.getElementById("search").textContent})`
	b.eval(t, resJS, &res)
	if res.Fill == Highlight.String() || res.Matched != "Matched: 0.0%" {
		t.Errorf("case-sensitive ^C: %+v", res)
	}
	b.run(t, chromedp.KeyEvent("i", chromedp.KeyModifiers(chromedp.ModifierCtrl))) // Ctrl-I
	b.eval(t, resJS, &res)
	if res.Fill != Highlight.String() || res.Matched != "Matched: 50.0%" || !strings.Contains(res.Search, "s=%5EC") || res.Button != "Reset Search" {
		t.Errorf("after Ctrl-I: %+v", res)
	}
	// zoomed into a, c is 2 of a's 3 samples
	b.eval(t, `clickZoom(`+frameJS("a")+`.fgi); document.getElementById("matched").textContent`, &res.Matched)
	if res.Matched != "Matched: 66.7%" {
		t.Errorf("matched within zoom: %q", res.Matched)
	}
	// Ctrl-F while searching resets the search
	b.run(t, chromedp.KeyEvent("f", chromedp.KeyModifiers(chromedp.ModifierCtrl)))
	b.eval(t, resJS, &res)
	if res.Fill == Highlight.String() || strings.Contains(res.Search, "s=") || res.Button != "Search" {
		t.Errorf("after reset search: %+v", res)
	}
	// F3 opens the prompt again
	n := b.dialogCount()
	b.setAnswer("b")
	b.run(t, chromedp.KeyEvent(kb.F3))
	if b.dialogCount() != n+1 {
		t.Errorf("F3 opened no prompt (%d dialogs)", b.dialogCount())
	}

	// URL state: zoom and search restored on load
	b.run(t, chromedp.Navigate(u+"?x=10.0&y=53&s="+url.QueryEscape("^d$")))
	var drawnD bool
	b.eval(t, `!!`+frameJS("d"), &drawnD)
	b.eval(t, `({matched: document.getElementById("matched").textContent, search: location.search, button: document.getElementById("search").textContent})`, &res)
	if drawnD || res.Matched != "Matched: 0.0%" || res.Button != "Reset Search" {
		// d matches, but it is outside the zoomed frame a: not drawn
		t.Errorf("URL state: d drawn %v, %+v", drawnD, res)
	}
	b.eval(t, stateJS, &state)
	if !state.Unzoom {
		t.Errorf("URL state: not zoomed")
	}
	// reset zoom: d is drawn again, highlighted
	b.run(t, chromedp.Click(chromedp.CSS("#unzoom")))
	b.eval(t, frameJS("d")+`.querySelector("rect").getAttribute("fill")`, &res.Fill)
	if res.Fill != Highlight.String() {
		t.Errorf("after reset with a search: d's fill %q", res.Fill)
	}
}

// TestBrowserBigGraph: a graph with more frames than Options.MaxStatic
// writes only the frames at least 1 px wide; zooming draws the narrower
// ones from the frame data, with the tooltips Render writes, and search
// finds the frames that are not written.
func TestBrowserBigGraph(t *testing.T) {
	const in = "a;b 3000\na;c;x 5\na;c;y 6000\nd 3000\n"
	o := DefaultOptions()
	o.MinWidth = 0
	full := string(draw(t, writeFolded(t, in), o, flamegraph.Rewrite{}, false))
	o.MaxStatic = 1
	b := newBrowser(t)
	b.run(t, chromedp.Navigate(writeSVG(t, in, o)))

	var written int
	b.eval(t, `document.querySelectorAll("#frames > g > *").length`, &written)
	if written != 6 { // all a b c y d, not x (0.49 px)
		t.Errorf("%d frames written, want 6", written)
	}
	// zoom into c: x is 0.98 px wide, drawn, with the tooltip Render writes
	b.eval(t, `clickZoom(`+frameJS("c")+`.fgi); location.search`, new(string))
	var tip string
	b.eval(t, `(() => { const x = `+frameJS("x")+`; x.querySelector("rect").dispatchEvent(new MouseEvent("mouseover", {bubbles: true}));
		return document.getElementById("details").textContent + "|" + x.querySelector("title").textContent; })()`, &tip)
	tip = strings.TrimPrefix(tip, "Function: x (5 samples, 0.04%)|")
	if want := "x (5 samples, 0.04%)"; tip != want || !strings.Contains(full, "<title>"+want+"</title>") {
		t.Errorf("zoomed x: tooltip %q, want %q (as Render writes it)", tip, want)
	}
	var w float64
	b.eval(t, frameJS("x")+`.querySelector("rect").getBoundingClientRect().width`, &w)
	if w < 0.9 || w > 1.1 {
		t.Errorf("zoomed x is %v px wide, want 0.98", w)
	}
	// search finds x, drawn or not
	b.eval(t, `search("^x$"); document.getElementById("matched").textContent`, &tip)
	var fill string
	b.eval(t, frameJS("x")+`.querySelector("rect").getAttribute("fill")`, &fill)
	if tip != "Matched: 0.1%" || fill != Highlight.String() {
		t.Errorf("search in zoom: %q, x's fill %q", tip, fill)
	}
	b.eval(t, `unzoom(); document.getElementById("matched").textContent`, &tip)
	var drawn bool
	b.eval(t, `!!`+frameJS("x"), &drawn)
	if tip != "Matched: 0.0%" || drawn {
		t.Errorf("after reset: %q, x drawn %v", tip, drawn)
	}
	// the URL state zooms into a frame that is not written
	b.eval(t, `clickZoom(`+frameJS("c")+`.fgi); clickZoom(`+frameJS("x")+`.fgi); location.search`, &tip)
	b.run(t, chromedp.Navigate(writeSVG(t, in, o)+tip))
	b.eval(t, `(() => { const l = Array.from(document.querySelectorAll("text")).filter(t => t.getBoundingClientRect().width > 0 && !t.id).map(t => t.textContent); return l.join(","); })()`, &tip)
	if tip != "all,a,c,x" {
		t.Errorf("URL state into x: labels %q, want all,a,c,x", tip)
	}
}

func writeFolded(t testing.TB, text string) string {
	p := filepath.Join(t.TempDir(), "in.folded")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestBrowserHostileNames(t *testing.T) {
	b := newBrowser(t)
	o := DefaultOptions()
	o.Title = `</script><script>window.pwned=6</script>`
	o.NameType = `"; window.pwned=7; "</script>]]>`
	o.CountName = `<b onmouseover="window.pwned=8">`
	o.Notes = `--><script>window.pwned=9</script><!--`
	u := writeSVG(t, hostile, o)
	b.run(t, chromedp.Navigate(u))
	var got struct {
		Pwned   any
		Frames  int
		Scripts int
		Details string
	}
	b.eval(t, `(() => {
		const fr = document.querySelectorAll("#frames > g > *");
		for (const g of fr) g.querySelector("rect").dispatchEvent(new MouseEvent("mouseover", {bubbles: true}));
		search(".");
		clickZoom(1);
		return {pwned: window.pwned === undefined ? null : window.pwned, frames: fr.length,
			scripts: document.getElementsByTagName("script").length,
			details: document.getElementById("details").textContent};
	})()`, &got)
	if got.Pwned != nil || got.Scripts != 1 || b.dialogCount() != 0 {
		t.Errorf("hostile names ran code: pwned=%v scripts=%d dialogs=%d", got.Pwned, got.Scripts, b.dialogCount())
	}
	if got.Frames < 10 {
		t.Errorf("only %d frames drawn", got.Frames)
	}
}

// BenchmarkBrowser draws about 100,000 frames from real stacks and reports
// how long headless Chromium takes to load the SVG and to zoom, reset,
// search and hover (metrics load-ms, zoom-ms ...), checking only that each
// interaction did its job: speed is measured here, never asserted in a
// test. FLAMEKIT_COMPARE_SVG=file.svg also times a flamegraph.pl SVG of the
// same input (its functions zoom, unzoom, search), logged.
//
//	go test -run '^$' -bench Browser -benchtime 3x ./pkg/svg
func BenchmarkBrowser(b *testing.B) {
	br := newBrowser(b)
	dir := b.TempDir()
	path, stacks := writeBig(b, dir, 22500)
	o := DefaultOptions()
	o.MinWidth = 0
	out := draw(b, path, o, flamegraph.Rewrite{}, false)
	svgPath := filepath.Join(dir, "big.svg")
	if err := os.WriteFile(svgPath, out, 0o644); err != nil {
		b.Fatal(err)
	}
	b.Logf("input: %d distinct stacks; SVG: %d bytes", stacks, len(out))
	var sum browserTimes
	n := 0
	for b.Loop() {
		sum.add(timeSVG(b, br, "flamekit", "file://"+svgPath, false))
		n++
	}
	sum.report(b, n)
	if p := os.Getenv("FLAMEKIT_COMPARE_SVG"); p != "" {
		timeSVG(b, br, "compare", "file://"+p, true)
	}
}

// browserTimes are the milliseconds of each interaction of timeSVG.
type browserTimes struct {
	load, zoom, again, reset, search, hover, ctrlI float64
}

func (s *browserTimes) add(o browserTimes) {
	s.load += o.load
	s.zoom += o.zoom
	s.again += o.again
	s.reset += o.reset
	s.search += o.search
	s.hover += o.hover
	s.ctrlI += o.ctrlI
}

func (s *browserTimes) report(b *testing.B, n int) {
	if n == 0 {
		return
	}
	f := float64(n)
	b.ReportMetric(s.load/f, "load-ms")
	b.ReportMetric(s.zoom/f, "zoom-ms")
	b.ReportMetric(s.again/f, "zoom-again-ms")
	b.ReportMetric(s.reset/f, "reset-ms")
	b.ReportMetric(s.search/f, "search-ms")
	b.ReportMetric(s.hover/f, "hover-ms")
	b.ReportMetric(s.ctrlI/f, "ctrl-i-ms")
}

// afterPaint measures a JavaScript statement up to the next painted frame.
const afterPaint = `new Promise(done => { const t0 = performance.now(); %s; requestAnimationFrame(() => setTimeout(() => done(performance.now() - t0), 0)); })`

func timeSVG(t testing.TB, b *browser, label, u string, perl bool) browserTimes {
	start := time.Now()
	b.run(t, chromedp.Navigate(u))
	ms := eval[float64](t, b, fmt.Sprintf(afterPaint, ""))
	load := time.Since(start)
	sel := "#frames > g > *" // flamekit: frames in groups of 256
	if perl {
		sel = "#frames > g"
	}
	frames := eval[int](t, b, `document.querySelectorAll("`+sel+`").length`)
	// zoom target: the widest frame at depth 3 (a process's third frame)
	pick := `(() => { const gs = document.querySelectorAll("` + sel + `");
		let best = null, bw = -1, maxY = 0;
		for (const g of gs) { const r = g.querySelector("rect"); maxY = Math.max(maxY, +r.getAttribute("y")); }
		for (const g of gs) { const r = g.querySelector("rect"); if (+r.getAttribute("y") === maxY - 48 && +r.getAttribute("width") > bw) { bw = +r.getAttribute("width"); best = g; } }
		window.__zoomTarget = best; return bw; })()`
	width := eval[float64](t, b, pick)
	zoomJS, unzoomJS, searchJS := "clickZoom(window.__zoomTarget.fgi)", "unzoom()", `search("sort|Matrix|memcpy")`
	if perl {
		zoomJS, unzoomJS, searchJS = "zoom(window.__zoomTarget)", "unzoom()", `search("sort|Matrix|memcpy")`
	}
	zoom := eval[float64](t, b, fmt.Sprintf(afterPaint, zoomJS))
	again := eval[float64](t, b, fmt.Sprintf(afterPaint, zoomJS))
	reset := eval[float64](t, b, fmt.Sprintf(afterPaint, unzoomJS))
	search := eval[float64](t, b, fmt.Sprintf(afterPaint, searchJS))
	hover := eval[float64](t, b, fmt.Sprintf(afterPaint, `window.__zoomTarget.querySelector("rect").dispatchEvent(new MouseEvent("mouseover", {bubbles: true}))`))
	icJS := `window.dispatchEvent(new KeyboardEvent("keydown", {key: "i", keyCode: 73, ctrlKey: true}))`
	ic := eval[float64](t, b, fmt.Sprintf(afterPaint, icJS))
	// worst case: the widest frame under the root, most of the graph
	wide := strings.Replace(strings.Replace(pick, "maxY - 48", "maxY - 16", 1), "__zoomTarget", "__wideTarget", 1)
	wideW := eval[float64](t, b, wide)
	wideZoom := eval[float64](t, b, fmt.Sprintf(afterPaint, strings.ReplaceAll(zoomJS, "__zoomTarget", "__wideTarget")))
	eval[float64](t, b, fmt.Sprintf(afterPaint, unzoomJS))
	t.Logf("%s: zoom into the widest frame under the root (%.1f px): %.0f ms", label, wideW, wideZoom)
	total := eval[int](t, b, `typeof fg === "object" && fg.n ? fg.n : document.querySelectorAll("`+sel+`").length`)
	dyn := eval[int](t, b, `typeof fg === "object" && fg.dynEls ? (clickZoom(window.__zoomTarget.fgi), fg.dynEls.length) : 0`)
	t.Logf("%s: %d frames, %d written, %d drawn zoomed; load %v (then %.0f ms to paint); zoom into a %.1f px frame %.0f ms (again %.0f ms); reset %.0f ms; search %.0f ms; hover %.0f ms; Ctrl-I %.0f ms",
		label, total, frames, dyn, load.Round(time.Millisecond), ms, width, zoom, again, reset, search, hover, ic)
	if !perl {
		matched := eval[string](t, b, `document.getElementById("matched").textContent`)
		if !strings.HasPrefix(matched, "Matched: ") {
			t.Errorf("search on the big SVG: matched text %q", matched)
		}
	}
	return browserTimes{float64(load) / 1e6, zoom, again, reset, search, hover, ic}
}

// TestBrowserFitLabel checks that the script fits labels as Render does
// (fitLabel: code points, not UTF-16 units), directly and in a zoomed
// view of a frame whose name lies partly beyond the BMP.
func TestBrowserFitLabel(t *testing.T) {
	b := newBrowser(t)
	long := strings.Repeat("𝔸", 100) + strings.Repeat("é", 100)
	u := writeSVG(t, "a;"+long+" 1\n", DefaultOptions())
	b.run(t, chromedp.Navigate(u))

	// zoomed into a, its child spans 1180 px: 166 characters of 7.08 px
	var labels []string
	b.eval(t, `(() => { clickZoom(1);
		return Array.from(document.querySelectorAll("text")).filter(t => t.getBoundingClientRect().width > 0 && !t.id).map(t => t.textContent); })()`, &labels)
	want := fitLabel(long, 166) // 1180 / (12 * 0.59)
	if !slices.Contains(labels, want) {
		t.Errorf("zoomed labels %q lack %q", labels, want)
	}

	names := []string{"abcdefgh", "ééééé", "𝔸𝔸𝔸𝔸𝔸", "a𝔸b𝔸c𝔸d", "𝔸", "", long}
	type tc struct {
		Name  string
		Chars int
	}
	var cases []tc
	for _, n := range names {
		for chars := 3; chars <= 12; chars++ {
			cases = append(cases, tc{n, chars})
		}
	}
	cases = append(cases, tc{long, 166}, tc{long, 150})
	in, _ := json.Marshal(cases)
	var got []string
	b.eval(t, `(`+string(in)+`).map(c => fitLabel(c.Name, c.Chars))`, &got)
	for i, c := range cases {
		if want := fitLabel(c.Name, c.Chars); got[i] != want {
			t.Errorf("fitLabel(%q, %d): script %q, Render %q", c.Name, c.Chars, got[i], want)
		}
	}
}

// TestBrowserChartAxis: a timed flame chart's time axis shows under the
// lanes, hides while a frame is zoomed (its labels are the unzoomed
// chart's times) and shows again on unzoom.
func TestBrowserChartAxis(t *testing.T) {
	var smp []flamegraph.ChartSample
	for k := range 30 {
		smp = append(smp, flamegraph.ChartSample{Time: folded.Time(k) * 100_000_000, TID: 1, Has: folded.HasTID, Stack: []string{"p;a;b", "p;c"}[k/20]})
	}
	o := DefaultOptions()
	o.Flamechart, o.CountName = true, "ns"
	var buf bytes.Buffer
	if err := Render(&buf, flamegraph.LayoutChart(smp), &o); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "chart.svg")
	if err := os.WriteFile(out, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	b := newBrowser(t)
	b.run(t, chromedp.Navigate("file://"+out))
	axisJS := `(() => { const a = document.getElementById("axis"); return getComputedStyle(a).display + " " + a.querySelectorAll("text").length + " " + a.getBoundingClientRect().height; })()`
	shown := eval[string](t, b, axisJS)
	if !strings.HasPrefix(shown, "inline 15 ") && !strings.HasPrefix(shown, "block 15 ") {
		t.Fatalf("the axis: %q, want shown with 15 labels (0.0 s to 2.8 s)", shown)
	}
	if got := eval[string](t, b, `clickZoom(`+frameJS("a")+`.fgi); `+axisJS); !strings.HasPrefix(got, "none ") {
		t.Errorf("zoomed, the axis is %q, want hidden", got)
	}
	if got := eval[string](t, b, `unzoom(); `+axisJS); got != shown {
		t.Errorf("unzoomed, the axis is %q, want %q", got, shown)
	}
}
