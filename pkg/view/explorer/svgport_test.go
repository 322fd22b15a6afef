package explorer

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"flamekit/pkg/folded"
	"flamekit/pkg/svg"
	"flamekit/pkg/timeline"
	"flamekit/pkg/view/difffolded"
	"flamekit/pkg/view/flamegraph"
)

// jsLayout is a flamegraph.Layout as the page's renderSVG takes it.
type jsLayout struct {
	Name     []string  `json:"name"`
	Start    []float64 `json:"start"`
	End      []float64 `json:"end"`
	Depth    []int32   `json:"depth"`
	Delta    []float64 `json:"delta"`
	HasDelta []bool    `json:"hasDelta"`
	Total    float64   `json:"total"`
	MaxDelta float64   `json:"maxDelta"`
	Timed    bool      `json:"timed"`
}

func toJS(l *flamegraph.Layout) jsLayout {
	var j jsLayout
	for _, n := range l.Nodes {
		j.Name = append(j.Name, n.Name)
		j.Start = append(j.Start, n.Start)
		j.End = append(j.End, n.End)
		j.Depth = append(j.Depth, n.Depth)
		j.Delta = append(j.Delta, n.Delta)
		j.HasDelta = append(j.HasDelta, n.HasDelta)
	}
	j.Total, j.MaxDelta, j.Timed = l.Total, l.MaxDelta, l.Timed
	return j
}

func profileOf(t *testing.T, text string) *folded.Profile {
	t.Helper()
	var p folded.Profile
	rd := folded.NewReader(strings.NewReader(text), "in")
	rd.Lenient = true
	for rd.Next() {
		p.Add(rd.Record())
	}
	if err := rd.Err(); err != nil {
		t.Fatal(err)
	}
	return &p
}

// The page's SVG writer is a port of pkg/svg's Render: for the same
// layout and options, both write the same bytes. The cases cover every
// palette kind, --hash, --inverted, differential colours, names that need
// escaping, fractional and tied coordinates, and graphs of more than
// 10,000 frames (only the wide ones written as elements), and timed
// flame charts with their time axis.
func TestSVGPortEqualsRender(t *testing.T) {
	tl, _, err := readTimeline(bytes.NewReader(collapse(t, "burst")), "burst", timeline.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b := newBrowser(t, 1200, 800)
	b.open(t, "file://"+pageFile(t, "page.html", tl, Options{Title: "port"}))

	java := profileOf(t, string(collapse(t, "java")))
	var diff folded.Profile
	before, after := profileOf(t, string(collapse(t, "before"))), profileOf(t, string(collapse(t, "after")))
	lines, err := difffolded.Diff(before, after, difffolded.Options{Normalize: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range lines {
		diff.Add(&folded.Record{Stack: []byte(l.Stack), Before: l.Before, Count: l.After, Kind: folded.Diff})
	}
	// many frames: every stack of several captures, renamed apart
	var many strings.Builder
	for k := range 3 {
		for _, name := range []string{"java", "node", "go", "cpp-templates", "syswide", "kernel"} {
			for _, line := range strings.Split(string(collapse(t, name)), "\n") {
				if line != "" && line[0] != '#' {
					fmt.Fprintf(&many, "%s-%d;%s\n", name, k, line)
				}
			}
		}
	}
	hostile := "<script>alert(1)</script>;\"><img src=x onerror=alert(2)>;a&b 7\n" +
		"\u202eevil\u202c;x\x01y;tab\there 3\nq\"uote;back\\slash;\u2028line 5\n" + strings.Repeat("long", 300) + ";leaf 11\n" +
		"java/lang/Thread.run;Lfoo/Bar.baz_[j];x_[k] 4\nmod`fn;-;--;z 2\n"
	timed, _ := readTimedRecords(t, collapse(t, "burst"))
	slices.SortStableFunc(timed, func(a, b flamegraph.ChartSample) int { return cmp.Compare(a.Time, b.Time) })
	chart := func(times ...folded.Time) *flamegraph.Layout {
		var smp []flamegraph.ChartSample
		for k, at := range times {
			smp = append(smp, flamegraph.ChartSample{Time: at, TID: int32(k % 2), Has: folded.HasTID, Stack: "p;a;b"[:1+2*(k%3)]})
		}
		return flamegraph.LayoutChart(smp)
	}
	cases := []struct {
		name string
		p    *folded.Profile
		o    func(*svg.Options)
		l    *flamegraph.Layout // a flame chart's, instead of p's
	}{
		{"burst", profileOf(t, string(collapse(t, "burst"))), nil, nil},
		{"burst-hash-inverted", profileOf(t, string(collapse(t, "burst"))), func(o *svg.Options) { o.ColorMode = svg.ColorHash; o.Inverted = true }, nil},
		{"java-palette", java, func(o *svg.Options) { o.Colors = "java" }, nil},
		{"node-js", profileOf(t, string(collapse(t, "node"))), func(o *svg.Options) { o.Colors = "js" }, nil},
		{"mem", java, func(o *svg.Options) { o.Colors = "mem" }, nil},
		{"io-hash", java, func(o *svg.Options) { o.Colors = "io"; o.ColorMode = svg.ColorHash }, nil},
		{"aqua", java, func(o *svg.Options) { o.Colors = "aqua" }, nil},
		{"perl", java, func(o *svg.Options) { o.Colors = "perl" }, nil},
		{"diff-normalized", &diff, nil, nil},
		{"hostile", profileOf(t, hostile), nil, nil},
		{"fractions", profileOf(t, "a;b 0.5\na;c 1.25\nd 3.1\n"), nil, nil},
		{"ties", profileOf(t, "a;b 1\na;c 2\nd 4717\n"), nil, nil}, // total 4720: 0.25 px per count
		{"many-frames", profileOf(t, many.String()), nil, nil},
		// flame charts: the time axis's spans, from a few ns (ticks every
		// ns, nine decimals) to minutes, and an icicle
		{"chart-burst", nil, nil, flamegraph.LayoutChart(timed)},
		{"chart-burst-inverted", nil, func(o *svg.Options) { o.Inverted = true }, flamegraph.LayoutChart(timed[:len(timed)/7])},
		{"chart-ns", nil, nil, chart(0, 1, 2, 3, 5, 7)},
		{"chart-odd", nil, nil, chart(0, 333_333_333, 777_777_777, 1_234_567_891, 1_999_999_999)},
		{"chart-minutes", nil, nil, chart(0, 10e9, 190e9, 200e9, 397e9)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := svg.DefaultOptions()
			if c.o != nil {
				c.o(&o)
			}
			l := c.l
			if l == nil {
				l = flamegraph.LayoutProfile(c.p, flamegraph.Rewrite{})
			} else {
				o.Flamechart, o.CountName = true, "ns" // as flamegraph --flamechart draws timed lines
			}
			var want bytes.Buffer
			if err := svg.Render(&want, l, &o); err != nil {
				t.Fatal(err)
			}
			js, err := json.Marshal(toJS(l))
			if err != nil {
				t.Fatal(err)
			}
			opts := fmt.Sprintf(`{colors: %q, hash: %t, inverted: %t, flamechart: %t, countName: %q}`, o.Colors, o.ColorMode == svg.ColorHash, o.Inverted, o.Flamechart, o.CountName)
			var got string
			b.Eval(t, fmt.Sprintf(`renderSVG(%s, %s, M.svg.css, M.svg.script)`, js, opts), &got)
			if got != want.String() {
				dir := t.TempDir()
				os.WriteFile(filepath.Join(dir, "want.svg"), want.Bytes(), 0o644)
				os.WriteFile(filepath.Join(dir, "got.svg"), []byte(got), 0o644)
				t.Fatalf("the page's SVG differs from svg.Render's (%d and %d bytes): %s", len(got), want.Len(), firstDiff(got, want.String()))
			}
			// a timed chart's SVG has its time axis, labelled (both sides
			// could drop it and still agree)
			if axis := timeAxisRE.FindAllString(got, -1); l.Timed != (len(axis) >= 3) {
				t.Errorf("timed %t, and the SVG's time axis has %d labels %q", l.Timed, len(axis), axis)
			}
			if c.name == "many-frames" && len(l.Nodes) <= svg.DefaultMaxStatic {
				t.Errorf("%d frames: want more than %d", len(l.Nodes), svg.DefaultMaxStatic)
			}
		})
	}
}

// timeAxisRE matches the labels of a flame chart's time axis.
var timeAxisRE = regexp.MustCompile(`<text x="[0-9.]+" y="[0-9.]+">[0-9.]+ s</text>`)

// zeroSecondsRE matches the first label of a time axis.
var zeroSecondsRE = regexp.MustCompile(`>0(\.0+)? s</text>$`)

func firstDiff(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	lo := max(i-120, 0)
	return fmt.Sprintf("at byte %d:\n got: %q\nwant: %q", i, a[lo:min(i+120, len(a))], b[lo:min(i+120, len(b))])
}
