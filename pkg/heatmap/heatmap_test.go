package heatmap

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
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
)

func TestCellBoundaries(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, rows := range []int{1, 7, 10, 25, 49, 50, 99, 100, 1000} {
		m := New(rows)
		for i := 0; i < 20000; i++ {
			tm := folded.Time(rng.Int64N(1e13))
			sec, row := m.Cell(tm)
			if row < 0 || row >= rows {
				t.Fatalf("rows %d: Cell(%v) row %d", rows, tm, row)
			}
			if lo, hi := CellStart(sec, row, rows), CellStart(sec, row+1, rows); tm < lo || tm >= hi {
				t.Fatalf("rows %d: %v in cell (%d,%d) = [%v, %v)", rows, tm, sec, row, lo, hi)
			}
		}
		for row := 0; row < rows; row++ {
			start := CellStart(5, row, rows)
			if s, r := m.Cell(start); s != 5 || r != row {
				t.Fatalf("rows %d: the start of row %d, %v, is in (%d,%d)", rows, row, start, s, r)
			}
			if s, r := m.Cell(start - 1); row > 0 && (s != 5 || r != row-1) {
				t.Fatalf("rows %d: just before row %d is in (%d,%d)", rows, row, s, r)
			}
		}
	}
}

func TestGridAndColors(t *testing.T) {
	m := New(50)
	m.SetOrigin(sec("413.417927"))
	for _, s := range []string{"413.5", "413.501", "415.999999", "416.0"} {
		m.Add(sec(s))
	}
	g := m.Grid()
	if g.Base != 413 || len(g.Counts) != 4 || g.Max != 2 || g.Total != 4 {
		t.Fatalf("grid base %d cols %d max %d total %d", g.Base, len(g.Counts), g.Max, g.Total)
	}
	if g.Counts[0][25] != 2 || g.Counts[2][49] != 1 || g.Counts[3][0] != 1 {
		t.Errorf("cells %v", g.Counts)
	}
	for _, tt := range []struct {
		n, max int64
		want   string
	}{{0, 10, "#FFFFFF"}, {10, 10, "#E50914"}, {5, 10, "#FF5032"}, {0, 0, "#FFFFFF"}, {1, 1, "#E50914"}} {
		if got := Color(tt.n, tt.max).String(); got != tt.want {
			t.Errorf("Color(%d, %d) = %s, want %s", tt.n, tt.max, got, tt.want)
		}
	}
	// Colours grow hotter with the count.
	prev := Color(1, 100)
	for n := int64(2); n <= 100; n++ {
		c := Color(n, 100)
		if c.G > prev.G || c.B > prev.B {
			t.Fatalf("Color(%d) %v is not hotter than Color(%d) %v", n, c, n-1, prev)
		}
		prev = c
	}
	if Shade(0, 5) != ' ' || Shade(5, 5) != '@' || Shade(1, 1000) != '.' {
		t.Errorf("shades %q %q %q", Shade(0, 5), Shade(5, 5), Shade(1, 1000))
	}
}

func sec(s string) folded.Time {
	t, err := folded.ParseTime([]byte(s))
	if err != nil {
		panic(err)
	}
	return t
}

func TestRangeCommand(t *testing.T) {
	g := Grid{Base: 413, Rows: 50}
	want := "timeslice --from @427.200000 --to @429.220000 x.folded"
	if got := g.RangeCommand(14, 10, 16, 10, " x.folded"); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := g.RangeCommand(16, 10, 14, 10, " x.folded"); got != want {
		t.Errorf("end before start: got %q, want %q", got, want)
	}
	g.Rows = 49 // buckets that are not whole microseconds
	if got := g.RangeCommand(0, 48, 0, 48, ""); got != "timeslice --from @413.979591837 --to @414.000000" {
		t.Errorf("rows 49: %q", got)
	}
}

// The script's cellStart/rangeCommand agree with the Go ones.
func TestScriptAgreesWithGo(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: cannot run the SVG's script outside a browser")
	}
	dir := t.TempDir()
	js := filepath.Join(dir, "heatmap.js")
	os.WriteFile(js, []byte(script), 0o644)
	var cases []string
	var want []string
	rng := rand.New(rand.NewPCG(3, 4))
	for _, rows := range []int{1, 7, 49, 50, 99, 100, 1000} {
		for i := 0; i < 50; i++ {
			g := Grid{Base: rng.Int64N(100000), Rows: rows}
			c1, r1, c2, r2 := rng.IntN(100), rng.IntN(rows), rng.IntN(100), rng.IntN(rows)
			cases = append(cases, fmt.Sprintf("[%d,%d,%d,%d,%d,%d]", g.Base, rows, c1, r1, c2, r2))
			want = append(want, g.RangeCommand(c1, r1, c2, r2, " 'a b'"))
		}
	}
	prog := fmt.Sprintf(`const h = require(%q);
for (const c of [%s]) console.log(h.rangeCommand(c[0], c[1], c[2], c[3], c[4], c[5], " 'a b'"));`, js, strings.Join(cases, ","))
	out, err := exec.Command(node, "-e", prog).CombinedOutput()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	got := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(got) != len(want) {
		t.Fatalf("%d lines from node, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("case %s: script %q, Go %q", cases[i], got[i], want[i])
		}
	}
}

func testGrid() Grid {
	m := New(DefaultRows)
	m.SetOrigin(sec("100.25"))
	for i := 0; i < 400; i++ {
		m.Add(sec("100.25") + folded.Time(i)*sec("0.013"))
	}
	for i := 0; i < 100; i++ {
		m.Add(sec("102.5") + folded.Time(i)*sec("0.001"))
	}
	return m.Grid()
}

func TestSVGIsWellFormedAndEscaped(t *testing.T) {
	g := testGrid()
	info := Info{
		Title:  `host <b>&"evil"</b> ]]> ` + "\x01\xff",
		Notes:  []string{"note <x>"},
		Args:   ` '"><script>alert(1)</script>'`,
		NoIdle: true, Origin: sec("100.25"), HasOrigin: true,
		Wall: func(t folded.Time) time.Time { return time.Unix(1700000000, 0).Add(time.Duration(t)) },
	}
	var b bytes.Buffer
	if err := g.WriteSVG(&b, info); err != nil {
		t.Fatal(err)
	}
	svg := b.String()
	dec := xml.NewDecoder(strings.NewReader(svg))
	for {
		_, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("SVG is not well-formed XML: %v", err)
		}
	}
	if strings.Contains(svg, "<b>") || strings.Contains(svg, "<script>alert") || strings.Count(svg, "]]>") != 1 {
		t.Error("input text reached the SVG unescaped")
	}
	if strings.Contains(script, "]]>") {
		t.Error("the script contains ]]>, which ends its CDATA section")
	}
	for _, want := range []string{`data-rows="50"`, `data-base="100"`, "idle excluded", `data-n="`, "0 ms", "seconds since @100"} {
		if !strings.Contains(svg, want) {
			t.Errorf("SVG lacks %q", want)
		}
	}
}

// The SVG in a real browser: opened with a range in its address, its
// script selects it and shows the command.
func TestSVGInBrowser(t *testing.T) {
	var browser string
	for _, b := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(b); err == nil {
			browser = p
			break
		}
	}
	if browser == "" {
		t.Skip("no chromium: cannot run the SVG's script in a browser")
	}
	g := testGrid()
	dir := t.TempDir()
	path := filepath.Join(dir, "heat.svg")
	f, _ := os.Create(path)
	g.WriteSVG(f, Info{Title: "test", Args: " --no-idle 'my file.folded'"})
	f.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, browser, "--headless", "--no-sandbox", "--disable-gpu",
		"--user-data-dir="+filepath.Join(dir, "profile"), "--dump-dom", "file://"+path+"#range=2:20-2:29").Output()
	if err != nil {
		t.Skipf("chromium did not run: %v", err)
	}
	cmd := regexp.MustCompile(`<text id="cmd"[^>]*>([^<]*)<`).FindSubmatch(out)
	if cmd == nil {
		t.Fatalf("no command in the DOM:\n%s", out)
	}
	want := "timeslice --from @102.400000 --to @102.600000 --no-idle 'my file.folded'"
	if got := strings.ReplaceAll(string(cmd[1]), "&#39;", "'"); got != want {
		t.Errorf("browser shows %q, want %q", got, want)
	}
	var n int64
	for r := 20; r <= 29; r++ {
		n += g.Counts[2][r]
	}
	if !bytes.Contains(out, fmt.Appendf(nil, "%d samples in the range", n)) {
		t.Errorf("the sample count of the range (%d) is not shown", n)
	}
}

func TestText(t *testing.T) {
	g := testGrid()
	var b bytes.Buffer
	if err := g.WriteText(&b, Info{Title: "test \x1b[31mred", NoIdle: true}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.Contains(out, "\x1b") {
		t.Error("escape sequence from the input reached the terminal")
	}
	lines := strings.Split(out, "\n")
	var rows []string
	for _, l := range lines {
		if strings.HasSuffix(l, "@100") || strings.HasSuffix(l, "@101") || strings.HasSuffix(l, "@102") || strings.HasSuffix(l, "@103") || strings.HasSuffix(l, "@104") || strings.HasSuffix(l, "@105") {
			rows = append(rows, l)
		}
	}
	if len(rows) != 6 {
		t.Fatalf("%d second lines, want 6:\n%s", len(rows), out)
	}
	// Second 2 holds the 100-sample burst at 500-600 ms: '@' there.
	bar := rows[2][strings.Index(rows[2], "|")+1:]
	if bar[25] != '@' || bar[29] != '@' || bar[30] == '@' {
		t.Errorf("second 2: %q", rows[2])
	}
}
