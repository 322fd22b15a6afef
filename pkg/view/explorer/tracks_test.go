package explorer

import (
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
)

// Finding the burst without typing a name (issue 28, items 3 and 4): the
// tracks list the processes, a click filters by one (and the command
// says so), a process opens into its threads, a hovered cell names what
// it holds, the change map's hottest cell is in the burst, and the burst
// list says what rose and draws it as difffolded -n does.
func TestTracksAndChange(t *testing.T) {
	in := foldedFile(t, "burst")
	page := filepath.Join(shared, "tracks.html")
	shell(t, "timeslice -q --heatmap=html --no-idle "+in+" > "+page)
	b := newBrowser(t, 1400, 1000)
	b.open(t, "file://"+page)

	var names []string
	b.Eval(t, `[...document.querySelectorAll("#tracks .track-comm .trackname")].map(a => a.textContent)`, &names)
	if len(names) < 3 || names[0] != "swapper" && names[0] != "flamekit_burst" {
		t.Fatalf("tracks %q", names)
	}
	found := false
	for _, n := range names {
		found = found || n == "flamekit_burst"
	}
	if !found {
		t.Fatalf("no track for flamekit_burst: %q", names)
	}

	// hover the burst: the cell names its process and function
	x, y := b.point(t, `flamekit.cellPoint(0, 14.5e9)`)
	b.Do(t, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, x, y))
	if d := b.text(t, "details"); !strings.Contains(d, "processes: flamekit_burst") || !strings.Contains(d, "functions: burst_spin") {
		t.Errorf("hovering the burst: %q", d)
	}

	// the change map's hottest cell is in the burst; share of burst_spin
	for _, c := range []struct{ frag, mode string }{{"map=change", "change"}, {"map=share&share=burst_spin", "share"}} {
		b.open(t, "file://"+page+"#"+c.frag)
		var top struct {
			Mode  string
			NS    float64
			Value float64
		}
		b.Eval(t, `flamekit.mapTop()`, &top)
		if top.Mode != c.mode || top.NS < 13.8e9 || top.NS >= 15.8e9 {
			t.Errorf("%s: the hottest cell is at %.2f s (mode %s), want the burst, 13.8 to 15.8 s", c.frag, top.NS/1e9, top.Mode)
		}
		if l := b.text(t, "legend"); !strings.HasPrefix(l, strings.ToUpper(c.mode[:1])+c.mode[1:]) {
			t.Errorf("%s: legend %q", c.frag, l)
		}
	}

	// a click on the track's name filters by the process
	b.open(t, "file://"+page+"#from=13.8s&to=15.8s")
	b.Eval(t, `(() => { const a = [...document.querySelectorAll("#tracks .trackname")].find(a => a.textContent === "flamekit_burst"); a.scrollIntoView({block: "center"}); return true; })()`, nil)
	x, y = b.point(t, `(() => { const a = [...document.querySelectorAll("#tracks .trackname")].find(a => a.textContent === "flamekit_burst"); const r = a.getBoundingClientRect(); return [r.left + 3, r.top + r.height / 2]; })()`)
	b.Click(t, x, y)
	if f, _ := url.PathUnescape(b.state(t).Fragment); !strings.Contains(f, "comm=^flamekit_burst$") {
		t.Errorf("after a click on the track: %q", f)
	}
	if cmd := b.text(t, "cmd"); !strings.Contains(cmd, "--comm '^flamekit_burst$'") {
		t.Errorf("command %q", cmd)
	}
	// its threads: a lane per tid; a click filters by one
	b.Eval(t, `(() => { document.querySelector("#tracks .track-comm .trackopen").click(); return true; })()`, nil)
	var tids []string
	b.Eval(t, `[...document.querySelectorAll("#tracks .track-tid .trackname")].map(a => a.textContent)`, &tids)
	if len(tids) == 0 || !strings.HasPrefix(tids[0], "tid ") {
		t.Fatalf("threads %q", tids)
	}
	b.Eval(t, `(() => { document.querySelector("#tracks .track-tid .trackname").click(); return true; })()`, nil)
	tid := strings.TrimPrefix(tids[0], "tid ")
	if f := b.state(t).Fragment; !strings.Contains(f, "tid="+tid) || !strings.Contains(b.text(t, "cmd"), "--tid "+tid) {
		t.Errorf("after a click on %s: %q, %q", tids[0], f, b.text(t, "cmd"))
	}
	if tot := b.totals(t); tot.Samples == 0 {
		t.Errorf("the thread's selection is empty")
	}

	// the burst list says what rose, and draws it against the capture
	b.open(t, "file://"+page)
	first := b.text(t, "bursts")
	// What rose is said once, as the Go burst finder found it (the
	// page computes no second rise of its own).
	if !strings.Contains(first, "process flamekit_burst rose from ") || strings.Contains(first, "rose: ") {
		t.Errorf("burst list %q", first)
	}
	b.clickID(t, "rise-0")
	f := b.state(t).Fragment
	if !strings.Contains(f, "vs-from=0s") || !strings.Contains(f, "normalize") {
		t.Fatalf("what rose: %q", f)
	}
	cmd := b.text(t, "cmd")
	if !strings.HasPrefix(cmd, "difffolded -n <(timeslice --from 0s") {
		t.Fatalf("what rose: command %q", cmd)
	}
	pipe := strings.TrimSuffix(cmd, " > diff.svg")
	if got, want := b.download(t, "save-svg"), string(shell(t, pipe)); got != want {
		t.Errorf("what rose: the SVG differs from %s: %s", pipe, firstDiff(got, want))
	}
}

// On the saturated capture (a busy host: trainer keeps both CPUs busy,
// kubelet_burst takes three quarters of them for 2 s at 13.78 s), the
// samples map is flat: the page opens on change, whose hottest cell is in
// the burst, and the first track to rise there is kubelet_burst.
func TestBusyHostOpensOnChange(t *testing.T) {
	page := filepath.Join(shared, "saturated.html")
	capture, err := filepath.Abs("../../../testdata/perf/saturated.folded.gz")
	if err != nil {
		t.Fatal(err)
	}
	shell(t, "timeslice -q --heatmap=html "+capture+" > "+page)
	b := newBrowser(t, 1400, 1000)
	b.open(t, "file://"+page)
	var top struct {
		Mode  string
		NS    float64
		Value float64
	}
	b.Eval(t, `flamekit.mapTop()`, &top)
	if top.Mode != "change" || top.NS < 13.7e9 || top.NS >= 15.8e9 {
		t.Errorf("busy host: mode %s, hottest cell at %.2f s; want change, in the burst (13.78 to 15.77 s)", top.Mode, top.NS/1e9)
	}
	x, y := b.point(t, `flamekit.cellPoint(0, 14.5e9)`)
	b.Do(t, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, x, y))
	if d := b.text(t, "details"); !strings.Contains(d, "(kubelet_burst rose)") {
		t.Errorf("hovering the burst: %q", d)
	}
	if l := b.text(t, "legend"); !strings.Contains(l, "the samples map is flat") {
		t.Errorf("legend %q does not say why it shows change", l)
	}
}

// The call tree: its rows are the flame graph's frames (total and self),
// children by total, the heaviest path open; ▸ opens a row.
func TestCallTree(t *testing.T) {
	in := foldedFile(t, "burst")
	page := filepath.Join(shared, "tree.html")
	shell(t, "timeslice -q --heatmap=html --no-idle "+in+" > "+page)
	b := newBrowser(t, 1400, 1000)
	b.open(t, "file://"+page+"#from=13.8s&to=15.8s&no-idle")
	type frame struct {
		Name  string
		W     float64
		Depth int
	}
	var frames []frame
	b.Eval(t, `flamekit.frames()`, &frames)
	rootKids := map[string]float64{}
	for _, f := range frames {
		if f.Depth == 1 {
			rootKids[f.Name] += f.W
		}
	}
	b.clickID(t, "view-tree")
	type row struct {
		Name        string
		Depth       int
		Total, Self float64
	}
	var rows []row
	b.Eval(t, `flamekit.tree()`, &rows)
	if len(rows) < 3 || rows[0].Name != "flamekit_burst" || rows[1].Depth != 1 {
		t.Fatalf("call tree %v: want flamekit_burst first, its heaviest path open", rows[:min(3, len(rows))])
	}
	top := 0
	for _, r := range rows {
		if r.Depth == 0 {
			top++
			if r.Total != rootKids[r.Name] {
				t.Errorf("call tree %s: total %v, the flame graph %v", r.Name, r.Total, rootKids[r.Name])
			}
		}
	}
	if top != len(rootKids) {
		t.Errorf("call tree: %d processes, the flame graph %d", top, len(rootKids))
	}
	// open the last process's row: its children follow it, deeper
	n := len(rows)
	b.Eval(t, `(() => { const rs = [...document.querySelectorAll("#calltree tr[data-node]")].filter(r => r.dataset.depth === "0"); const last = rs[rs.length - 1]; last.querySelector("button").click(); return true; })()`, nil)
	b.Eval(t, `flamekit.tree()`, &rows)
	if len(rows) <= n || rows[len(rows)-1].Depth != 1 && rows[n].Depth != 1 {
		t.Errorf("opening a row: %d rows, then %d", n, len(rows))
	}
	if f, _ := url.PathUnescape(b.state(t).Fragment); !strings.HasSuffix(f, "view=tree") || !strings.HasSuffix(b.text(t, "cmd"), "| flamegraph > flame.svg") {
		t.Errorf("call tree: %q, command %q", f, b.text(t, "cmd"))
	}
}
