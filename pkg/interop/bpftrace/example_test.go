package bpftrace_test

import (
	"fmt"
	"os"
	"strings"

	"flamekit/pkg/folded"
	"flamekit/pkg/interop/bpftrace"
)

// A dump of bpftrace -e 'profile:hz:99 { @[kstack, ustack, comm] = count(); }'
// folded into summed, sorted stacks, kernel frames annotated.
func ExampleCollapse() {
	dump := `Attaching 1 probe...

@[
    do_syscall_64+113
    entry_SYSCALL_64_after_hwframe+118
, 
    __GI___write+79
    main+849
, cpu spin]: 2
@[, 
    inner_hash+39
    main+805
, cpu spin]: 250
@[
    do_syscall_64+71
    entry_SYSCALL_64_after_hwframe+118
, 
    __GI___write+79
    main+849
, cpu spin]: 1
`
	sum, err := bpftrace.Collapse(strings.NewReader(dump), "out.bt", bpftrace.Options{Kernel: true}, os.Stdout)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("map %s: %d entries, %v samples\n", sum.Map, sum.Entries, sum.Total)
	// Output:
	// cpu spin;main;__GI___write;entry_SYSCALL_64_after_hwframe_[k];do_syscall_64_[k] 3
	// cpu spin;main;inner_hash 250
	// map @: 3 entries, 253 samples
}

// Fold hands each entry of the chosen map to a function, here one that
// keeps the stacks of a single thread.
func ExampleFold() {
	dump := "@cpu[\n    f+1\n, sh]: 4\n@cpu[\n    g+2\n, bash]: 7\n@bytes[\n    write+9\n, sh]: 4096\n"
	_, err := bpftrace.Fold(strings.NewReader(dump), "out.bt", bpftrace.Options{Map: "@cpu"}, func(rec *folded.Record) error {
		if strings.HasPrefix(string(rec.Stack), "sh;") {
			fmt.Printf("%s %v\n", rec.Stack, rec.Count)
		}
		return nil
	})
	if err != nil {
		fmt.Println(err)
	}
	// Output:
	// sh;f 4
}
