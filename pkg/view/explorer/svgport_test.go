package explorer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
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
	j.Total, j.MaxDelta = l.Total, l.MaxDelta
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
// 10,000 frames (only the wide ones written as elements).
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
	cases := []struct {
		name string
		p    *folded.Profile
		o    func(*svg.Options)
	}{
		{"burst", profileOf(t, string(collapse(t, "burst"))), nil},
		{"burst-hash-inverted", profileOf(t, string(collapse(t, "burst"))), func(o *svg.Options) { o.ColorMode = svg.ColorHash; o.Inverted = true }},
		{"java-palette", java, func(o *svg.Options) { o.Colors = "java" }},
		{"node-js", profileOf(t, string(collapse(t, "node"))), func(o *svg.Options) { o.Colors = "js" }},
		{"mem", java, func(o *svg.Options) { o.Colors = "mem" }},
		{"io-hash", java, func(o *svg.Options) { o.Colors = "io"; o.ColorMode = svg.ColorHash }},
		{"aqua", java, func(o *svg.Options) { o.Colors = "aqua" }},
		{"perl", java, func(o *svg.Options) { o.Colors = "perl" }},
		{"diff-normalized", &diff, nil},
		{"hostile", profileOf(t, hostile), nil},
		{"fractions", profileOf(t, "a;b 0.5\na;c 1.25\nd 3.1\n"), nil},
		{"ties", profileOf(t, "a;b 1\na;c 2\nd 4717\n"), nil}, // total 4720: 0.25 px per count
		{"many-frames", profileOf(t, many.String()), nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := svg.DefaultOptions()
			if c.o != nil {
				c.o(&o)
			}
			l := flamegraph.LayoutProfile(c.p, flamegraph.Rewrite{})
			var want bytes.Buffer
			if err := svg.Render(&want, l, &o); err != nil {
				t.Fatal(err)
			}
			js, err := json.Marshal(toJS(l))
			if err != nil {
				t.Fatal(err)
			}
			opts := fmt.Sprintf(`{colors: %q, hash: %t, inverted: %t}`, o.Colors, o.ColorMode == svg.ColorHash, o.Inverted)
			var got string
			b.Eval(t, fmt.Sprintf(`renderSVG(%s, %s, M.svg.css, M.svg.script)`, js, opts), &got)
			if got != want.String() {
				dir := t.TempDir()
				os.WriteFile(filepath.Join(dir, "want.svg"), want.Bytes(), 0o644)
				os.WriteFile(filepath.Join(dir, "got.svg"), []byte(got), 0o644)
				t.Fatalf("the page's SVG differs from svg.Render's (%d and %d bytes): %s", len(got), want.Len(), firstDiff(got, want.String()))
			}
			if c.name == "many-frames" && len(l.Nodes) <= svg.DefaultMaxStatic {
				t.Errorf("%d frames: want more than %d", len(l.Nodes), svg.DefaultMaxStatic)
			}
		})
	}
}

func firstDiff(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	lo := max(i-120, 0)
	return fmt.Sprintf("at byte %d:\n got: %q\nwant: %q", i, a[lo:min(i+120, len(a))], b[lo:min(i+120, len(b))])
}
