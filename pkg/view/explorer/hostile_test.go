package explorer

import (
	"bytes"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

	foldedpkg "flamekit/pkg/folded"
	"flamekit/pkg/svg"
	"flamekit/pkg/timeline"
	"flamekit/pkg/view/flamegraph"
)

// Frame names, comms, titles and notes are data: markup in them stays
// text in the page, in its tooltips, top table and commands, and in the
// SVG and folded stacks it saves, which equal flamegraph's.
func TestHostileNames(t *testing.T) {
	long := strings.Repeat("VeryLongName::", 150) + "end"
	names := []string{
		`<script>window.pwned=1</script>`,
		`"><img src=x onerror="window.pwned=2">`,
		`</script><script>window.pwned=3</script>`,
		`a&amp b & c`,
		"\u202eevil\u202c",
		"line\u2028sep",
		"<!--",
		long,
	}
	var in strings.Builder
	in.WriteString("# flamekit v1 timed host=\"<b>host</b>\" first=\"100.000000\"\n")
	for i, n := range names {
		fmt.Fprintf(&in, "%s;main;%s %d @%d.%06d cpu=%d pid=%d tid=%d\n", names[(i+1)%len(names)], n, 1000+i, 100+i/4, i*10000, i%2, 4242, 4243)
	}
	tl, skips, err := readTimeline(strings.NewReader(in.String()), "hostile", timeline.Options{})
	if err != nil || skips.Count > 0 {
		t.Fatal(err, skips)
	}
	title := `<title>x</title><script>window.pwned=4</script>`
	page := pageFile(t, "hostile.html", tl, Options{Title: title, Notes: []string{`<img src=x onerror="window.pwned=5">`}, Files: []string{"hostile.folded"}})
	b := newBrowser(t, 1400, 1000)
	b.open(t, "file://"+page+"#from=0s&to=3s&focus="+url.PathEscape(`it's; rm -rf ~|main`))

	var pwned any
	b.Eval(t, `window.pwned === undefined ? null : window.pwned`, &pwned)
	if pwned != nil {
		t.Fatalf("a name ran as script: window.pwned = %v", pwned)
	}
	var imgs, scripts int
	b.Eval(t, `document.querySelectorAll("img").length`, &imgs)
	b.Eval(t, `document.querySelectorAll("script").length`, &scripts)
	if imgs != 0 || scripts != 3 {
		t.Errorf("%d images and %d scripts in the page, want 0 and its 3", imgs, scripts)
	}
	var docTitle string
	b.Eval(t, `document.title`, &docTitle)
	if docTitle != title {
		t.Errorf("title %q, want %q as text", docTitle, title)
	}
	var labels []string
	b.Eval(t, `flamekit.frames().map(f => f.name)`, &labels)
	for _, n := range names {
		if !slices.Contains(labels, n) {
			t.Errorf("frame %q not in the flame graph (as text): %q", n, labels)
		}
	}
	// the tooltip of the long name, as text
	x, y := b.point(t, fmt.Sprintf(`flamekit.framePoint(%q)`, long))
	b.Do(t, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, x, y))
	if tip := b.text(t, "tip"); !strings.HasPrefix(tip, long+" — ") {
		t.Errorf("tooltip %.80q…", tip)
	}
	// the top table holds the names as text, and nothing else
	b.clickID(t, "view-top")
	var cells []string
	b.Eval(t, `[...document.querySelectorAll("#toptable a")].map(a => a.textContent)`, &cells)
	for _, n := range names {
		if !slices.Contains(cells, n) {
			t.Errorf("top table lacks %q", n)
		}
	}
	var extra int
	b.Eval(t, `document.querySelectorAll("#toptable *:not(tr):not(td):not(th):not(a):not(tbody)").length`, &extra)
	if extra != 0 {
		t.Errorf("%d unexpected elements in the top table", extra)
	}
	// the command quotes the filters for the shell
	if cmd := b.text(t, "cmd"); !strings.Contains(cmd, `stackfilter --focus 'it'\''s; rm -rf ~|main' |`) {
		t.Errorf("command %q does not quote the filter", cmd)
	}
	// saved: the folded stacks are the input's, the SVG flamegraph's
	folded := b.download(t, "save-folded")
	var want []string
	for i, n := range names {
		want = append(want, fmt.Sprintf("%s;main;%s %d", names[(i+1)%len(names)], n, 1000+i))
	}
	if got := sortedLines(folded); !slices.Equal(got, sortedLines(strings.Join(want, "\n"))) {
		t.Errorf("saved folded stacks:\n%q\nwant\n%q", got, want)
	}
	o := svg.DefaultOptions()
	fin := flamegraph.ReadRecords(foldedpkg.NewReader(strings.NewReader(folded), "-").All(), 0, false, flamegraph.Rewrite{}, o.MinCount)
	var ref bytes.Buffer
	if err := svg.Render(&ref, fin.Layout, &o); err != nil {
		t.Fatal(err)
	}
	if got := b.download(t, "save-svg"); got != ref.String() {
		t.Errorf("saved SVG differs from flamegraph's: %s", firstDiff(got, ref.String()))
	}
}
