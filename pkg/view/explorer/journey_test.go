package explorer

import (
	"bytes"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"flamekit/pkg/filter/idle"
	"flamekit/pkg/folded"
)

var updateShot = flag.Bool("update-screenshot", false, "rewrite the pictures of docs/explorer.md (TestScreenshots)")

// line is one timed sample of a folded file, for the expected figures.
type line struct {
	stack string
	count float64
	at    folded.Time
	cpu   int32
	tid   int32
	idle  bool
}

func readLines(t testing.TB, text []byte) (lines []line, origin folded.Time) {
	t.Helper()
	rd := folded.NewReader(bytes.NewReader(text), "in")
	first := true
	for rd.Next() {
		r := rd.Record()
		if r.Kind != folded.Timed {
			continue
		}
		lines = append(lines, line{string(r.Stack), r.Count, r.Time, r.CPU, r.TID, idle.Is(r.Stack)})
		if first || r.Time < origin {
			origin, first = r.Time, false
		}
	}
	if err := rd.Err(); err != nil {
		t.Fatal(err)
	}
	return lines, origin
}

// sum adds the weight of the lines in [from, to) s after the origin that
// keep accepts, per stack.
func sum(lines []line, origin folded.Time, from, to float64, keep func(*line) bool) (total float64, samples int, stacks map[string]float64) {
	stacks = map[string]float64{}
	a, b := origin+folded.Time(math.Round(from*1e9)), origin+folded.Time(math.Round(to*1e9))
	for i := range lines {
		l := &lines[i]
		if l.at < a || l.at >= b || l.idle || keep != nil && !keep(l) {
			continue
		}
		total += l.count
		samples++
		stacks[l.stack] += l.count
	}
	return total, samples, stacks
}

func comm(stack string) string { c, _, _ := strings.Cut(stack, ";"); return c }

type pageTotals struct {
	Samples, Weight, VsSamples, VsWeight float64
}

type pageState struct {
	Sel      *struct{ Lane, C0, C1 int }
	Vs       *struct{ Lane, C0, C1 int }
	View     string
	Fragment string
}

func (b *browser) state(t testing.TB) pageState {
	var s pageState
	b.Eval(t, `flamekit.state()`, &s)
	return s
}

func (b *browser) totals(t testing.TB) pageTotals {
	var p pageTotals
	b.Eval(t, `flamekit.totals()`, &p)
	return p
}

// point returns the page coordinates the page gives for a JS expression.
func (b *browser) point(t testing.TB, js string) (float64, float64) {
	t.Helper()
	var p []float64
	b.Eval(t, js, &p)
	if len(p) != 2 {
		t.Fatalf("%s: no such point on the page", js)
	}
	return p[0], p[1]
}

// clickID clicks the middle of an element, as a user does.
func (b *browser) clickID(t testing.TB, id string) {
	t.Helper()
	x, y := b.point(t, fmt.Sprintf(`(() => { const e = document.getElementById(%q); e.scrollIntoView({block: "center"}); const r = e.getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; })()`, id))
	b.Click(t, x, y)
}

// typeInto clicks an input, selects what it holds (Ctrl-A), types text
// over it and presses Enter.
func (b *browser) typeInto(t testing.TB, id, text string) {
	t.Helper()
	var folded bool
	b.Eval(t, fmt.Sprintf(`(() => { const d = document.getElementById(%q).closest("details"); return !!d && !d.open; })()`, id), &folded)
	if folded {
		b.clickID(t, "filter-summary") // open the filter panel first
	}
	b.clickID(t, id)
	b.Do(t, chromedp.KeyEvent("a", chromedp.KeyModifiers(kb.ModifierCtrl)), chromedp.KeyEvent(kb.Backspace))
	if text != "" {
		b.Do(t, chromedp.KeyEvent(text))
	}
	b.Do(t, chromedp.KeyEvent(kb.Enter))
	b.Eval(t, `new Promise(r => requestAnimationFrame(() => setTimeout(() => r(true), 0)))`, nil)
}

// The journey of issue #18 on a real capture: open the page from a file,
// select the burst by two clicks, read its share in the flame graph and
// the tooltip, compare it with a quiet range (shift-drag), check the
// differential and the elided view, filter by comm, read the top table,
// search with Ctrl-F, copy the command and run it, reload the link, step
// with the arrow keys and reset with Esc.
func TestJourney(t *testing.T) {
	text := collapse(t, "burst")
	lines, origin := readLines(t, text)
	in := foldedFile(t, "burst")
	page := filepath.Join(shared, "journey.html")
	shell(t, "timeslice -q --heatmap=html --no-idle "+in+" > "+page)
	b := newBrowser(t, 1400, 1000)
	b.open(t, "file://"+page)

	// Select the burst: a click on the cell at 13.8 s, then one on the
	// cell at 15.78 s (its last 20 ms).
	x, y := b.point(t, `flamekit.cellPoint(0, 13.8e9)`)
	b.Click(t, x, y)
	if s := b.text(t, "status"); !strings.Contains(s, "click the end cell") {
		t.Errorf("after the first click, status %q", s)
	}
	x, y = b.point(t, `flamekit.cellPoint(0, 15.79e9)`)
	b.Click(t, x, y)
	st := b.state(t)
	if !strings.HasPrefix(st.Fragment, "from=13.8s&to=15.8s&no-idle") {
		t.Fatalf("fragment after selecting the burst: %q", st.Fragment)
	}
	total, samples, stacks := sum(lines, origin, 13.8, 15.8, nil)
	var burst float64
	for s, w := range stacks {
		if comm(s) == "flamekit_burst" {
			burst += w
		}
	}
	got := b.totals(t)
	if got.Weight != total || int(got.Samples) != samples {
		t.Errorf("selection: %v samples, weight %v; the folded lines: %d, %v", got.Samples, got.Weight, samples, total)
	}
	var frames []struct {
		Name  string
		W     float64
		Depth int
	}
	b.Eval(t, `flamekit.frames()`, &frames)
	share := -1.0
	for _, f := range frames {
		if f.Name == "flamekit_burst" && f.Depth == 1 {
			share = f.W / total
		}
	}
	if math.Abs(share-burst/total) > 1e-12 || share < 0.95 {
		t.Errorf("flamekit_burst is %.4f of the flame graph, want %.4f (most of it)", share, burst/total)
	}
	x, y = b.point(t, `flamekit.framePoint("flamekit_burst")`)
	b.Do(t, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, x, y))
	tip := b.text(t, "tip")
	if want := fmt.Sprintf("flamekit_burst — %.2f%% of all", 100*burst/total); !strings.HasPrefix(tip, want) {
		t.Errorf("tooltip %q, want it to start %q", tip, want)
	}

	// Compare with a quiet range: shift-drag from 2 s to 3.99 s.
	x1, y1 := b.point(t, `flamekit.cellPoint(0, 2e9)`)
	x2, y2 := b.point(t, `flamekit.cellPoint(0, 3.99e9)`)
	shift := chromedp.ButtonModifiers(kb.ModifierShift)
	b.Do(t, chromedp.MouseEvent(input.DispatchMouseEventTypeMousePressed, x1, y1, chromedp.ButtonLeft, shift),
		chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, (x1+x2)/2, (y1+y2)/2, chromedp.ButtonLeft, shift),
		chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, x2, y2, chromedp.ButtonLeft, shift),
		chromedp.MouseEvent(input.DispatchMouseEventTypeMouseReleased, x2, y2, chromedp.ButtonLeft, shift))
	st = b.state(t)
	if !strings.Contains(st.Fragment, "vs-from=2s&vs-to=4s") {
		t.Fatalf("fragment after shift-drag: %q", st.Fragment)
	}
	cmd := b.text(t, "cmd")
	wantCmd := fmt.Sprintf("difffolded <(timeslice --from 2s --to 4s --no-idle %[1]s) <(timeslice --from 13.8s --to 15.8s --no-idle %[1]s) | flamegraph > diff.svg", in)
	if cmd != wantCmd {
		t.Errorf("command %q\nwant    %q", cmd, wantCmd)
	}
	// The differential equals difffolded | flamegraph, folded and SVG.
	pipe := strings.TrimSuffix(cmd, " | flamegraph > diff.svg")
	if gotF, wantF := sortedLines(b.download(t, "save-folded")), sortedLines(string(shell(t, pipe))); !slices.Equal(gotF, wantF) {
		t.Errorf("the differential's folded stacks differ from difffolded's:\n got %d lines\nwant %d lines", len(gotF), len(wantF))
	}
	if gotS, wantS := b.download(t, "save-svg"), string(shell(t, pipe+" | flamegraph")); gotS != wantS {
		t.Errorf("the differential's SVG differs from difffolded | flamegraph's: %s", firstDiff(gotS, wantS))
	}
	// The elided view: the stacks of the quiet range absent from the burst.
	b.Eval(t, `(() => { const s = document.getElementById("elided"); s.value = "vs"; s.dispatchEvent(new Event("change")); return true; })()`, nil)
	_, _, quiet := sum(lines, origin, 2, 4, nil)
	var gone float64
	for s, w := range quiet {
		if stacks[s] == 0 {
			gone += w
		}
	}
	var root []struct{ W float64 }
	b.Eval(t, `flamekit.frames().filter(f => f.depth === 0)`, &root)
	if len(root) != 1 || root[0].W != gone {
		t.Errorf("elided view: %v, want the %v of the stacks only in the quiet range", root, gone)
	}
	b.clickID(t, "compare") // "Stop comparing"
	if st = b.state(t); st.Vs != nil {
		t.Fatalf("still comparing: %q", st.Fragment)
	}

	// Filter by comm: the heat map and the flame graph keep flamekit_burst.
	b.typeInto(t, "f-comm", "flamekit_burst")
	var heat []struct{ Sum float64 }
	b.Eval(t, `flamekit.heat()`, &heat)
	all := 0
	for _, l := range lines {
		if comm(l.stack) == "flamekit_burst" {
			all++
		}
	}
	if len(heat) != 1 || int(heat[0].Sum) != all {
		t.Errorf("heat map under --comm flamekit_burst: %v samples, want %d", heat, all)
	}
	isBurst := func(l *line) bool { return comm(l.stack) == "flamekit_burst" }
	bt, bn, bstacks := sum(lines, origin, 13.8, 15.8, isBurst)
	if got = b.totals(t); got.Weight != bt || int(got.Samples) != bn {
		t.Errorf("filtered selection: %v, want %d samples, weight %v", got, bn, bt)
	}

	// The top table: self and total per function from the folded lines.
	b.clickID(t, "view-top")
	var top []struct {
		Name        string
		Self, Total float64
	}
	b.Eval(t, `flamekit.top()`, &top)
	self, tot := map[string]float64{}, map[string]float64{}
	for s, w := range bstacks {
		fs := strings.Split(s, ";")
		self[fs[len(fs)-1]] += w
		seen := map[string]bool{}
		for _, f := range fs {
			if !seen[f] {
				tot[f] += w
				seen[f] = true
			}
		}
	}
	if len(top) != len(tot) {
		t.Errorf("top table: %d functions, want %d", len(top), len(tot))
	}
	for _, r := range top {
		if r.Self != self[r.Name] || r.Total != tot[r.Name] {
			t.Errorf("top %s: self %v total %v, want %v and %v", r.Name, r.Self, r.Total, self[r.Name], tot[r.Name])
		}
	}
	if len(top) == 0 || top[0].Name != "burst_spin" {
		t.Errorf("top table starts with %v, want burst_spin", top[:min(len(top), 1)])
	}
	// Clicking a function opens its sandwich.
	x, y = b.point(t, `(() => { const a = document.querySelector('#toptable a[data-frame]'); a.scrollIntoView({block: "center"}); const r = a.getBoundingClientRect(); return [r.left + 5, r.top + r.height / 2]; })()`)
	b.Click(t, x, y)
	if s := b.text(t, "sandwich"); !strings.HasPrefix(s, "Sandwich of burst_spin: its callers above it") {
		t.Errorf("sandwich %q", s)
	}
	b.clickID(t, "view-flame")

	// Search with Ctrl-F: Matched is burst_spin's share.
	b.Do(t, chromedp.KeyEvent("f", chromedp.KeyModifiers(kb.ModifierCtrl)))
	var focused string
	b.Eval(t, `document.activeElement.id`, &focused)
	if focused != "search" {
		t.Fatalf("Ctrl-F focused %q, want the search box", focused)
	}
	b.Do(t, chromedp.KeyEvent("burst_spin"))
	var spin float64
	for s, w := range bstacks {
		if strings.Contains(s, "burst_spin") {
			spin += w
		}
	}
	if m, want := b.text(t, "matched"), fmt.Sprintf("Matched: %.1f%% of all (burst_spin)", 100*spin/bt); m != want {
		t.Errorf("matched %q, want %q", m, want)
	}

	// Copy the command, run it: the same flame graph, byte for byte.
	b.clickID(t, "copy")
	cmd = b.text(t, "cmd")
	wantCmd = fmt.Sprintf("timeslice --from 13.8s --to 15.8s --no-idle --comm flamekit_burst %s | flamegraph > flame.svg   # then open the SVG with ?s=burst_spin to search", in)
	if cmd != wantCmd {
		t.Errorf("command %q\nwant    %q", cmd, wantCmd)
	}
	shell(t, cmd)
	want, err := os.ReadFile(filepath.Join(shared, "flame.svg"))
	if err != nil {
		t.Fatal(err)
	}
	if gotS := b.download(t, "save-svg"); gotS != string(want) {
		t.Errorf("the page's SVG differs from the command's: %s", firstDiff(gotS, string(want)))
	}
	if !bytes.Contains(want, []byte(fmt.Sprintf("all (%s samples, 100%%)", commas(bt)))) {
		t.Errorf("the command's flame graph does not total %v", bt)
	}

	// The link is the view: open it again.
	var href string
	b.Eval(t, `location.href`, &href)
	before := b.state(t)
	b2 := newBrowser(t, 1400, 1000)
	b2.open(t, href)
	if after := b2.state(t); after.Fragment != before.Fragment {
		t.Errorf("reopened link: %q, want %q", after.Fragment, before.Fragment)
	}
	if got2 := b2.totals(t); got2 != b.totals(t) {
		t.Errorf("reopened link: totals %v, want %v", got2, b.totals(t))
	}
	if m := b2.text(t, "matched"); !strings.HasPrefix(m, "Matched: ") {
		t.Errorf("reopened link: search not restored: %q", m)
	}

	// Arrow keys step the selection by its width; Esc resets the search,
	// then the selection.
	b.Do(t, chromedp.KeyEvent(kb.ArrowRight))
	if st = b.state(t); !strings.HasPrefix(st.Fragment, "from=15.8s&to=17.8s") {
		t.Errorf("after →: %q", st.Fragment)
	}
	b.Do(t, chromedp.KeyEvent(kb.ArrowLeft))
	b.Do(t, chromedp.KeyEvent(kb.Escape))
	if st = b.state(t); strings.Contains(st.Fragment, "search=") || !strings.HasPrefix(st.Fragment, "from=13.8s") {
		t.Errorf("after Esc: %q, want the search gone and the selection kept", st.Fragment)
	}
	b.Do(t, chromedp.KeyEvent(kb.Escape))
	if st = b.state(t); st.Sel != nil {
		t.Errorf("after a second Esc: %q, want no selection", st.Fragment)
	}
}

func sortedLines(s string) []string {
	l := strings.Split(strings.TrimSpace(s), "\n")
	slices.Sort(l)
	return l
}

// commas formats a whole number as the flame graph's tooltips do.
func commas(v float64) string {
	s := fmt.Sprintf("%.0f", v)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
