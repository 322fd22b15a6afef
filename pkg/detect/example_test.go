package detect_test

import (
	"bufio"
	"fmt"
	"strings"

	"flamekit/pkg/detect"
)

// Peek at an input and say what it is: here the output of bcc's
// offwaketime -f, then something else.
func ExampleCheck() {
	for _, in := range []string{
		"ponger;start_thread;ponger_main;schedule;--;try_to_wake_up;pinger 2019\n",
		"module flamekit\n\ngo 1.25\n",
	} {
		br := bufio.NewReaderSize(strings.NewReader(in), detect.PeekSize)
		head, _ := br.Peek(detect.PeekSize) // fewer bytes at the end of the input
		kind, err := detect.Check(head, len(head) < detect.PeekSize, "in.txt")
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Printf("%s (--format %s)\n", kind, kind.Flag())
	}
	// Output:
	// folded stacks (--format folded)
	// in.txt: not an input flamekit reads: it looks like text starting "module flamekit"; expected perf script text, a perf.data file, a pprof profile, a bpftrace map dump or folded stacks ("frame;frame count")
}
