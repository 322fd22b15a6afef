package timeline_test

import (
	"bytes"
	"maps"
	"slices"
	"testing"

	"flamekit/pkg/folded"
	"flamekit/pkg/timeline"
	"flamekit/pkg/view/heatmap"
)

// readAll builds a timeline of text with o, adding its records through a
// Builder.
func readAll(t *testing.T, text []byte, o timeline.Options) *timeline.Timeline {
	t.Helper()
	b := timeline.NewBuilder(o)
	b.Input("in", "", 0)
	rd := folded.NewReader(bytes.NewReader(text), "in")
	for rd.Next() {
		if err := b.Add(rd.Record()); err != nil {
			t.Fatal(err)
		}
	}
	if err := rd.Err(); err != nil {
		t.Fatal(err)
	}
	return b.Build()
}

// sums returns the samples and weight per cell and stack (as a string) of
// a timeline, its stacks cut to depth frames (0: whole).
func sums(tl *timeline.Timeline, depth int32) map[string][2]float64 {
	out := map[string][2]float64{}
	for i := range tl.Entries {
		e := &tl.Entries[i]
		s := e.Stack
		for depth > 0 && tl.Nodes[s].Depth > depth {
			s = tl.Nodes[s].Parent
		}
		k := string(rune(e.Cell)) + "|" + tl.Stack(s)
		v := out[k]
		v[0] += float64(e.Samples)
		v[1] += tl.WeightOf(i)
		out[k] = v
	}
	return out
}

// Each Merge keeps what it says, and the sums of what it keeps are the
// whole timeline's: per cell and process with MergeFrames, per cell with
// MergeAll.
func TestMerge(t *testing.T) {
	text := collapse(t, "syswide")
	full := build(t, text, timeline.Options{})
	if full.Merged() != 0 {
		t.Fatalf("merged %v by default", full.Merged())
	}
	for _, tt := range []struct {
		name  string
		merge timeline.Merge
		depth int32 // depth of the stacks kept: 1 process, -1 none, 0 all
	}{
		{"frames", timeline.MergeFrames, 1},
		{"stacks", timeline.MergeStacks, -1},
		{"threads and CPUs", timeline.MergeThreads | timeline.MergeCPUs, 0},
		{"all", timeline.MergeAll, -1},
	} {
		tl := build(t, text, timeline.Options{Merge: tt.merge})
		if tl.Samples != full.Samples || len(tl.Entries) > len(full.Entries) {
			t.Fatalf("%s: %d samples, %d entries; whole: %d, %d", tt.name, tl.Samples, len(tl.Entries), full.Samples, len(full.Entries))
		}
		for i := range tl.Entries {
			e := &tl.Entries[i]
			d := tl.Nodes[e.Stack].Depth
			if tt.depth < 0 && e.Stack != timeline.Root || tt.depth == 1 && d != 1 ||
				tt.merge&timeline.MergeThreads != 0 && e.Thread != timeline.NoThread ||
				tt.merge&timeline.MergeCPUs != 0 && e.CPU != -1 {
				t.Fatalf("%s: entry %+v (depth %d)", tt.name, *e, d)
			}
			if i > 0 && tl.Entries[i-1].Cell == e.Cell && tl.Entries[i-1].Stack == e.Stack &&
				tl.Entries[i-1].Thread == e.Thread && tl.Entries[i-1].CPU == e.CPU {
				t.Fatalf("%s: two entries of one key", tt.name)
			}
		}
		for _, m := range []timeline.Measure{timeline.Samples, timeline.Weight} {
			if a, b := tl.Series(m, nil), full.Series(m, nil); a.First != b.First || !slices.Equal(a.Values, b.Values) {
				t.Errorf("%s: series %v differs from the whole timeline's", tt.name, m)
			}
		}
		if tt.depth >= 0 {
			if got, want := sums(tl, tt.depth), sums(full, tt.depth); !maps.Equal(got, want) {
				t.Errorf("%s: sums per cell and stack differ", tt.name)
			}
		}
	}
}

// Cover widens the extent, not the cells that hold entries; AddAt adds a
// sample without a record; Coarsen keeps the extent.
func TestCoverAndAddAt(t *testing.T) {
	origin := folded.Time(100e9)
	b := timeline.NewBuilder(timeline.Options{Rows: 10, Origin: origin, HasOrigin: true})
	if err := b.Cover(origin - 1); err != nil { // second -1, cell -1
		t.Fatal(err)
	}
	if err := b.AddAt(origin+1_250_000_000, 2, nil); err != nil { // cell 12, no stack
		t.Fatal(err)
	}
	if err := b.AddAt(origin+1_260_000_000, 3, []byte("a;b")); err != nil {
		t.Fatal(err)
	}
	b.Cover(origin + 5e9) // cell 50
	tl := b.Build()
	first, last, ok := tl.Span()
	lo, hi, ok2 := tl.Extent()
	if !ok || !ok2 || first != 12 || last != 12 || lo != -1 || hi != 50 {
		t.Fatalf("span %d..%d, extent %d..%d", first, last, lo, hi)
	}
	if len(tl.Entries) != 2 || tl.Entries[0].Stack != timeline.Root || tl.Stack(tl.Entries[1].Stack) != "a;b" ||
		tl.Entries[0].Thread == timeline.NoThread || tl.Samples != 2 {
		t.Fatalf("entries %+v", tl.Entries)
	}
	c := tl.Coarsen(5)
	if lo, hi, _ := c.Extent(); lo != -1 || hi != 10 {
		t.Errorf("coarsened extent %d..%d, want -1..10", lo, hi)
	}
	// Counts lays the cells out per second, over the extent.
	n := tl.Counts(nil)
	blk, ok := n.Block(1)
	if !n.Covered() || n.Lo() != -1 || n.Hi() != 5 || !ok || n.N()[int(blk)*10+2] != 2 || n.W()[int(blk)*10+2] != 5 {
		t.Errorf("counts %d..%d: %v %v", n.Lo(), n.Hi(), n.N(), n.W())
	}
}

// A snapshot is the timeline so far: what is added after it changes the
// builder's timeline, not the snapshot, and the end is as without it.
func TestSnapshot(t *testing.T) {
	text := collapse(t, "syswide")
	whole := build(t, text, timeline.Options{})
	b := timeline.NewBuilder(timeline.Options{})
	b.Input("in", "", 0)
	rd := folded.NewReader(bytes.NewReader(text), "in")
	var snaps []*timeline.Timeline
	var copies [][]timeline.Entry
	for i := 0; rd.Next(); i++ {
		if i%500 == 499 {
			s := b.Snapshot()
			snaps = append(snaps, s)
			copies = append(copies, slices.Clone(s.Entries))
		}
		if err := b.Add(rd.Record()); err != nil {
			t.Fatal(err)
		}
	}
	tl := b.Build()
	// The same entries; stack ids may differ (the tree is made at once by
	// Build, and as samples come once a snapshot needs it).
	if !slices.Equal(canonical(tl), canonical(whole)) || tl.Samples != whole.Samples {
		t.Fatalf("with snapshots: %d entries, without %d", len(tl.Entries), len(whole.Entries))
	}
	if len(snaps) == 0 {
		t.Fatal("no snapshot")
	}
	for i, s := range snaps {
		if !slices.Equal(s.Entries, copies[i]) {
			t.Fatalf("snapshot %d changed after it was taken", i)
		}
		if _, last, _ := s.Span(); last > int64(whole.Entries[len(whole.Entries)-1].Cell) {
			t.Fatalf("snapshot %d ends after the whole", i)
		}
	}
}

// The heat map of a timeline is the heat map of its samples.
func TestHeatmapOf(t *testing.T) {
	text := collapse(t, "syswide")
	samples, _ := records(t, text)
	tl := build(t, text, timeline.Options{Merge: timeline.MergeAll})
	want := heatmap.New(timeline.DefaultRows, tl.Origin)
	for _, s := range samples {
		want.Add(s.time)
	}
	wg := want.Grid()
	g := heatmap.Of(tl, timeline.Samples, nil).Grid()
	if g.First != wg.First || g.Cols != wg.Cols || g.Total != wg.Total || g.Max != wg.Max {
		t.Fatalf("grid %d+%d total %d max %d, want %d+%d %d %d", g.First, g.Cols, g.Total, g.Max, wg.First, wg.Cols, wg.Total, wg.Max)
	}
	for c := 0; c < g.Cols; c++ {
		if !slices.Equal(g.Column(c), wg.Column(c)) {
			t.Fatalf("column %d: %v, want %v", c, g.Column(c), wg.Column(c))
		}
	}
}
