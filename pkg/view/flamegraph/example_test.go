package flamegraph_test

import (
	"bytes"
	"fmt"
	"log"
	"regexp"
	"strings"

	"flamekit/pkg/folded"
	"flamekit/pkg/svg"
	"flamekit/pkg/view/flamegraph"
)

// Folded lines in, merged into a layout, drawn as an SVG flame graph.
func Example() {
	input := "main;parse;lex 3\nmain;eval 2\nmain;parse 1\n"
	o := svg.DefaultOptions()
	rd := folded.NewReader(strings.NewReader(input), "input")
	in := flamegraph.ReadRecords(rd.All(), 0, false, flamegraph.Rewrite{}, o.MinCount)
	if err := rd.Err(); err != nil {
		log.Fatal(err)
	}
	l := in.Layout
	for _, n := range l.Nodes {
		fmt.Printf("%*s%q [%v, %v)\n", 2*n.Depth, "", n.Name, n.Start, n.End)
	}

	var out bytes.Buffer
	if err := svg.Render(&out, l, &o); err != nil {
		log.Fatal(err)
	}
	for _, m := range regexp.MustCompile(`<title>([^<]*)</title>`).FindAllStringSubmatch(out.String(), -1) {
		fmt.Println(m[1])
	}
	// Output:
	// "" [0, 6)
	//   "main" [0, 6)
	//     "eval" [0, 2)
	//     "parse" [2, 6)
	//       "lex" [3, 6)
	// all (6 samples, 100%)
	// main (6 samples, 100.00%)
	// eval (2 samples, 33.33%)
	// parse (4 samples, 66.67%)
	// lex (3 samples, 50.00%)
}

// A Builder fed lines in time order draws a flame chart: a line is merged
// only with the line before it, so a function called twice is two frames.
func ExampleBuilder() {
	b := flamegraph.NewBuilder()
	b.Add("main;read", 2, 0, false)
	b.Add("main;work", 5, 0, false)
	b.Add("main;read", 1, 0, false)
	for _, n := range b.Layout().Nodes[1:] {
		fmt.Printf("%*s%s [%v, %v)\n", 2*(n.Depth-1), "", n.Name, n.Start, n.End)
	}
	// Output:
	// main [0, 8)
	//   read [0, 2)
	//   work [2, 7)
	//   read [7, 8)
}

// Differential lines ("stack before after") give each frame the change of
// the stacks that end at it; MaxDelta scales the colours.
func ExampleLayoutEntries() {
	l := flamegraph.LayoutEntries([]folded.Entry{
		{Stack: "main;a", Before: 5, Count: 3, Diff: true},
		{Stack: "main;b", Before: 1, Count: 4, Diff: true},
	}, flamegraph.Rewrite{Reverse: true}, 0, false)
	for _, n := range l.Nodes[1:] {
		fmt.Printf("%*s%s width %v delta %+g\n", 2*(n.Depth-1), "", n.Name, n.End-n.Start, n.Delta)
	}
	fmt.Println("max delta", l.MaxDelta)
	// Output:
	// a width 3 delta +0
	//   main width 3 delta -2
	// b width 4 delta +0
	//   main width 4 delta +3
	// max delta 3
}
