package source_test

import (
	"bufio"
	"fmt"
	"strings"

	"flamekit/pkg/source"
)

// Open inputs as a command does, "-" being its standard input, and read
// each: here a gzipped perf.data file (its kind told by its content; a
// reader at offsets gets a decompressed copy from Path), and folded stacks
// on standard input, read once, from their first line.
func Example() {
	stdin := strings.NewReader("main;work 3\nmain;idle 1\n")
	ins, err := source.OpenAll([]string{"testdata/perf.data.gz", "-"}, source.Options{Stdin: stdin})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ins.Close() // removes the copies made

	for _, in := range ins {
		fmt.Printf("%s: %s (%s, stream %v)\n", in.Display, in.Kind, in.Method, in.Stream)
		switch in.Kind {
		case source.PerfData:
			if _, err := in.Path(); err != nil {
				fmt.Println(err)
			}
		case source.Folded:
			rc, err := in.Open()
			if err != nil {
				fmt.Println(err)
				return
			}
			sc := bufio.NewScanner(rc)
			for sc.Scan() {
				fmt.Println("  " + sc.Text())
			}
			rc.Close()
		}
	}
	// Output:
	// testdata/perf.data.gz: perf.data file (gzip, stream false)
	// <stdin>: folded stacks (uncompressed, stream true)
	//   main;work 3
	//   main;idle 1
}

// An input of no known kind gets an error that says what it looks like.
func ExampleInput_Check() {
	in, err := source.OpenReader("go.mod", strings.NewReader("module flamekit\n\ngo 1.25\n"), source.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(in.Check())
	// Output:
	// go.mod: not an input flamekit reads: it looks like text starting "module flamekit"; expected perf.data file, pprof profile, perf script text, bpftrace map dump, or folded stacks ("frame;frame count")
}
