package timeline_test

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"flamekit/internal/testkit/testcapture"
	"flamekit/pkg/folded"
	"flamekit/pkg/source/decompress"
	"flamekit/pkg/timeline"
	"flamekit/pkg/view/heatmap"
)

// collapse folds a real capture with stackcollapse's library (timed lines,
// one per sample).
func collapse(t testing.TB, name string) []byte { return testcapture.Fold(t, name) }

type sample struct {
	stack string
	count float64
	time  folded.Time
}

func records(t testing.TB, text []byte) (samples []sample, metas []folded.Meta) {
	t.Helper()
	rd := folded.NewReader(bytes.NewReader(text), "in")
	for rd.Next() {
		r := rd.Record()
		if r.Kind == folded.Timed {
			samples = append(samples, sample{string(r.Stack), r.Count, r.Time})
		}
	}
	if err := rd.Err(); err != nil {
		t.Fatal(err)
	}
	return samples, rd.Meta()
}

func build(t testing.TB, text []byte, o timeline.Options) *timeline.Timeline {
	t.Helper()
	tl, skips, err := read(bytes.NewReader(text), "in", o)
	if err != nil {
		t.Fatal(err)
	}
	if skips.Count > 0 {
		t.Fatalf("skipped: %v", skips)
	}
	return tl
}

// perStack sums an entry range per stack string.
func perStack(tl *timeline.Timeline, i, j int) map[string][2]float64 {
	m := map[string][2]float64{}
	for k := i; k < j; k++ {
		e := &tl.Entries[k]
		s := tl.Stack(e.Stack)
		v := m[s]
		v[0] += float64(e.Samples)
		v[1] += tl.WeightOf(k)
		m[s] = v
	}
	return m
}

func TestBurstCapture(t *testing.T) {
	text := collapse(t, "burst")
	samples, metas := records(t, text)
	tl := build(t, text, timeline.Options{})

	if tl.Samples != int64(len(samples)) {
		t.Fatalf("Samples %d, want %d", tl.Samples, len(samples))
	}
	if !tl.Integral() {
		t.Fatal("perf periods are whole numbers: want an integral timeline")
	}
	if host := tl.Inputs[0].Host; host != "vm" {
		t.Errorf("host %q, want vm (from %v)", host, metas)
	}
	// The whole: sum over cells equals the folded total exactly, per stack.
	var p folded.Profile
	want := map[string][2]float64{}
	for _, s := range samples {
		p.Add(&folded.Record{Stack: []byte(s.stack), Count: s.count, Kind: folded.Classic})
		v := want[s.stack]
		v[0]++
		v[1] += s.count
		want[s.stack] = v
	}
	n, w := tl.Total()
	if n != int64(len(samples)) || w != p.Total() {
		t.Errorf("total %d samples, weight %v; folded: %d, %v", n, w, len(samples), p.Total())
	}
	got := perStack(tl, 0, len(tl.Entries))
	if len(got) != len(want) {
		t.Errorf("%d distinct stacks, want %d", len(got), len(want))
	}
	for s, v := range want {
		if got[s] != v {
			t.Errorf("stack %q: %v, want %v", s, got[s], v)
		}
	}
	// The frame table holds each name once; every frame of a stack is one
	// of them.
	seen := map[string]bool{}
	for _, f := range tl.Frames {
		if seen[f] {
			t.Fatalf("frame %q twice", f)
		}
		seen[f] = true
	}

	// Cells are the heat map's: the series of samples equals its counts.
	origin := samples[0].time
	hm := heatmap.New(heatmap.DefaultRows, origin)
	for _, s := range samples {
		hm.Add(s.time)
	}
	g := hm.Grid()
	series := tl.Series(timeline.Samples, nil)
	for i, v := range series.Values {
		c := series.First + int64(i)
		sec, row := c/int64(tl.Rows), int(c%int64(tl.Rows))
		if want := g.Count(int(sec-g.First), row); float64(want) != v {
			t.Fatalf("cell %d (second %d row %d): %v samples, heat map %d", c, sec, row, v, want)
		}
		if tl.CellStart(c) != hm.CellStart(sec, row) {
			t.Fatalf("cell %d starts @%v, heat map @%v", c, tl.CellStart(c), hm.CellStart(sec, row))
		}
	}

	// Sum over CPUs equals the whole, cell by cell.
	cpus := map[int32]bool{}
	for _, e := range tl.Entries {
		cpus[e.CPU] = true
	}
	sum := make([]float64, len(series.Values))
	for cpu := range cpus {
		s := tl.Series(timeline.Weight, func(e *timeline.Entry) bool { return e.CPU == cpu })
		for i, v := range s.Values {
			sum[int(s.First-series.First)+i] += v
		}
	}
	whole := tl.Series(timeline.Weight, nil)
	if !slices.Equal(sum, whole.Values) {
		t.Errorf("per-CPU series do not add up to the whole")
	}

	// A range of cells holds exactly the samples of its time span: the
	// burst, from 13.8 s to 15.8 s after the first sample.
	c0, c1 := tl.CellOf(origin+13_800_000_000), tl.CellOf(origin+15_800_000_000)
	from, to := tl.CellStart(c0), tl.CellStart(c1)
	wantRange := map[string][2]float64{}
	burst := 0
	for _, s := range samples {
		if s.time >= from && s.time < to {
			v := wantRange[s.stack]
			v[0]++
			v[1] += s.count
			wantRange[s.stack] = v
			if strings.HasPrefix(s.stack, "flamekit_burst;") {
				burst++
			}
		}
	}
	i, j := tl.Range(c0, c1)
	gotRange := perStack(tl, i, j)
	if len(gotRange) != len(wantRange) {
		t.Errorf("range: %d stacks, want %d", len(gotRange), len(wantRange))
	}
	for s, v := range wantRange {
		if gotRange[s] != v {
			t.Errorf("range: stack %q: %v, want %v", s, gotRange[s], v)
		}
	}
	if burst < 380 {
		t.Errorf("the burst window holds %d flamekit_burst samples, want about 384", burst)
	}
	gotBurst := 0
	for k := i; k < j; k++ {
		e := &tl.Entries[k]
		if tl.Frames[tl.Comm(e.Stack)] == "flamekit_burst" {
			gotBurst += int(e.Samples)
		}
	}
	if gotBurst != burst {
		t.Errorf("comm flamekit_burst: %d samples in the range, want %d", gotBurst, burst)
	}
}

func TestCoarsen(t *testing.T) {
	tl := build(t, collapse(t, "burst"), timeline.Options{})
	for _, k := range []int{5, 10, 50} {
		c := tl.Coarsen(k)
		if c == nil {
			t.Fatalf("Coarsen(%d) = nil", k)
		}
		want := tl.Series(timeline.Weight, nil).Sum(k)
		got := c.Series(timeline.Weight, nil)
		if got.First != want.First || !slices.Equal(got.Values, want.Values) {
			t.Errorf("Coarsen(%d): series differ from Sum(%d)", k, k)
		}
		if !slices.IsSortedFunc(c.Entries, func(a, b timeline.Entry) int { return int(a.Cell - b.Cell) }) {
			t.Errorf("Coarsen(%d): entries out of order", k)
		}
		if len(c.Entries) > len(tl.Entries) {
			t.Errorf("Coarsen(%d): more entries", k)
		}
		for ci := range c.Cells() {
			cell := c.Cells()[ci]
			if c.CellStart(cell) != tl.CellStart(cell*int64(k)) {
				t.Errorf("Coarsen(%d): cell %d starts at @%v, want @%v", k, cell, c.CellStart(cell), tl.CellStart(cell*int64(k)))
			}
		}
	}
	sec := tl.Coarsen(50)
	if min := sec.Coarsen(60); min == nil || min.Seconds != 60 {
		t.Errorf("Coarsen(50).Coarsen(60): want 60 s cells")
	}
	if tl.Coarsen(7) != nil {
		t.Errorf("Coarsen(7) of 50 rows: want nil")
	}
}

// Inputs out of order, concatenated, or split into several inputs give
// the same cells and sums.
func TestOrderDoesNotMatter(t *testing.T) {
	text := collapse(t, "burst")
	samples, _ := records(t, text)
	origin := samples[0].time
	o := timeline.Options{Origin: origin, HasOrigin: true}
	want := build(t, text, o)

	lines := strings.Split(strings.TrimSpace(string(text)), "\n")
	rnd := rand.New(rand.NewPCG(1, 2))
	rnd.Shuffle(len(lines), func(i, j int) { lines[i], lines[j] = lines[j], lines[i] })
	shuffled := build(t, []byte(strings.Join(lines, "\n")), o)
	if a, b := canonical(shuffled), canonical(want); !slices.Equal(a, b) {
		t.Errorf("shuffled lines: entries differ")
	}
	// Two inputs: entries keep their input, and their sums are the whole.
	b := timeline.NewBuilder(o)
	for k, half := range [][]sample{samples[len(samples)/2:], samples[:len(samples)/2]} {
		b.Input([]string{"second", "first"}[k], "vm", 0)
		for _, s := range half {
			if err := b.Add(&folded.Record{Stack: []byte(s.stack), Count: s.count, Time: s.time, Kind: folded.Timed}); err != nil {
				t.Fatal(err)
			}
		}
	}
	two := b.Build()
	if got, want := perStack(two, 0, len(two.Entries)), perStack(want, 0, len(want.Entries)); len(got) != len(want) {
		t.Errorf("two inputs: %d stacks, want %d", len(got), len(want))
	}
	if !slices.Equal(two.Series(timeline.Weight, nil).Values, want.Series(timeline.Weight, nil).Values) {
		t.Errorf("two inputs: series differ")
	}
	for i := 1; i < len(two.Entries); i++ {
		if a, b := two.Entries[i-1], two.Entries[i]; a.Cell > b.Cell {
			t.Fatalf("entries not sorted by cell at %d", i)
		}
	}
}

// canonical lists the entries by cell and stack string (ids depend on the
// order stacks were first seen).
func canonical(tl *timeline.Timeline) []string {
	var out []string
	for i, e := range tl.Entries {
		out = append(out, fmt.Sprintf("%d %s %d %v %d", e.Cell, tl.Stack(e.Stack), e.Samples, tl.WeightOf(i), e.CPU))
	}
	slices.Sort(out)
	return out
}

func TestFractionsAndUntimed(t *testing.T) {
	in := "a;b 1.5 @10.000\na;b 2 @10.001\na;c 3 @10.5\nclassic;line 7\na;b 1 2\n"
	tl := build(t, []byte(in), timeline.Options{})
	if tl.Integral() {
		t.Fatal("a count with a fraction: want Fractions")
	}
	if tl.Untimed != 2 || tl.Samples != 3 {
		t.Errorf("untimed %d samples %d, want 2 and 3", tl.Untimed, tl.Samples)
	}
	got := perStack(tl, 0, len(tl.Entries))
	if got["a;b"] != [2]float64{2, 3.5} || got["a;c"] != [2]float64{1, 3} {
		t.Errorf("sums %v", got)
	}
	if _, w := tl.Total(); w != 6.5 {
		t.Errorf("weight %v, want 6.5", w)
	}
	// Odd stacks round-trip: empty frames, a trailing ';', an empty stack.
	odd := " 1 @1.0\n;x 1 @1.0\na;;b 1 @1.0\na;b; 1 @1.0\n"
	tl = build(t, []byte(odd), timeline.Options{})
	got = perStack(tl, 0, len(tl.Entries))
	for _, s := range []string{"", ";x", "a;;b", "a;b;"} {
		if got[s] != [2]float64{1, 1} {
			t.Errorf("stack %q: %v, want one sample", s, got[s])
		}
	}
}

func TestSpan(t *testing.T) {
	b := timeline.NewBuilder(timeline.Options{})
	add := func(at string) error {
		tm, _ := folded.ParseTime([]byte(at))
		return b.Add(&folded.Record{Stack: []byte("a"), Count: 1, Time: tm, Kind: folded.Timed})
	}
	if err := add("1.0"); err != nil {
		t.Fatal(err)
	}
	if err := add("99999999.0"); err == nil || !strings.Contains(err.Error(), "--from") {
		t.Errorf("a sample 3 years later: error %v, want one that says to cut a window", err)
	}
}

// read builds a Timeline from one folded stream (gzipped or not), read
// leniently: malformed lines are skipped and counted in the returned
// Skips. The stream's metadata lines are kept on its Input.
func read(r io.Reader, name string, o timeline.Options) (*timeline.Timeline, folded.Skips, error) {
	rc, _, err := decompress.NewReader(r)
	if err != nil {
		return nil, folded.Skips{}, fmt.Errorf("%s: %w", name, err)
	}
	defer rc.Close()
	b := timeline.NewBuilder(o)
	in := b.Input(name, "", 0)
	rd := folded.NewReader(rc, name)
	rd.Lenient = true
	for rd.Next() {
		if err := b.Add(rd.Record()); err != nil {
			return nil, rd.Skips(), fmt.Errorf("%s:%d: %w", name, rd.Line(), err)
		}
	}
	if err := rd.Err(); err != nil {
		return nil, rd.Skips(), err
	}
	b.SetMetas(in, rd.Meta())
	return b.Build(), rd.Skips(), nil
}
