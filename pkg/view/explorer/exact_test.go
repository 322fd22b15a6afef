package explorer

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"flamekit/pkg/folded"
	"flamekit/pkg/svg"
	"flamekit/pkg/timeline"
	"flamekit/pkg/view/flamegraph"
)

// What the page shows is what it saves and copies (issue 29, first
// section), as a user meets it.
func TestWhatYouSeeIsWhatYouCopy(t *testing.T) {
	in := foldedFile(t, "burst")
	page := filepath.Join(shared, "exact.html")
	shell(t, "timeslice -q --heatmap=html "+in+" > "+page)
	b := newBrowser(t, 1400, 1000)

	t.Run("top view copies stacktop, rows in its order", func(t *testing.T) {
		for _, frag := range []string{"from=0s&to=30s&view=top", "from=0s&to=30s&view=top&cum", "from=13.8s&to=15.8s&no-idle&cpu=0&view=top"} {
			b.open(t, "file://"+page+"#"+frag)
			cmd := b.text(t, "cmd")
			if !strings.Contains(cmd, " | stacktop -n 0") {
				t.Fatalf("%s: command %q, want a stacktop command", frag, cmd)
			}
			rows, err := csv.NewReader(strings.NewReader(string(shell(t, cmd+" --format csv")))).ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			for _, r := range rows[1:] {
				want = append(want, r[0]+" "+r[1]+" "+r[4])
			}
			var top []struct {
				Name        string
				Self, Total float64
			}
			b.Eval(t, `flamekit.top()`, &top)
			var got []string
			for _, r := range top {
				got = append(got, r.Name+" "+strconv.FormatFloat(r.Self, 'f', -1, 64)+" "+strconv.FormatFloat(r.Total, 'f', -1, 64))
			}
			if !slices.Equal(got, want) {
				t.Errorf("%s: the page's %d rows differ from stacktop's %d: %s", frag, len(got), len(want), firstDiff(strings.Join(got, "\n"), strings.Join(want, "\n")))
			}
			var shown int
			b.Eval(t, `document.querySelectorAll("#toptable tr").length - 1`, &shown)
			if shown != len(want) {
				t.Errorf("%s: the table shows %d rows of %d", frag, shown, len(want))
			}
		}
		// The values shown are stacktop's text, in the same unit.
		b.open(t, "file://"+page+"#from=0s&to=30s&view=top")
		var cells [][]string
		b.Eval(t, `[...document.querySelectorAll("#toptable tr")].slice(1, 6).map(tr => [...tr.children].map(td => td.textContent))`, &cells)
		text := strings.Split(string(shell(t, b.text(t, "cmd"))), "\n")
		for i, c := range cells {
			f := strings.Fields(text[2+i])
			if len(c) < 5 || len(f) < 6 || c[1] != f[0] || c[4] != f[3] || !strings.HasSuffix(f[0], "s") {
				t.Errorf("top row %d shows %q, stacktop prints %q", i, c, text[2+i])
			}
		}
		// A click on the Total column sorts by it: the link says cum.
		b.open(t, "file://"+page+"#from=0s&to=30s&view=top")
		b.clickID(t, "top-sort-cum")
		if f := b.state(t).Fragment; !strings.HasSuffix(f, "&cum") || !strings.Contains(b.text(t, "cmd"), "stacktop -n 0 --cum") {
			t.Errorf("after a click on Total: %q, %q", f, b.text(t, "cmd"))
		}
	})

	t.Run("arrows stay within the samples", func(t *testing.T) {
		b.open(t, "file://"+page+"#from=1s&to=3.1s")
		b.Do(t, chromedp.KeyEvent(kb.ArrowLeft))
		if f := b.state(t).Fragment; !strings.HasPrefix(f, "from=0s&to=2.1s") {
			t.Errorf("← from 1 s: %q, want from=0s&to=2.1s", f)
		}
		b.Do(t, chromedp.KeyEvent(kb.ArrowLeft))
		if f := b.state(t).Fragment; !strings.HasPrefix(f, "from=0s&to=2.1s") {
			t.Errorf("← at the start: %q", f)
		}
		shell(t, b.text(t, "cmd")) // a command the tools take
	})

	t.Run("repeated filter keys show as one value of the same meaning", func(t *testing.T) {
		b.open(t, "file://"+page+"#from=0s&to=30s&comm=^bash$&comm=^ls$&cpu=0&cpu=1")
		var v []string
		b.Eval(t, `[document.getElementById("f-comm").value, document.getElementById("f-cpu").value]`, &v)
		if v[0] != "(?:^bash$)|(?:^ls$)" || v[1] != "0,1" {
			t.Errorf("boxes show %q", v)
		}
		before := b.totals(t)
		// editing a box and leaving it as it was keeps the filter
		b.Eval(t, `(() => { const e = document.getElementById("f-comm"); e.dispatchEvent(new Event("change")); return true; })()`, nil)
		if after := b.totals(t); after != before || before.Samples == 0 {
			t.Errorf("the filter changed: %v, then %v", before, after)
		}
	})

	t.Run("an id filter on lines without the field says why", func(t *testing.T) {
		b.open(t, "file://"+page+"#from=0s&to=30s&pid=1-100000")
		note := b.text(t, "filter-note")
		if !strings.Contains(note, "samples carry no pid= field and were not selected") {
			t.Errorf("filter note %q", note)
		}
		if h := b.text(t, "graph-head"); !strings.HasPrefix(h, "No samples in") || !strings.Contains(h, "carry no pid= field") {
			t.Errorf("graph head %q", h)
		}
		if l := b.text(t, "legend"); strings.Contains(l, "red 0") || !strings.Contains(l, "no samples under the filters") {
			t.Errorf("legend %q", l)
		}
	})

	t.Run("an empty range says so", func(t *testing.T) {
		b.open(t, "file://"+page+"#from=0s&to=30s&comm=^nosuchprocess$")
		if h := b.text(t, "graph-head"); !strings.HasPrefix(h, "No samples in") {
			t.Errorf("graph head %q", h)
		}
		var hidden bool
		b.Eval(t, `document.getElementById("flamewrap").hidden`, &hidden)
		if !hidden {
			t.Errorf("a blank flame graph is drawn")
		}
	})

	t.Run("each selection is a history entry", func(t *testing.T) {
		b.open(t, "file://"+page)
		for _, r := range [][2]float64{{2e9, 3.98e9}, {13.8e9, 15.78e9}, {20e9, 21.98e9}} {
			x, y := b.point(t, fmt.Sprintf(`flamekit.cellPoint(0, %g)`, r[0]))
			b.Click(t, x, y)
			x, y = b.point(t, fmt.Sprintf(`flamekit.cellPoint(0, %g)`, r[1]))
			b.Click(t, x, y)
		}
		for _, want := range []string{"from=13.8s&to=15.8s", "from=2s&to=4s"} {
			b.Eval(t, `new Promise(r => { addEventListener("hashchange", () => setTimeout(() => r(true), 0), {once: true}); history.back(); })`, nil)
			if f := b.state(t).Fragment; f != want {
				t.Errorf("Back: %q, want %q", f, want)
			}
		}
	})
}

// Empty frames: flamegraph drops a stack's trailing empty frames and keeps
// the others; the page draws and saves the same (issue 34.8: "a;b;; 2"
// was drawn with two empty frames).
func TestEmptyFramesAsFlamegraph(t *testing.T) {
	lines := []string{"a;b;; 2", "a;;c 3", "x;y; 4", "a;b 5", "q;;;r; 6"}
	var in strings.Builder
	in.WriteString("# flamekit v1 timed\n")
	for i, l := range lines {
		stack, count, _ := strings.Cut(l, " ")
		fmt.Fprintf(&in, "%s %s @%d.000000 cpu=0\n", stack, count, 100+i)
	}
	tl, skips, err := readTimeline(strings.NewReader(in.String()), "empty", timeline.Options{})
	if err != nil || skips.Count > 0 {
		t.Fatal(err, skips)
	}
	page := pageFile(t, "empty.html", tl, Options{Files: []string{"empty.folded"}})
	b := newBrowser(t, 1200, 900)
	b.open(t, "file://"+page+"#from=0s&to=10s")
	o := svg.DefaultOptions()
	fin := flamegraph.ReadRecords(folded.NewReader(strings.NewReader(strings.Join(lines, "\n")+"\n"), "-").All(), 0, false, flamegraph.Rewrite{}, o.MinCount)
	var ref bytes.Buffer
	if err := svg.Render(&ref, fin.Layout, &o); err != nil {
		t.Fatal(err)
	}
	if got := b.download(t, "save-svg"); got != ref.String() {
		t.Errorf("the page's SVG differs from flamegraph's: %s", firstDiff(got, ref.String()))
	}
	var frames []struct {
		Name  string
		Depth int
	}
	b.Eval(t, `flamekit.frames()`, &frames)
	empty := 0
	for _, f := range frames {
		if f.Name == "" && f.Depth > 0 {
			empty++
		}
	}
	if empty != 3 { // a;;c, and q;; before r
		t.Errorf("%d empty frames drawn, want the 3 inside stacks: %v", empty, frames)
	}
}
