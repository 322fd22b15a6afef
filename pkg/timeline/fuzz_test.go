package timeline_test

import (
	"bytes"
	"math"
	"testing"

	"flamekit/pkg/folded"
	"flamekit/pkg/timeline"
)

// FuzzBuild builds a timeline from any folded text and checks it against
// the lines: every timed line is one sample, per-stack sums equal the
// folded sums (exactly for whole counts), entries are sorted by cell with
// distinct keys, every entry lies in the cell of its samples' times, the
// stack tree round-trips the stacks, and a timeline merged down to one
// entry per cell (MergeAll) has the same series.
func FuzzBuild(f *testing.F) {
	f.Add([]byte("a;b 1 @1.0\na;c 2 @1.01\na;b 3 @1.03\n"))
	f.Add([]byte("a;b 1.5 @1.0\nb 2 @0.5\nclassic 3\nx;y 1 2\n"))
	f.Add([]byte("# flamekit v1 timed host=\"h\" first=\"1.0\"\n;;; 1 @1.000000001\n 1 @2\n"))
	f.Add([]byte("a 1 @5\na 1 @1\na 1 @5\na 1 @1.999999999\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		// The summed view is folded.Profile's output, byte for byte.
		if got, _ := summed(t, data); got != profileOf(data) {
			t.Fatalf("summed view\n%s\nwant\n%s", got, profileOf(data))
		}
		for _, rows := range []int{50, 7} {
			tl, _, err := read(bytes.NewReader(data), "in", timeline.Options{Rows: rows})
			if err != nil {
				return
			}
			rd := folded.NewReader(bytes.NewReader(data), "in")
			rd.Lenient = true
			type sum struct {
				n    int64
				w    float64
				frac bool
			}
			want := map[string]*sum{}
			var timed int64
			cellOf := map[string]map[int64]bool{}
			for rd.Next() {
				r := rd.Record()
				if r.Kind != folded.Timed {
					continue
				}
				timed++
				s := want[string(r.Stack)]
				if s == nil {
					s = &sum{}
					want[string(r.Stack)] = s
					cellOf[string(r.Stack)] = map[int64]bool{}
				}
				s.n++
				s.w += r.Count
				s.frac = s.frac || r.Count != math.Trunc(r.Count) || r.Count >= 1<<53
				cellOf[string(r.Stack)][tl.CellOf(r.Time)] = true
			}
			if tl.Samples != timed {
				t.Fatalf("%d samples, want %d", tl.Samples, timed)
			}
			got := map[string]*sum{}
			for i := range tl.Entries {
				e := &tl.Entries[i]
				if i > 0 && tl.Entries[i-1].Cell > e.Cell {
					t.Fatalf("entries out of order at %d", i)
				}
				st := tl.Stack(e.Stack)
				if !cellOf[st][int64(e.Cell)] {
					t.Fatalf("stack %q in cell %d, where none of its samples is", st, e.Cell)
				}
				s := got[st]
				if s == nil {
					s = &sum{}
					got[st] = s
				}
				s.n += int64(e.Samples)
				s.w += tl.WeightOf(i)
			}
			if len(got) != len(want) {
				t.Fatalf("%d stacks, want %d", len(got), len(want))
			}
			// Merged down to one entry per cell, the series is the same.
			all, _, err := read(bytes.NewReader(data), "in", timeline.Options{Rows: rows, Merge: timeline.MergeAll})
			if err != nil {
				t.Fatalf("merged: %v", err)
			}
			perCell := func(tl *timeline.Timeline) map[int32][2]float64 { // sparse: spans may be years
				out := map[int32][2]float64{}
				for i := range tl.Entries {
					v := out[tl.Entries[i].Cell]
					v[0] += float64(tl.Entries[i].Samples)
					v[1] += tl.WeightOf(i)
					out[tl.Entries[i].Cell] = v
				}
				return out
			}
			a, b := perCell(all), perCell(tl)
			if len(a) != len(b) || len(all.Entries) != len(a) {
				t.Fatalf("merged: %d entries in %d cells, want one per cell of %d", len(all.Entries), len(a), len(b))
			}
			for c, v := range b {
				if a[c][0] != v[0] || math.Abs(a[c][1]-v[1]) > 1e-9*math.Max(1, math.Abs(v[1])) {
					t.Fatalf("merged cell %d: %v, want %v", c, a[c], v)
				}
			}
			// Derived from the whole timeline (MergeKeys), the same again,
			// one entry per cell, with the whole one's extent.
			der := tl.MergeKeys(timeline.MergeAll, nil)
			d := perCell(der)
			if len(der.Entries) != len(d) || len(d) != len(b) || der.Samples != tl.Samples || der.Merged() != timeline.MergeAll {
				t.Fatalf("MergeKeys: %d entries in %d cells, %d samples; want %d cells, %d samples", len(der.Entries), len(d), der.Samples, len(b), tl.Samples)
			}
			for c, v := range b {
				if d[c][0] != v[0] || math.Abs(d[c][1]-v[1]) > 1e-9*math.Max(1, math.Abs(v[1])) {
					t.Fatalf("MergeKeys cell %d: %v, want %v", c, d[c], v)
				}
			}
			l0, h0, ok0 := tl.Extent()
			if l1, h1, ok1 := der.Extent(); l1 != l0 || h1 != h0 || ok1 != ok0 {
				t.Fatalf("MergeKeys extent %d-%d, want %d-%d", l1, h1, l0, h0)
			}
			for st, w := range want {
				g := got[st]
				if g == nil || g.n != w.n {
					t.Fatalf("stack %q: %v, want %v", st, g, w)
				}
				if !w.frac && g.w != w.w || w.frac && math.Abs(g.w-w.w) > 1e-9*math.Max(1, math.Abs(w.w)) {
					t.Fatalf("stack %q: weight %v, want %v", st, g.w, w.w)
				}
			}
		}
	})
}
