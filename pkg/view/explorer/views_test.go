package explorer

import (
	"bytes"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"flamekit/pkg/timeline"
)

// The differential and the plain flame graph, for several ranges and
// options given in the link, equal what their commands draw: the folded
// stacks line for line, the SVG byte for byte.
func TestViewsEqualTheirCommands(t *testing.T) {
	in := foldedFile(t, "burst")
	page := filepath.Join(shared, "views.html")
	shell(t, "timeslice -q --heatmap=html "+in+" > "+page)
	// A page made under a selection holds only its samples: its commands
	// carry the selection (and a page filter still narrows it).
	selPage := filepath.Join(shared, "views-comm.html")
	shell(t, "timeslice -q --heatmap=html --comm '^(bash|ls|flamekit_burst)$' "+in+" > "+selPage)
	b := newBrowser(t, 1300, 900)
	for _, frag := range []string{
		"page=comm&from=0s&to=30s",
		"page=comm&from=13.8s&to=15.8s&vs-from=2s&vs-to=4s&cpu=0",
		"from=13.8s&to=15.8s&vs-from=2s&vs-to=4s&no-idle",
		"from=13.8s&to=15.8s&vs-from=2s&vs-to=4s&no-idle&normalize",
		"from=10.2s&to=11.6s&vs-from=20s&vs-to=29.98s&colors=mem&hash",
		"from=0s&to=30s&cpu=1&colors=java&inverted",
		"from=5s&to=25s&comm=^(bash|ls)$&tid=0-100000",
		"from=13.8s&to=15.8s&no-idle&view=chart",
		"from=10s&to=20s&cpu=1&colors=java&view=chart",
		// the elided view saves and copies what it shows (issue 29)
		"from=13.8s&to=15.8s&vs-from=2s&vs-to=4s&no-idle&elided=selection",
		"from=13.8s&to=15.8s&vs-from=2s&vs-to=4s&no-idle&elided=vs",
		// stackfilter's stack filters (FILTERS.md)
		"from=0s&to=30s&focus=burst_spin|do_syscall&hide=^run$",
		"from=0s&to=30s&ignore=swapper&ignore=flamekit&show-from=do_syscall_64",
		"from=0s&to=30s&root-at=^(entry_SYSCALL|do_)&prune-from=^vfs_|^do_",
		"from=0s&to=30s&merge=^(__x64_sys_|do_|__do_).*=sys&merge=^vfs_=vfs&collapse-recursion",
		"from=0s&to=30s&no-idle&show=^(ls|bash|python3|do_syscall_64|vfs_.*|sys_.*)$",
		"from=10s&to=12s&vs-from=20s&vs-to=22s&no-idle&hide=_\\[k\\]$",
	} {
		t.Run(frag, func(t *testing.T) {
			if strings.Contains(frag, "focus=") || strings.Contains(frag, "ignore=") || strings.Contains(frag, "hide=") ||
				strings.Contains(frag, "show") || strings.Contains(frag, "root-at") || strings.Contains(frag, "merge=") {
				if !hasStackfilter() {
					t.Skip("no stackfilter command in this tree (set FLAMEKIT_STACKFILTER to one built elsewhere)")
				}
			}
			file := page
			if rest, ok := strings.CutPrefix(frag, "page=comm&"); ok {
				file, frag = selPage, rest
			}
			b.open(t, "file://"+file+"#"+frag)
			if got, _ := url.PathUnescape(b.state(t).Fragment); got != frag {
				t.Errorf("fragment read back as %q", got)
			}
			var totals pageTotals
			b.Eval(t, `flamekit.totals()`, &totals)
			if totals.Samples == 0 {
				t.Fatalf("empty selection")
			}
			cmd, _, _ := strings.Cut(b.text(t, "cmd"), "   # ")
			svgOut := regexp.MustCompile(` > (diff|flame|chart)\.svg$`)
			if !svgOut.MatchString(cmd) {
				t.Fatalf("command %q", cmd)
			}
			pipe := svgOut.ReplaceAllString(cmd, "")
			if strings.Contains(frag, "view=chart") {
				// the chart's command keeps the samples' times: its sums
				// are the page's
				lines, _ := readLines(t, shell(t, pipe[:strings.LastIndex(pipe, " | flamegraph")]))
				var w float64
				for _, l := range lines {
					w += l.count
				}
				// (a chart of more threads than fit draws the busiest: its
				// command selects them)
				var chart pageChart
				b.Eval(t, `flamekit.chart()`, &chart)
				cut := strings.Contains(b.text(t, "graph-head"), ", the busiest: ")
				if len(lines) != chart.Boxes[0].Samples || !cut && (w != totals.Weight || len(lines) != int(totals.Samples)) {
					t.Errorf("chart command: %d samples, weight %v; the chart %d samples, the page %v", len(lines), w, chart.Boxes[0].Samples, totals)
				}
				// the chart's SVG is the command's, byte for byte (a lane
				// per thread, every sample at its own time: flamegraph's
				// LayoutChart), and flamegraph --flamechart of its saved
				// timed lines
				svgPage := b.download(t, "save-svg")
				if want := string(shell(t, pipe)); svgPage != want {
					t.Errorf("the chart's SVG differs from %q: %s", pipe, firstDiff(svgPage, want))
				}
				// with its time axis, labelled from the chart's first sample
				if axis := timeAxisRE.FindAllString(svgPage, -1); len(axis) < 3 || !zeroSecondsRE.MatchString(axis[0]) {
					t.Errorf("the chart's SVG has no time axis from 0 s: %q", axis)
				}
				saved := filepath.Join(t.TempDir(), "chart.folded")
				if err := os.WriteFile(saved, []byte(b.download(t, "save-folded")), 0o644); err != nil {
					t.Fatal(err)
				}
				args := strings.TrimPrefix(pipe[strings.LastIndex(pipe, "| flamegraph"):], "| ")
				if want := string(shell(t, args+" < '"+saved+"'")); svgPage != want {
					t.Errorf("the chart's SVG differs from %s %s: %s", args, saved, firstDiff(svgPage, want))
				}
				return
			}
			folded := strings.TrimSuffix(pipe, " | "+strings.TrimPrefix(pipe[strings.LastIndex(pipe, "| flamegraph"):], "| "))
			// stackfilter writes a line per line read; flamegraph sums them
			if got, want := summed(b.download(t, "save-folded")), summed(string(shell(t, folded))); !slices.Equal(got, want) {
				t.Errorf("folded stacks differ from %q: %d and %d stacks", folded, len(got), len(want))
			}
			if got, want := b.download(t, "save-svg"), string(shell(t, pipe)); got != want {
				t.Errorf("SVG differs from %q: %s", pipe, firstDiff(got, want))
			}
		})
	}
}

// summed sums folded lines per stack (both counts of differential lines)
// and lists them sorted.
func summed(text string) []string {
	sum := map[string][2]float64{}
	for _, l := range strings.Split(strings.TrimSpace(text), "\n") {
		f := strings.Fields(l)
		if len(f) < 2 {
			continue
		}
		var a, b float64
		fmt.Sscan(f[len(f)-1], &b)
		n := 1
		if len(f) >= 3 {
			if _, err := fmt.Sscan(f[len(f)-2], &a); err == nil && !strings.Contains(f[len(f)-2], ";") {
				n = 2
			}
		}
		stack := strings.Join(f[:len(f)-n], " ")
		v := sum[stack]
		if n == 2 {
			v[0] += a
		}
		v[1] += b
		sum[stack] = v
	}
	var out []string
	for s, v := range sum {
		out = append(out, fmt.Sprintf("%s %v %v", s, v[0], v[1]))
	}
	slices.Sort(out)
	return out
}

// Two hosts: a lane each on one wall-clock axis; a selection in the
// second lane gives a command that names only that host's input, on its
// own perf clock.
func TestHostLanes(t *testing.T) {
	text := string(collapse(t, "burst"))
	// vm: the capture as it is, with a clock reference; web01: the same
	// samples 1000 s later on its perf clock, 5 s later on the wall clock.
	vm := strings.Replace(text, `host="vm"`, `host="vm" ref-wall="2026-11-22T02:24:00Z" ref-perf="413.000000"`, 1)
	lines, _ := readLines(t, []byte(text))
	var web strings.Builder
	web.WriteString(`# flamekit v1 timed host="web01" ref-wall="2026-11-22T02:24:00Z" ref-perf="1408.000000"` + "\n")
	for _, l := range lines {
		fmt.Fprintf(&web, "%s %d @%v cpu=%d\n", l.stack, int64(l.count), l.at+1000e9, l.cpu)
	}
	dir := t.TempDir()
	a, w := filepath.Join(dir, "vm.folded"), filepath.Join(dir, "web01.folded")
	os.WriteFile(a, []byte(vm), 0o644)
	os.WriteFile(w, []byte(web.String()), 0o644)
	page := filepath.Join(dir, "lanes.html")
	shell(t, fmt.Sprintf("timeslice -q --heatmap=html --no-idle %s %s > %s", a, w, page))
	b := newBrowser(t, 1300, 1100)
	b.open(t, "file://"+page)
	var heads []string
	b.Eval(t, `[...document.querySelectorAll(".lanehead")].map(e => e.textContent)`, &heads)
	if len(heads) != 2 || !strings.HasPrefix(heads[0], "host vm") || !strings.HasPrefix(heads[1], "host web01") {
		t.Fatalf("lanes %q", heads)
	}
	var shift []float64
	b.Eval(t, `HM.shift`, &shift)
	if len(shift) != 2 || shift[1] != shift[0]-995 {
		t.Errorf("lane shifts %v: want web01's 995 columns before vm's (1000 s later on its clock, 5 s later on the wall)", shift)
	}
	// web01's burst: 1013.8 s to 1015.8 s after the axis origin
	x, y := b.point(t, `flamekit.cellPoint(1, 1013.8e9)`)
	b.Click(t, x, y)
	x, y = b.point(t, `flamekit.cellPoint(1, 1015.79e9)`)
	b.Click(t, x, y)
	st := b.state(t)
	if !strings.Contains(st.Fragment, "host=web01") {
		t.Errorf("fragment %q: want host=web01", st.Fragment)
	}
	cmd := b.text(t, "cmd")
	want := fmt.Sprintf("timeslice --from @1427.217927 --to @1429.217927 --no-idle %s | flamegraph > flame.svg", w)
	if cmd != want {
		t.Fatalf("command %q\nwant    %q", cmd, want)
	}
	out := shell(t, strings.TrimSuffix(cmd, " | flamegraph > flame.svg"))
	var sum float64
	n := 0
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var c float64
		fmt.Sscan(l[strings.LastIndexByte(l, ' ')+1:], &c)
		sum += c
		n++
	}
	if tot := b.totals(t); tot.Weight != sum {
		t.Errorf("page: weight %v; the command: %v", tot.Weight, sum)
	}
}

// A page over its budget keeps the whole capture at wider cells and says
// how to cut a window for full detail; that command works.
func TestBudget(t *testing.T) {
	tl, _, err := readTimeline(bytes.NewReader(collapse(t, "burst")), "burst", timeline.Options{})
	if err != nil {
		t.Fatal(err)
	}
	in := foldedFile(t, "burst")
	var page bytes.Buffer
	st, err := Write(&page, tl, Options{Budget: 600, Files: []string{in}})
	if err != nil {
		t.Fatal(err)
	}
	if st.Rows >= tl.Rows && st.Seconds == 1 || st.Entries > 600 && st.Seconds < 86400 {
		t.Fatalf("budget 600 entries: %d rows, %d s cells, %d entries", st.Rows, st.Seconds, st.Entries)
	}
	path := filepath.Join(t.TempDir(), "budget.html")
	os.WriteFile(path, page.Bytes(), 0o644)
	b := newBrowser(t, 1300, 900)
	b.open(t, "file://"+path+"#from=0s&to=40s")
	if tot, s, w := b.totals(t), tl.Samples, 0.0; int64(tot.Samples) != s {
		_, w = tl.Total()
		t.Errorf("whole capture at wide cells: %v, want %d samples, weight %v", tot, s, w)
	}
	if l := b.text(t, "legend"); !strings.Contains(l, "for full detail cut a window") {
		t.Errorf("legend %q", l)
	}
	detail := strings.TrimPrefix(b.text(t, "detail-cmd"), "Full detail: ")
	if !strings.HasPrefix(detail, "timeslice --from ") || !strings.Contains(detail, "--heatmap=html --rows 50") {
		t.Fatalf("detail command %q", detail)
	}
	shell(t, strings.Replace(detail, "timeslice ", "timeslice -q ", 1))
	if fi, err := os.Stat(filepath.Join(shared, "detail.html")); err != nil || fi.Size() < 10000 {
		t.Errorf("the detail command wrote no page: %v", err)
	}
}

// Without script the page shows the heat map as a picture.
func TestNoScript(t *testing.T) {
	in := foldedFile(t, "burst")
	page := filepath.Join(shared, "noscript.html")
	shell(t, "timeslice -q --heatmap=html --no-idle "+in+" > "+page)
	b := newBrowser(t, 1300, 900)
	if _, err := chromedp.Call(b.Ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
		t.Fatal(err)
	}
	b.Do(t, chromedp.Navigate("file://"+page))
	box, err := chromedp.Run(b.Ctx, chromedp.Dimensions(chromedp.CSS("noscript img")))
	if err != nil {
		t.Fatal(err)
	}
	if box.Width < 600 || box.Height < 300 {
		t.Errorf("without script the picture is %d×%d px, want the heat map", box.Width, box.Height)
	}
	src, err := chromedp.Run(b.Ctx, chromedp.AttributeValue(chromedp.CSS("noscript img"), "src"))
	if err != nil || !strings.HasPrefix(src.Value, "data:image/svg+xml;base64,") {
		t.Errorf("picture source %.40q: %v", src.Value, err)
	}
}

// A page of a capture over the builder's budget (timeline.Options.Budget,
// as timeslice --heatmap=html builds it) keeps each cell's heaviest
// stacks and sums the rest per process: it says so, its totals are the
// capture's, the rest is a "process;[other stacks]" frame of the flame
// graph, and it gives the command for full detail.
func TestAggregatedPage(t *testing.T) {
	tl, _, err := readTimeline(bytes.NewReader(collapse(t, "burst")), "burst", timeline.Options{Budget: 100, Cap: 8})
	if err != nil {
		t.Fatal(err)
	}
	r := tl.Reduced
	if r == nil || r.Cap != 8 || r.Other == 0 || len(tl.Entries) > 100 {
		t.Fatalf("budget 100, cap 8: %d entries, Reduced %+v", len(tl.Entries), r)
	}
	in := foldedFile(t, "burst")
	var page bytes.Buffer
	if _, err := Write(&page, tl, Options{Files: []string{in}}); err != nil {
		t.Fatal(err)
	}
	if s := page.String(); !strings.Contains(s, "<p class=\"note\">Aggregated: ") || !strings.Contains(s, "keeps, per input, its 8 heaviest stacks") {
		t.Errorf("the page does not say it is aggregated")
	}
	path := filepath.Join(t.TempDir(), "aggregated.html")
	os.WriteFile(path, page.Bytes(), 0o644)
	b := newBrowser(t, 1300, 900)
	b.open(t, "file://"+path+"#from=0s&to=40s")
	_, w := tl.Total()
	if tot := b.totals(t); int64(tot.Samples) != tl.Samples || tot.Weight != w {
		t.Errorf("whole capture: %+v, want %d samples, weight %v", tot, tl.Samples, w)
	}
	var other bool
	b.Eval(t, `F.some(function (f) { return f === "[other stacks]"; })`, &other)
	if !other {
		t.Errorf("no [other stacks] frame in the page's data")
	}
	detail := strings.TrimPrefix(b.text(t, "detail-cmd"), "Full detail: ")
	if !strings.HasPrefix(detail, "timeslice --from ") || !strings.Contains(detail, "--heatmap=html --rows 50") {
		t.Errorf("detail command %q", detail)
	}
}

// A heat map picture larger than the page carries is left out, with a
// note that says why and which command draws it.
func TestNoScriptPictureTooLarge(t *testing.T) {
	tl, _, err := readTimeline(bytes.NewReader(collapse(t, "burst")), "burst", timeline.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		max  int
		want string
	}{
		{0, `<img alt="sub-second heat map" src="data:image/svg+xml;base64,`},
		{1000, `<p class="note">No picture: the heat map&#39;s SVG takes `},
	} {
		var page bytes.Buffer
		if _, err := Write(&page, tl, Options{MaxPicture: c.max}); err != nil {
			t.Fatal(err)
		}
		if s := page.String(); !strings.Contains(s, c.want) || c.max > 0 && (strings.Contains(s, "<img") || !strings.Contains(s, "timeslice --heatmap draws it")) {
			t.Errorf("MaxPicture %d: the page does not hold %q", c.max, c.want)
		}
	}
}
