package heatmap

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"flamekit/internal/testkit/night"
	"flamekit/pkg/folded"
	"flamekit/pkg/timeline/gaps"
)

// twoWindows is two recorder windows as timed folded stacks, a sample every
// 10.309 ms on each of two CPUs, idle but for a busy second in each: the
// first from 100 s to 104 s, the second from 105.3 s to 109 s (the old
// recorder's hole between windows).
func twoWindows() []string {
	var b strings.Builder
	w := func(from, to, busy string) {
		for t := sec(from); t < sec(to); t += 10309278 {
			stack := "swapper;secondary_startup_64;cpu_startup_entry;do_idle;default_idle"
			if t >= sec(busy) && t < sec(busy)+sec("1") {
				stack = "spin;main;work"
			}
			fmt.Fprintf(&b, "%s 10309278 @%v\n", stack, t)
			fmt.Fprintf(&b, "%s 10309278 @%v\n", stack, t+5000000)
		}
	}
	b.WriteString(`# flamekit v1 timed cmdline="/usr/bin/perf record -F 97 -g -a -o w1.data -- sleep 4" event="cpu-clock:pppH"` + "\n")
	w("100", "104", "101")
	first := b.String()
	b.Reset()
	b.WriteString(`# flamekit v1 timed cmdline="/usr/bin/perf record -F 97 -g -a -o w2.data -- sleep 4" event="cpu-clock:pppH"` + "\n")
	w("105.3", "109", "107")
	return []string{first, b.String()}
}

// mapOf reads timed folded inputs into a heat map and the spans of the
// inputs, as timeslice does.
func mapOf(t *testing.T, inputs []string, rows int) (*Map, []gaps.Span, *gaps.Finder) {
	t.Helper()
	var m *Map
	var spans []gaps.Span
	f := gaps.NewFinder()
	for _, in := range inputs {
		rd := folded.NewReader(strings.NewReader(in), "test")
		var sp folded.Span
		for rd.Next() {
			rec := rd.Record()
			if rec.Kind != folded.Timed {
				continue
			}
			if m == nil {
				m = New(rows, rec.Time)
			}
			m.Add(rec.Time)
			f.Add(rec.Time)
			sp.Add(rec.Time)
		}
		if err := rd.Err(); err != nil {
			t.Fatal(err)
		}
		spans = append(spans, gaps.Span{From: sp.First, To: sp.Last})
	}
	return m, spans, f
}

// The hole between two windows is not recorded: its cells are drawn
// hatched (SVG) and '/' (text), the cells either side are not, and
// neither is an idle cell.
func TestUnrecordedBetweenWindows(t *testing.T) {
	m, spans, f := mapOf(t, twoWindows(), DefaultRows)
	min := 5 * folded.Time(1e9) / 97
	between, fromSamples := gaps.Between(spans, min), f.Gaps(min)
	if len(between) != 1 || len(fromSamples) != 1 {
		t.Fatalf("gaps between the windows %v, from the samples %v: want one each", between, fromSamples)
	}
	g := m.Grid()
	g.SetUnrecorded(append(between, fromSamples...))
	lastA, firstB := between[0].From, between[0].To
	for c := 0; c < g.Cols; c++ {
		for r := 0; r < g.Rows; r++ {
			a, b := g.CellStart(c, r), g.CellStart(c, r+1)
			inside := a > lastA && b <= firstB
			outside := b <= lastA || a > firstB
			switch u := g.UnrecordedCell(c, r); {
			case inside && !u:
				t.Errorf("cell (%d,%d) [%v, %v) inside the hole %v is not marked", c, r, a, b, between[0])
			case outside && u:
				t.Errorf("cell (%d,%d) [%v, %v) outside the hole %v is marked", c, r, a, b, between[0])
			}
		}
	}

	var svg bytes.Buffer
	if err := g.WriteSVG(&svg, Info{Title: "two windows", UnrecordedRule: "the rule"}); err != nil {
		t.Fatal(err)
	}
	wellFormed(t, svg.Bytes())
	group := regexp.MustCompile(`(?s)<g id="dunrec">(.*?)</g>`).FindSubmatch(svg.Bytes())
	if group == nil {
		t.Fatal("no group of cells not recorded")
	}
	l := g.layout(len(g.legend(Info{UnrecordedRule: "the rule"})), nil)
	marked := 0
	for _, rm := range regexp.MustCompile(`<rect class="unrec" x="(\d+)" y="(\d+)" width="(\d+)" height="(\d+)"/>`).FindAllSubmatch(group[1], -1) {
		x, _ := strconv.Atoi(string(rm[1]))
		y, _ := strconv.Atoi(string(rm[2]))
		h, _ := strconv.Atoi(string(rm[4]))
		c := (x - l.x0) / l.cw
		for r := g.Rows - 1 - (y-l.dY)/l.ch; r > g.Rows-1-(y-l.dY+h)/l.ch; r-- {
			if !g.UnrecordedCell(c, r) {
				t.Errorf("the SVG hatches cell (%d,%d), which was recorded", c, r)
			}
			marked++
		}
	}
	want := 0
	for c := 0; c < g.Cols; c++ {
		for r := 0; r < g.Rows; r++ {
			if g.UnrecordedCell(c, r) {
				want++
			}
		}
	}
	if marked != want || want < 60 {
		t.Errorf("the SVG hatches %d cells, want %d (a hole of 1.3 s is about 65 cells of 20 ms)", marked, want)
	}
	for _, s := range []string{"not recorded (hatched grey; '/' in text): 1.29", "in 1 part: the rule", ">not recorded</text>", `id="unrec"`, "gaps: [["} {
		if !strings.Contains(svg.String(), s) {
			t.Errorf("the SVG lacks %q", s)
		}
	}

	var text bytes.Buffer
	if err := g.WriteText(&text, Info{}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(text.String(), "\n")
	var four, five string
	for _, l := range lines {
		switch {
		case strings.HasPrefix(l, "     4  |"):
			four = l
		case strings.HasPrefix(l, "     5  |"):
			five = l
		}
	}
	// Second 4 is 104 s to 105 s: not recorded after the last sample of
	// the first window, at 104.004 s; second 5 up to 105.3 s (15 rows).
	if !strings.HasPrefix(four, "     4  |-"+strings.Repeat("/", 49)+"|      1") || !strings.Contains(four, "(0.995 s not recorded)") {
		t.Errorf("second 4: %q", four)
	}
	if !strings.HasPrefix(five, "     5  |"+strings.Repeat("/", 15)) || strings.ContainsAny(five[9+15:9+16], "/ ") || !strings.Contains(five, "(0.300 s not recorded)") {
		t.Errorf("second 5: %q", five)
	}
	if !strings.Contains(text.String(), "'/' = not recorded") {
		t.Error("the text view does not say what '/' is")
	}
}

// Without a hole, nothing is marked, and the SVG says nothing of it.
func TestUnrecordedNone(t *testing.T) {
	g := smallGrid()
	g.SetUnrecorded(nil)
	var svg bytes.Buffer
	if err := g.WriteSVG(&svg, Info{}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(svg.String(), `<rect class="unrec"`) || strings.Contains(svg.String(), "not recorded (hatched") || strings.Contains(svg.String(), ">not recorded<") {
		t.Error("a map recorded whole shows cells not recorded")
	}
}

// An overview cell (2 s of a night) is not recorded when at least half of
// it was not.
func TestUnrecordedOverview(t *testing.T) {
	origin := sec("1000")
	m := New(50, origin)
	for s := 0; s < 43200; s++ {
		if s >= 3600 && s < 7200 {
			continue // an hour not recorded
		}
		m.Add(origin + folded.Time(s)*sec("1"))
	}
	g := m.Grid()
	g.SetUnrecorded([]gaps.Span{
		{From: origin + 3600*sec("1"), To: origin + 7200*sec("1")},
		{From: origin + sec("10000"), To: origin + sec("10001")},     // half of row 10000-10001
		{From: origin + sec("20000.5"), To: origin + sec("20001.4")}, // less than half of a row
	})
	o := g.Overview()
	if o.Len != 120 || o.Unrecorded == nil {
		t.Fatalf("overview of %d s per column, unrecorded %v", o.Len, o.Unrecorded != nil)
	}
	cell := func(s int64) int { return int(s/o.Len)*OverviewRows + int(s%o.Len/o.RowSeconds()) }
	for _, tt := range []struct {
		s    int64
		want bool
	}{{3600, true}, {5000, true}, {7198, true}, {7200, false}, {3598, false}, {10000, true}, {20000, false}, {0, false}} {
		if got := o.Unrecorded[cell(tt.s)]; got != tt.want {
			t.Errorf("overview cell of second %d: not recorded %v, want %v", tt.s, got, tt.want)
		}
	}
	var svg bytes.Buffer
	if err := g.WriteSVG(&svg, Info{}); err != nil {
		t.Fatal(err)
	}
	group := regexp.MustCompile(`(?s)<g id="ounrec">(.*?)</g>`).FindSubmatch(svg.Bytes())
	// The hour is 30 whole columns, one rectangle each; the half row one
	// more.
	if group == nil || bytes.Count(group[1], []byte("<rect")) != 31 {
		t.Errorf("overview: want 31 hatched runs, got %q", group)
	}
}

// TestUnrecordedRealCapture: the bundled capture (30 s of perf record -a
// -g -F 97), cut in two windows with 1.25 s taken out between them, as the
// recorder before version 2 left them: the cells of the hole are marked;
// whole, none is.
func TestUnrecordedRealCapture(t *testing.T) {
	samples, m, err := night.Idle.Samples()
	if err != nil {
		t.Fatal(err)
	}
	first := samples[0].Time
	cutFrom, cutTo := first+sec("13.2"), first+sec("14.45")
	for _, cut := range []bool{false, true} {
		hm := New(DefaultRows, first)
		f := gaps.NewFinder()
		var a, b folded.Span
		na := 0
		for _, s := range samples {
			if cut && s.Time >= cutFrom && s.Time < cutTo {
				continue
			}
			if cut && s.Time >= cutTo {
				b.Add(s.Time)
			} else {
				a.Add(s.Time)
				na++
			}
			hm.Add(s.Time)
			f.Add(s.Time)
		}
		// The windows' metadata lines, as stackcollapse writes them.
		window := func(s folded.Span, n int) folded.Meta {
			var w folded.Meta
			w.Set(folded.KeyEvent, "cpu-clock:pppH")
			s.SetMeta(&w)
			w.Set(folded.KeySamples, strconv.Itoa(n))
			return w
		}
		metas := []folded.Meta{m, window(a, int(hm.Total()))}
		if cut {
			metas = []folded.Meta{m, window(a, na), window(b, int(hm.Total())-na)}
		}
		rule := gaps.RuleFor(metas, f)
		spans := gaps.Spans(metas[1:])
		g := hm.Grid()
		g.SetUnrecorded(append(gaps.Between(spans, rule.Min), f.Gaps(rule.Min)...))
		n := 0
		for c := 0; c < g.Cols; c++ {
			for r := 0; r < g.Rows; r++ {
				u := g.UnrecordedCell(c, r)
				if u {
					n++
				}
				s, e := g.CellStart(c, r), g.CellStart(c, r+1)
				if in := cut && s >= cutFrom+sec("0.02") && e <= cutTo-sec("0.02"); in != u && (in || s < cutFrom-sec("0.02") || e > cutTo+sec("0.02")) {
					t.Errorf("cut %v: cell (%d,%d) [%v, %v): not recorded %v", cut, c, r, s, e, u)
				}
			}
		}
		t.Logf("cut %v: %d cells not recorded; %v", cut, n, g.Unrecorded())
		if !rule.Samples || cut != (n > 0) {
			t.Errorf("cut %v: %d cells not recorded, rule %+v", cut, n, rule)
		}
	}
}

// The script finds the same cells not recorded as Go.
func TestScriptUnrecordedAgreesWithGo(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: cannot run the SVG's script outside a browser")
	}
	m, spans, _ := mapOf(t, twoWindows(), 7)
	g := m.Grid()
	g.SetUnrecorded(gaps.Between(spans, sec("0.05")))
	dir := t.TempDir()
	js := filepath.Join(dir, "heatmap.js")
	if err := os.WriteFile(js, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	var prog, want strings.Builder
	fmt.Fprintf(&prog, "const h = require(%q);\nconst gaps = %s;\n", js, g.appendGaps(nil))
	for c := 0; c < g.Cols; c++ {
		col := "null"
		if v := g.Column(c); v != nil {
			col = strings.ReplaceAll(fmt.Sprint(v), " ", ",")
		}
		fmt.Fprintf(&prog, "console.log(JSON.stringify(h.unrecordedRows(gaps, %d, %d, %s)));\n", g.Rows, g.First+int64(c), col)
		var runs []string
		for r := 0; r < g.Rows; r++ {
			if !g.UnrecordedCell(c, r) {
				continue
			}
			lo := r
			for r+1 < g.Rows && g.UnrecordedCell(c, r+1) {
				r++
			}
			runs = append(runs, fmt.Sprintf("[%d,%d]", lo, r))
		}
		fmt.Fprintf(&want, "[%s]\n", strings.Join(runs, ","))
	}
	out, err := exec.Command(node, "-e", prog.String()).CombinedOutput()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	if string(out) != want.String() {
		t.Errorf("script:\n%s\nGo:\n%s", out, want.String())
	}
}
