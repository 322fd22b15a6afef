package heatmap_test

import (
	"fmt"
	"os"

	"flamekit/pkg/folded"
	"flamekit/pkg/tool/slicecmd"
	"flamekit/pkg/view/heatmap"
)

// A map of three seconds at 10 rows a second (100 ms each): a burst 1.2 s
// after the first sample, drawn for a terminal with a mark on it.
func Example() {
	first := folded.Time(413_417_927_000) // @413.417927
	m := heatmap.New(10, first)
	m.Add(first)
	for i := 0; i < 30; i++ {
		m.Add(first + 1_200_000_000 + folded.Time(i)*10_000_000) // 1.2 s to 1.5 s
	}
	m.Cover(first + 2_500_000_000) // an idle sample: the map spans it
	g := m.Grid()
	from, to := g.CellRange(1, 2, 1, 4)
	fmt.Println(slicecmd.Range(from, to, " --no-idle capture.folded"))
	mark := heatmap.Mark{From: first + 1_200_000_000, To: first + 1_500_000_000, Label: "the burst"}
	if err := g.WriteText(os.Stdout, heatmap.Info{Marks: []heatmap.Mark{mark}}); err != nil {
		fmt.Println(err)
	}
	// Output:
	// timeslice --from @414.617927 --to @414.917927 --no-idle capture.folded
	// time: seconds after the first sample, @413.417927: second 14 here is --from 14s
	// sub-second map: a column per second, rows of 100 ms, 0 ms at the bottom; a cell counts samples (lines, not periods): 31 in all, fullest cell 10; idle included
	// shades: ' .:-=+*#%@' = 0 .. 10 samples per cell
	// mark 1: @414.617927 to @414.917927: the burst
	//         |0ms 400 800|
	// second  ++-+-+-+-+-+
	//      0  |.         |      1  @413.417927
	//      1  |  @@@     |     30  @414.417927  <- mark 1
	//      2  |          |      0  @415.417927
}
