package heatmap

import (
	"bytes"
	"encoding/base64"
	"encoding/xml"
	"errors"
	"fmt"
	"image/png"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"flamekit/pkg/folded"
	"flamekit/pkg/tool/slicecmd"
)

func sec(s string) folded.Time {
	t, err := folded.ParseTime([]byte(s))
	if err != nil {
		panic(err)
	}
	return t
}

func TestCellBoundaries(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, rows := range []int{1, 7, 10, 25, 49, 50, 99, 100, 1000} {
		origin := folded.Time(rng.Int64N(1e13))
		m := New(rows, origin)
		for i := 0; i < 20000; i++ {
			tm := folded.Time(rng.Int64N(2e13))
			s, row := m.Cell(tm)
			if row < 0 || row >= rows {
				t.Fatalf("rows %d: Cell(%v) row %d", rows, tm, row)
			}
			if lo, hi := m.CellStart(s, row), m.CellStart(s, row+1); tm < lo || tm >= hi {
				t.Fatalf("rows %d: %v in cell (%d,%d) = [%v, %v)", rows, tm, s, row, lo, hi)
			}
		}
		for row := 0; row < rows; row++ {
			start := m.CellStart(5, row)
			if s, r := m.Cell(start); s != 5 || r != row {
				t.Fatalf("rows %d: the start of row %d, %v, is in (%d,%d)", rows, row, start, s, r)
			}
			if s, r := m.Cell(start - 1); row > 0 && (s != 5 || r != row-1) {
				t.Fatalf("rows %d: just before row %d is in (%d,%d)", rows, row, s, r)
			}
		}
	}
}

// Columns count from the first sample: what the map calls second 14 is
// what --from 14s means.
func TestColumnsCountFromTheFirstSample(t *testing.T) {
	m := New(50, sec("589.163392"))
	for _, s := range []string{"589.163392", "603.163392", "603.383392", "604.163391"} {
		m.Add(sec(s))
	}
	g := m.Grid()
	if g.First != 0 || g.Cols != 15 || g.Total != 4 || g.Max != 1 {
		t.Fatalf("grid first %d cols %d total %d max %d", g.First, g.Cols, g.Total, g.Max)
	}
	// 603.163392 is 14 s after the first sample: column 14, row 0;
	// 603.383392 is 14.22 s: row 11; 604.163391 is just before 15 s.
	if g.Count(14, 0) != 1 || g.Count(14, 11) != 1 || g.Count(14, 49) != 1 || g.Count(0, 0) != 1 {
		t.Errorf("cells of column 14: %v", g.Column(14))
	}
	if got := g.CellStart(14, 10); got != sec("603.363392") {
		t.Errorf("column 14 row 10 starts at %v, want @603.363392 (14.2 s after the first sample)", got)
	}
}

// Seconds that only idle samples cover (Cover) count at both ends: two
// samples at 10.5 s (busy) and 13.7 s (idle) give four columns.
func TestIdleSecondsAtBothEnds(t *testing.T) {
	for _, tt := range []struct {
		name       string
		busy, idle []string
		first      int64
		cols       int
	}{
		{"trailing idle", []string{"10.5"}, []string{"13.7"}, 0, 4},
		{"leading idle", []string{"13.7"}, []string{"10.5"}, 0, 4},
		{"idle only", nil, []string{"10.5", "13.7"}, 0, 4},
	} {
		m := New(10, sec("10.5"))
		for _, s := range tt.busy {
			m.Add(sec(s))
		}
		for _, s := range tt.idle {
			m.Cover(sec(s))
		}
		g := m.Grid()
		if g.First != tt.first || g.Cols != tt.cols {
			t.Errorf("%s: columns %d from %d, want %d from %d", tt.name, g.Cols, g.First, tt.cols, tt.first)
		}
	}
}

func TestAddOutOfOrder(t *testing.T) {
	m := New(10, sec("5.0"))
	for _, t := range []folded.Time{5.05e9, 6.15e9, 5.06e9, 4.95e9, 6.16e9} {
		m.Add(t)
	}
	g := m.Grid()
	if g.First != -1 || g.Cols != 3 || g.Count(0, 9) != 1 || g.Count(1, 0) != 2 || g.Count(2, 1) != 2 || g.Total != 5 || g.Max != 2 {
		t.Errorf("grid first %d cols %d: want second -1 (4.95 s), 0: 2 in row 0, 1: 2 in row 1", g.First, g.Cols)
	}
}

func TestColorsAndLevels(t *testing.T) {
	for _, tt := range []struct {
		n, max int64
		want   string
	}{{0, 10, "#FFFFFF"}, {10, 10, "#E50914"}, {5, 10, "#FF5032"}, {0, 0, "#FFFFFF"}, {1, 1, "#E50914"}} {
		if got := Color(tt.n, tt.max).String(); got != tt.want {
			t.Errorf("Color(%d, %d) = %s, want %s", tt.n, tt.max, got, tt.want)
		}
	}
	prev := Color(1, 100)
	for n := int64(2); n <= 100; n++ {
		c := Color(n, 100)
		if c.G > prev.G || c.B > prev.B {
			t.Fatalf("Color(%d) %v is not hotter than Color(%d) %v", n, c, n-1, prev)
		}
		prev = c
	}
	for _, tt := range []struct {
		n, max int64
		want   int
	}{{0, 5, 0}, {1, 100000, 1}, {5, 5, 255}, {6, 5, 255}, {1, 2, 128}, {50, 100, 128}} {
		if got := Level(tt.n, tt.max); got != tt.want {
			t.Errorf("Level(%d, %d) = %d, want %d", tt.n, tt.max, got, tt.want)
		}
	}
	if p := Palette(); p[0] != White || p[Levels-1] != Hot || p[Levels/2] != Color(Levels/2, Levels-1) {
		t.Errorf("palette ends %v %v", p[0], p[Levels-1])
	}
	if Shade(0, 5) != ' ' || Shade(5, 5) != '@' || Shade(1, 1000) != '.' {
		t.Errorf("shades %q %q %q", Shade(0, 5), Shade(5, 5), Shade(1, 1000))
	}
}

// rangeCommand is the command of the cells from (c1, r1) to (c2, r2).
func rangeCommand(g *Grid, c1, r1, c2, r2 int, args string) string {
	from, to := g.CellRange(c1, r1, c2, r2)
	return slicecmd.Range(from, to, args)
}

func TestRangeCommand(t *testing.T) {
	m := New(50, sec("413.0"))
	m.Add(sec("413.0"))
	m.Add(sec("430.0"))
	g := m.Grid()
	want := "timeslice --from @427.200000 --to @429.220000 x.folded"
	if got := rangeCommand(g, 14, 10, 16, 10, " x.folded"); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := rangeCommand(g, 16, 10, 14, 10, " x.folded"); got != want {
		t.Errorf("end before start: got %q, want %q", got, want)
	}
	g.Rows = 49 // buckets that are not whole microseconds
	if got := rangeCommand(g, 0, 48, 0, 48, ""); got != "timeslice --from @413.979591837 --to @414.000000" {
		t.Errorf("rows 49: %q", got)
	}
}

func TestRLE(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for i := 0; i < 200; i++ {
		n := rng.IntN(500)
		want := make([]uint64, n)
		for j := range want {
			switch rng.IntN(4) {
			case 0:
				want[j] = rng.Uint64N(1 << 34)
			case 1:
				want[j] = rng.Uint64N(200)
			}
		}
		var e rle
		for _, v := range want {
			e.put(v)
		}
		e.flush()
		got, err := decodeRLE(e.buf, n)
		if err != nil || fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("round trip of %v: %v %v", want, got, err)
		}
	}
}

// The index of the cell data points at the first cell of every chunk.
func TestCellDataIndex(t *testing.T) {
	m := New(7, 0)
	rng := rand.New(rand.NewPCG(7, 8))
	for i := 0; i < 3000; i++ {
		if s := rng.Int64N(400); s < 100 || s > 250 { // a gap of 150 empty seconds
			m.Add(folded.Time(s*1e9 + rng.Int64N(1e9)))
		}
	}
	g := m.Grid()
	data, index := g.cellData()
	if len(index) != (g.Cols+ChunkSeconds-1)/ChunkSeconds {
		t.Fatalf("%d index entries for %d columns", len(index), g.Cols)
	}
	for k, off := range index {
		cols := min(ChunkSeconds, g.Cols-k*ChunkSeconds)
		end := len(data)
		if k+1 < len(index) {
			end = index[k+1]
		}
		got, err := decodeRLE(data[off:end], cols*g.Rows)
		if err != nil {
			t.Fatalf("chunk %d: %v", k, err)
		}
		for i, v := range got {
			c, r := k*ChunkSeconds+i/g.Rows, i%g.Rows
			if uint32(v) != g.Count(c, r) {
				t.Fatalf("chunk %d: cell (%d,%d) = %d, want %d", k, c, r, v, g.Count(c, r))
			}
		}
	}
}

func TestOverview(t *testing.T) {
	m := New(50, sec("1000.25"))
	m.Add(sec("1000.25"))
	for i := 0; i < 7; i++ {
		m.Add(sec("1000.25") + sec("5000.5")) // second 5000
	}
	m.Cover(sec("1000.25") + sec("43199.9")) // twelve hours
	g := m.Grid()
	if !g.Long() || g.Cols != 43200 {
		t.Fatalf("%d columns, long %v", g.Cols, g.Long())
	}
	o := g.Overview()
	if o.Len != 120 || o.Cols != 360 || o.First != 0 || o.Max != 7 {
		t.Fatalf("overview len %d cols %d first %d max %d", o.Len, o.Cols, o.First, o.Max)
	}
	// Second 5000 is in column 41 (4920..5039), row 40 (5000..5001).
	if o.Counts[41*OverviewRows+40] != 7 || o.Counts[0] != 1 {
		t.Errorf("overview cells: %d, %d", o.Counts[41*OverviewRows+40], o.Counts[0])
	}
	segs := o.segments(g.Origin, g.Origin+sec("5000.5"), g.Origin+sec("5003"))
	if fmt.Sprint(segs) != "[{41 40 41}]" {
		t.Errorf("segments %v", segs)
	}
	segs = g.detailSegments(g.Origin+sec("5000.5"), g.Origin+sec("5002.02"), 4999, 300)
	if fmt.Sprint(segs) != "[{1 25 49} {2 0 49} {3 0 0}]" {
		t.Errorf("detail segments %v", segs)
	}
}

func smallGrid() *Grid {
	m := New(DefaultRows, sec("100.25"))
	for i := 0; i < 400; i++ {
		m.Add(sec("100.25") + folded.Time(i)*sec("0.013"))
	}
	for i := 0; i < 100; i++ {
		m.Add(sec("102.5") + folded.Time(i)*sec("0.001"))
	}
	m.Cover(sec("105.9"))
	return m.Grid()
}

func wellFormed(t *testing.T, svg []byte) {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(svg))
	for {
		_, err := dec.Token()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatalf("SVG is not well-formed XML: %v", err)
		}
	}
}

func TestSVGIsWellFormedAndEscaped(t *testing.T) {
	g := smallGrid()
	info := Info{
		Title:  `host <b>&"evil"</b> ]]> ` + "\x01\xff",
		Notes:  []string{"note <x>"},
		Args:   ` '"><script>alert(1)</script>'`,
		Inputs: []Source{{Arg: `'/a/"]]></script>.folded'`}},
		NoIdle: true,
		Wall:   func(t folded.Time) time.Time { return time.Unix(1700000000, 0).Add(time.Duration(t)) },
		Marks:  []Mark{{From: sec("102.5"), To: sec("102.6"), Label: "z 9 <b>"}},
	}
	var b bytes.Buffer
	if err := g.WriteSVG(&b, info); err != nil {
		t.Fatal(err)
	}
	svg := b.String()
	wellFormed(t, b.Bytes())
	if strings.Contains(svg, "<b>") || strings.Contains(svg, "<script>alert") || strings.Count(svg, "]]>") != 2 {
		t.Error("input text reached the SVG unescaped")
	}
	if strings.Contains(script, "]]>") {
		t.Error("the script contains ]]>, which ends its CDATA section")
	}
	for _, want := range []string{`data-args=" '&quot;&gt;&lt;script&gt;`, "idle excluded", "0 ms", "seconds after the first sample (@100.250000)", "second 14 here is --from 14s", `class="mark"`, "1. z 9 &lt;b&gt;"} {
		if !strings.Contains(svg, want) {
			t.Errorf("SVG lacks %q", want)
		}
	}
	// The data object holds numbers and base64 only.
	data := regexp.MustCompile(`(?s)var hmData = \{(.*?)\};`).FindStringSubmatch(svg)
	if data == nil {
		t.Fatal("no data object")
	}
	if bad := regexp.MustCompile(`[^-a-z0-9A-Z+/=:,\[\]{}" \n#]`).FindString(data[1]); bad != "" {
		t.Errorf("the data object holds %q", bad)
	}
}

// The static images are the map: decoded, their pixels have the colours
// of the cells.
func TestStaticImage(t *testing.T) {
	g := smallGrid()
	var b bytes.Buffer
	if err := g.WriteSVG(&b, Info{Title: "t"}); err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`id="dimg" x="(\d+)" y="(\d+)" width="(\d+)" height="(\d+)" preserveAspectRatio="none" xlink:href="data:image/png;base64,([^"]+)"`).FindStringSubmatch(b.String())
	if m == nil {
		t.Fatal("no detail image")
	}
	raw, err := base64.StdEncoding.DecodeString(m[5])
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	l := g.layout(0, nil)
	if img.Bounds().Dx() != g.Cols*l.cw || img.Bounds().Dy() != g.Rows*l.ch {
		t.Fatalf("image %v, want %dx%d", img.Bounds(), g.Cols*l.cw, g.Rows*l.ch)
	}
	pal := Palette()
	for c := 0; c < g.Cols; c++ {
		for r := 0; r < g.Rows; r++ {
			want := pal[Level(int64(g.Count(c, r)), int64(g.Max))]
			x, y := c*l.cw+l.cw/2, (g.Rows-1-r)*l.ch+l.ch/2
			cr, cg, cb, _ := img.At(x, y).RGBA()
			if got := (RGB{uint8(cr >> 8), uint8(cg >> 8), uint8(cb >> 8)}); got != want {
				t.Fatalf("cell (%d,%d) of %d samples: pixel %v, want %v", c, r, g.Count(c, r), got, want)
			}
		}
	}
}

func TestText(t *testing.T) {
	g := smallGrid()
	var b bytes.Buffer
	info := Info{Title: "test \x1b[31mred", NoIdle: true, Marks: []Mark{{From: sec("102.5"), To: sec("102.6"), Label: "burst"}}}
	if err := g.WriteText(&b, info); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.Contains(out, "\x1b") {
		t.Error("escape sequence from the input reached the terminal")
	}
	var rows []string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "  @10") {
			rows = append(rows, l)
		}
	}
	if len(rows) != 6 {
		t.Fatalf("%d second lines, want 6 (100.25 to 105.9):\n%s", len(rows), out)
	}
	// Second 2 (from 102.25) holds the 100-sample burst at 102.5-102.6,
	// 250 to 350 ms into it: rows 12 to 17.
	bar := rows[2][strings.Index(rows[2], "|")+1:]
	if bar[13] != '@' || bar[16] != '@' || bar[11] == '@' || bar[18] == '@' || !strings.HasSuffix(rows[2], "@102.250000  <- mark 1") {
		t.Errorf("second 2: %q", rows[2])
	}
}

// The script's helpers agree with the Go ones.
func TestScriptAgreesWithGo(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: cannot run the SVG's script outside a browser")
	}
	dir := t.TempDir()
	js := filepath.Join(dir, "heatmap.js")
	if err := os.WriteFile(js, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	var prog strings.Builder
	fmt.Fprintf(&prog, "const h = require(%q);\n", js)
	var want []string
	rng := rand.New(rand.NewPCG(3, 4))
	for _, rows := range []int{1, 7, 49, 50, 99, 100, 1000} {
		for i := 0; i < 30; i++ {
			origin := folded.Time(rng.Int64N(5e15))
			m := New(rows, origin)
			m.Add(origin)
			m.Add(origin + 100e9)
			g := m.Grid()
			c1, r1, c2, r2 := rng.IntN(100), rng.IntN(rows), rng.IntN(100), rng.IntN(rows)
			o := int64(origin)
			fmt.Fprintf(&prog, "console.log(h.rangeCommand([%d,%d],%d,%d,%d,%d,%d,\" 'a b'\"));\n", o/1e9, o%1e9, rows, c1, r1, c2, r2)
			want = append(want, rangeCommand(g, c1, r1, c2, r2, " 'a b'"))
			fmt.Fprintf(&prog, "console.log(h.formatMs(%d,%d));\n", r1, rows)
			want = append(want, formatMs(float64(r1)*1000/float64(rows)))
		}
	}
	for _, ns := range []int64{0, 1, 14200000000, 14220000000, 123456789012, -1500000000} {
		fmt.Fprintf(&prog, "console.log(h.formatRel(%d));\n", ns)
		s := strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.9f", float64(ns)/1e9), "0"), ".")
		want = append(want, s+"s")
	}
	for _, c := range [][2]int64{{0, 1}, {1, 100000}, {5, 5}, {1, 2}, {50, 100}, {77, 194}, {3, 4000000000}} {
		fmt.Fprintf(&prog, "console.log(h.level(%d,%d));\n", c[0], c[1])
		want = append(want, fmt.Sprint(Level(c[0], c[1])))
	}
	var e rle
	vals := []uint64{0, 0, 3, 1 << 33, 0, 127, 128, 0, 0, 0, 4000000000, 1}
	for _, v := range vals {
		e.put(v)
	}
	e.flush()
	fmt.Fprintf(&prog, "console.log(Array.from(h.decode(Buffer.from(%q, 'base64').toString('latin1'), 0, %d, Float64Array)).join(' '));\n",
		base64.StdEncoding.EncodeToString(e.buf), len(vals))
	want = append(want, strings.Trim(fmt.Sprint(vals), "[]"))
	out, err := exec.Command(node, "-e", prog.String()).CombinedOutput()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	got := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(got) != len(want) {
		t.Fatalf("%d lines from node, want %d:\n%s", len(got), len(want), out)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %d: script %q, Go %q", i, got[i], want[i])
		}
	}
}

// Samples of two boots (or a stray time) far apart are an error, not
// millions of empty columns.
func TestSpanTooLong(t *testing.T) {
	m := New(50, sec("413.4"))
	m.Add(sec("413.4"))
	m.Add(sec("9000000000.5")) // a stray time, 285 years later
	g := m.Grid()
	var b bytes.Buffer
	if err := g.WriteSVG(&b, Info{}); !errors.Is(err, ErrSpan) || b.Len() != 0 {
		t.Errorf("WriteSVG: %v, %d bytes", err, b.Len())
	}
	if err := g.WriteText(&b, Info{}); !errors.Is(err, ErrSpan) || !strings.Contains(err.Error(), "--from") {
		t.Errorf("WriteText: %v", err)
	}
}
