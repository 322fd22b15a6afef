package svg

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"flamekit/pkg/folded"
	"flamekit/pkg/view/flamegraph"
)

// draw lays out and renders a folded file the way the flamegraph command
// does (lenient reading, frame-wise merge or input order).
func draw(t testing.TB, path string, o Options, rw flamegraph.Rewrite, flamechart bool) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rd := folded.NewReader(f, path)
	rd.Lenient = true
	var l *flamegraph.Layout
	if flamechart {
		b := flamegraph.NewBuilder()
		for rd.Next() {
			r := rd.Record()
			b.Add(rw.Apply(string(r.Stack)), r.Count, r.Before, r.Kind == folded.Diff)
		}
		l = b.Layout()
	} else {
		var p folded.Profile
		for rd.Next() {
			p.Add(rd.Record())
		}
		l = flamegraph.LayoutProfile(&p, rw)
	}
	if err := rd.Err(); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Render(&buf, l, &o); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

var (
	perlFrameRE = regexp.MustCompile(`<title>(.*?)</title><rect x="([^"]*)" y="([^"]*)" width="([^"]*)" height="([^"]*)" fill="([^"]*)"`)
	perlLabelRE = regexp.MustCompile(`<text  ?x="([^"]*)" y="([^"]*)" ?>([^<]+)</text>`)
	svgSizeRE   = regexp.MustCompile(`<svg version="1.1" width="([^"]*)" height="([^"]*)"`)
)

// frameSet returns the frames of an SVG as sorted "x y width height fill
// tooltip" strings: flamegraph.pl writes frames in hash order, so frames
// are compared as a set.
func frameSet(svg []byte) []string {
	var out []string
	for _, m := range perlFrameRE.FindAllSubmatch(svg, -1) {
		out = append(out, string(bytes.Join([][]byte{m[2], m[3], m[4], m[5], m[6], m[1]}, []byte(" "))))
	}
	slices.Sort(out)
	return out
}

// labelSet returns the non-empty frame labels as sorted "x y text".
func labelSet(svg []byte) []string {
	var out []string
	for _, m := range perlLabelRE.FindAllSubmatch(svg, -1) {
		out = append(out, string(m[1])+" "+string(m[2])+" "+string(m[3]))
	}
	slices.Sort(out)
	return out
}

func withOpts(f func(o *Options)) Options {
	o := DefaultOptions()
	if f != nil {
		f(&o)
	}
	return o
}

// TestPerlFixtures compares our SVGs with flamegraph.pl's, frame for
// frame (x, y, width, height, fill, tooltip), label for label, and the
// image size.
func TestPerlFixtures(t *testing.T) {
	tests := []struct {
		svg, input string
		opts       func(o *Options)
		rw         flamegraph.Rewrite
		flamechart bool
	}{
		{svg: "tiny.svg", input: "tiny.folded"},
		{svg: "diff.svg", input: "diff-input.folded"},
		{svg: "diff.negate.svg", input: "diff-input.folded", opts: func(o *Options) { o.Negate = true }},
		{svg: "fc.svg", input: "fc.folded"},
		{svg: "fc.flamechart.svg", input: "fc.folded", opts: func(o *Options) { o.Flamechart = true }, flamechart: true},
		{svg: "pal.svg", input: "pal.folded"},
		{svg: "pal.hash.svg", input: "pal.folded", opts: func(o *Options) { o.ColorMode = ColorHash }},
		{svg: "pal.io.svg", input: "pal.folded", opts: func(o *Options) { o.Colors = "io" }},
		{svg: "pal.mem.svg", input: "pal.folded", opts: func(o *Options) { o.Colors = "mem" }},
		{svg: "pal.java.svg", input: "pal.folded", opts: func(o *Options) { o.Colors = "java" }},
		{svg: "pal.js.svg", input: "pal.folded", opts: func(o *Options) { o.Colors = "js" }},
		{svg: "pal.perl.svg", input: "pal.folded", opts: func(o *Options) { o.Colors = "perl" }},
		{svg: "pal.chain.svg", input: "pal.folded", opts: func(o *Options) { o.Colors = "chain" }, rw: flamegraph.Rewrite{Chain: true}},
		// parse.folded's first line ends in CR: pkg/folded reads CRLF lines,
		// flamegraph.pl ignores them. parse-lf.folded is the file without it.
		{svg: "parse.svg", input: "parse-lf.folded"},
		{svg: "tick.svg", input: "tick.folded"},
		{svg: "trunc.svg", input: "trunc.folded"},
	}
	for _, tt := range tests {
		t.Run(tt.svg, func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join("testdata/compat", tt.svg))
			if err != nil {
				t.Fatal(err)
			}
			got := draw(t, filepath.Join("testdata/compat", tt.input), withOpts(tt.opts), tt.rw, tt.flamechart)
			if g, w := svgSizeRE.FindSubmatch(got), svgSizeRE.FindSubmatch(want); !bytes.Equal(g[0], w[0]) {
				t.Errorf("size: got %s, want %s", g[0], w[0])
			}
			compareSets(t, "frame", frameSet(got), frameSet(want))
			compareSets(t, "label", labelSet(got), labelSet(want))
		})
	}
}

func compareSets(t *testing.T, what string, got, want []string) {
	t.Helper()
	if len(want) == 0 {
		t.Fatalf("no %ss in the expected SVG", what)
	}
	for _, w := range want {
		if !slices.Contains(got, w) {
			t.Errorf("missing %s: %s", what, w)
		}
	}
	for _, g := range got {
		if !slices.Contains(want, g) {
			t.Errorf("extra %s: %s", what, g)
		}
	}
}

// TestSplitFrames: flamegraph.pl draws "foo" twice for split.folded (its
// whole-line sort puts main;foo.bar between main;foo and main;foo;baz);
// frame-wise merge draws it once, with everything else where Perl puts it.
func TestSplitFrames(t *testing.T) {
	got := frameSet(draw(t, "testdata/compat/split.folded", DefaultOptions(), flamegraph.Rewrite{}, false))
	want := frameSet(mustRead(t, "testdata/compat/split.svg"))
	// Perl: foo (3 samples) at 10.0 and foo (1 sample) at 954.0 with baz on it.
	var foos []string
	for _, g := range got {
		if strings.HasSuffix(g, "foo (4 samples, 80.00%)") {
			foos = append(foos, g)
		}
	}
	if len(foos) != 1 {
		t.Fatalf("want one merged foo frame of 4 samples, got %q in %q", foos, got)
	}
	if len(got) != len(want)-1 {
		t.Errorf("got %d frames, want %d (Perl's minus the split one)", len(got), len(want)-1)
	}
}

func mustRead(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
