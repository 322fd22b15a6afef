package folded_test

import (
	"fmt"
	"os"
	"strings"

	"flamekit/pkg/folded"
)

// Read folded lines of any kind, one record at a time, and skip the
// malformed ones with a count.
func ExampleReader() {
	input := `# flamekit v1 timed host="web01" first="100.000000" last="100.020000"
app;main;work 1003009 @100.000000
app;main;idle 1003009 @100.010000
not a folded line
app;main;work 2
`
	rd := folded.NewReader(strings.NewReader(input), "profile.folded")
	rd.Lenient = true
	for rd.Next() {
		rec := rd.Record()
		fmt.Printf("%-8v %s %s", rec.Kind, rec.Stack, folded.FormatCount(rec.Count))
		if rec.Kind == folded.Timed {
			fmt.Printf(" at %v", rec.Time)
		}
		fmt.Println()
	}
	if err := rd.Err(); err != nil {
		fmt.Println("error:", err)
	}
	host, _ := rd.Meta()[0].Get(folded.KeyHost)
	fmt.Println("host:", host)
	fmt.Println(rd.Skips())
	// Output:
	// timed    app;main;work 1003009 at 100.000000
	// timed    app;main;idle 1003009 at 100.010000
	// classic  app;main;work 2
	// host: web01
	// skipped 1 malformed line (first: profile.folded:4: no count at the end of the line (want "stack count", "stack count1 count2" or "stack count @time"): "not a folded line")
}

// Sum timed samples into classic folded stacks, sorted as the Perl tools
// sort them: what flamegraph.pl and difffolded.pl read.
func ExampleProfile() {
	input := "b;y 5 @1.5\na;x 3 @1.0\nb;y 5 @2.0\na;x 1\n"
	rd := folded.NewReader(strings.NewReader(input), "in")
	var p folded.Profile
	for rd.Next() {
		p.Add(rd.Record())
	}
	p.WriteTo(os.Stdout)
	fmt.Println("total:", p.Total(), "distinct stacks:", p.Len())
	// Output:
	// a;x 4
	// b;y 10
	// total: 14 distinct stacks: 2
}

// Write timed records and the metadata lines that frame them.
func ExampleWriter() {
	w := folded.NewWriter(os.Stdout)
	var head folded.Meta
	head.Set(folded.KeyHost, "web01")
	head.Set(folded.KeyEvent, "cpu-clock:pppH")
	w.WriteMeta(&head)
	var span folded.Span
	for i, stack := range []string{"app;main;work", "app;main;io"} {
		rec := folded.Record{Stack: []byte(stack), Count: 1003009, Time: folded.Time(100e9 + int64(i)*10e6), Kind: folded.Timed}
		span.Add(rec.Time)
		w.Write(&rec)
	}
	var tail folded.Meta
	span.SetMeta(&tail)
	tail.Set(folded.KeySamples, "2")
	w.WriteMeta(&tail)
	w.Flush()
	// Output:
	// # flamekit v1 timed host="web01" event="cpu-clock:pppH"
	// app;main;work 1003009 @100.000000
	// app;main;io 1003009 @100.010000
	// # flamekit v1 timed first="100.000000" last="100.010000" samples="2"
}

// Times print as perf prints them: six decimals, nine when they need it.
func ExampleParseTime() {
	for _, s := range []string{"696.885404", "12", "0.000000001"} {
		t, _ := folded.ParseTime([]byte(s))
		fmt.Println(t, int64(t))
	}
	// Output:
	// 696.885404 696885404000
	// 12.000000 12000000000
	// 0.000000001 1
}
