package timeline_test

import (
	"fmt"
	"strings"

	"flamekit/pkg/folded"
	"flamekit/pkg/timeline"
)

// Build a timeline from timed folded lines, then read what a heat map and
// a flame graph of a range need: a per-cell series and the entries of the
// range, summed per stack.
func Example() {
	input := `# flamekit v1 timed host="web01" first="100.000000" last="100.050000"
app;main;work 10 @100.000000
app;main;work 10 @100.005000
app;main;idle 10 @100.021000
gc;sweep 30 @100.045000
`
	b := timeline.NewBuilder(timeline.Options{})
	in := b.Input("profile.folded", "", 0)
	rd := folded.NewReader(strings.NewReader(input), "profile.folded")
	for rec := range rd.All() {
		if err := b.Add(rec); err != nil {
			panic(err)
		}
	}
	if err := rd.Err(); err != nil {
		panic(err)
	}
	b.SetMetas(in, rd.Meta())
	tl := b.Build()
	fmt.Printf("host %s, %d samples, %d entries, %d frames, %d stacks (tree nodes)\n",
		tl.Inputs[0].Host, tl.Samples, len(tl.Entries), len(tl.Frames), len(tl.Nodes)-1)

	s := tl.Series(timeline.Samples, nil)
	fmt.Println("samples per 20 ms cell from cell", s.First, s.Values)

	i, j := tl.Range(1, 3) // cells 1 and 2: 20 ms to 60 ms
	for k := i; k < j; k++ {
		e := tl.Entries[k]
		fmt.Printf("cell %d (from @%v): %s %d samples, weight %d\n",
			e.Cell, tl.CellStart(int64(e.Cell)), tl.Stack(e.Stack), e.Samples, e.Weight)
	}
	// Output:
	// host web01, 4 samples, 3 entries, 6 frames, 6 stacks (tree nodes)
	// samples per 20 ms cell from cell 0 [2 1 1]
	// cell 1 (from @100.020000): app;main;idle 1 samples, weight 10
	// cell 2 (from @100.040000): gc;sweep 1 samples, weight 30
}

// Build only what a view needs: one entry per cell for a heat map, the
// processes for a breakdown by process; an idle sample left out still
// widens the span.
func Example_merge() {
	input := `app;main;work 10 @100.000000
app;main;idle 10 @100.005000
gc;sweep 30 @100.045000
swapper;cpu_idle 10 @103.000000
`
	for _, m := range []timeline.Merge{timeline.MergeAll, timeline.MergeFrames | timeline.MergeThreads | timeline.MergeCPUs} {
		b := timeline.NewBuilder(timeline.Options{Merge: m})
		rd := folded.NewReader(strings.NewReader(input), "in")
		for rd.Next() {
			rec := rd.Record()
			if strings.HasPrefix(string(rec.Stack), "swapper;") {
				b.Cover(rec.Time) // idle: not kept
				continue
			}
			b.Add(rec)
		}
		tl := b.Build()
		first, last, _ := tl.Extent()
		fmt.Printf("%d entries, cells %d to %d:", len(tl.Entries), first, last)
		for _, e := range tl.Entries {
			fmt.Printf(" cell %d %q %d;", e.Cell, tl.Stack(e.Stack), e.Samples)
		}
		fmt.Println()
	}
	// Output:
	// 2 entries, cells 0 to 150: cell 0 "" 2; cell 2 "" 1;
	// 2 entries, cells 0 to 150: cell 0 "app" 2; cell 2 "gc" 1;
}
