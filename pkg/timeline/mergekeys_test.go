package timeline_test

import (
	"bytes"
	"fmt"
	"slices"
	"testing"

	"flamekit/pkg/folded"
	"flamekit/pkg/timeline"
)

// MergeKeys derives from a timeline that keeps every key the timeline a
// Builder merging those keys from the start makes of the samples kept (the
// others covered): the same entries, samples, extent and merge, on the
// real system-wide capture, for each merge and with or without a filter.
func TestMergeKeys(t *testing.T) {
	text := collapse(t, "syswide")
	full := readAll(t, text, timeline.Options{})
	root := func(stack []byte) string {
		r, _, _ := bytes.Cut(stack, []byte(";"))
		return string(r)
	}
	busy := func(stack []byte) bool { return root(stack) != "swapper" }
	for _, m := range []timeline.Merge{0, timeline.MergeCPUs, timeline.MergeThreads | timeline.MergeCPUs,
		timeline.MergeFrames | timeline.MergeThreads | timeline.MergeCPUs, timeline.MergeStacks, timeline.MergeAll} {
		for _, filter := range []bool{false, true} {
			t.Run(fmt.Sprintf("%v/%t", m, filter), func(t *testing.T) {
				var keep func(*timeline.Entry) bool
				if filter {
					keep = func(e *timeline.Entry) bool { return full.Frames[full.Comm(e.Stack)] != "swapper" }
				}
				got := full.MergeKeys(m, keep)
				b := timeline.NewBuilder(timeline.Options{Merge: m})
				b.Input("in", "", 0)
				rd := folded.NewReader(bytes.NewReader(text), "in")
				for rd.Next() {
					rec := rd.Record()
					var err error
					if !filter || busy(rec.Stack) {
						err = b.Add(rec)
					} else {
						err = b.Cover(rec.Time)
					}
					if err != nil {
						t.Fatal(err)
					}
				}
				want := b.Build()
				if got.Merged() != want.Merged() || got.Samples != want.Samples || got.Inputs[0].Samples != want.Samples {
					t.Errorf("merged %v, %d samples (input %d); want %v, %d", got.Merged(), got.Samples, got.Inputs[0].Samples, want.Merged(), want.Samples)
				}
				g0, g1, gok := got.Extent()
				w0, w1, wok := want.Extent()
				if g0 != w0 || g1 != w1 || gok != wok {
					t.Errorf("extent %d-%d %t, want %d-%d %t", g0, g1, gok, w0, w1, wok)
				}
				// A Builder that merges stacks from the start knows no
				// thread's comm (the stack's root); one merged afterwards
				// keeps them: their entries are compared by pid and tid.
				comms := m&timeline.MergeStacks == 0
				if g, w := keyed(got, comms), keyed(want, comms); !slices.Equal(g, w) {
					t.Errorf("%d entries, want %d", len(g), len(w))
					for i := range min(len(g), len(w)) {
						if g[i] != w[i] {
							t.Fatalf("entry %d: %s, want %s", i, g[i], w[i])
						}
					}
				}
				if filter && m == 0 && got.Samples >= full.Samples {
					t.Errorf("the filter kept all %d samples", got.Samples)
				}
			})
		}
	}
	if full.MergeKeys(0, nil) != full {
		t.Error("MergeKeys of nothing copied the timeline")
	}
}

// keyed returns the samples and weight per key, by the keys' names (ids
// differ between timelines; merged keys "-", comms left out unless comms),
// sorted.
func keyed(tl *timeline.Timeline, comms bool) []string {
	sum := map[string][2]float64{}
	for i := range tl.Entries {
		e := &tl.Entries[i]
		th := "-"
		if e.Thread != timeline.NoThread {
			x := tl.Threads[e.Thread]
			comm := ""
			if x.Comm >= 0 && comms {
				comm = tl.Frames[x.Comm]
			}
			th = fmt.Sprintf("%d/%d/%s", x.PID, x.TID, comm)
		}
		k := fmt.Sprintf("%d %d %s %s %d", e.Cell, e.Input, tl.Stack(e.Stack), th, e.CPU)
		v := sum[k]
		sum[k] = [2]float64{v[0] + float64(e.Samples), v[1] + tl.WeightOf(i)}
	}
	var out []string
	for k, v := range sum {
		out = append(out, fmt.Sprintf("%s %v %v", k, v[0], v[1]))
	}
	slices.Sort(out)
	return out
}
