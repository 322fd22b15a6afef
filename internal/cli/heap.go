package cli

import (
	"os"

	"flamekit/internal/base/hugepage"
)

// Heap sizes for hugepage.Heap: asked for when the named inputs are
// not small, twice their size (a perf.data file's frames and symbol
// tables take about 1.5 times its size), at least minHeapAhead (the
// symbol tables of a system-wide capture take 40 to 60 MB whatever its
// length: a 10 MB capture took 11,000 page faults without huge pages,
// 2,500 with them), at most maxHeapAhead.
const (
	minInputs    = 4 << 20
	minHeapAhead = 64 << 20
	maxHeapAhead = 512 << 20
)

// heapAhead returns how much heap to ask huge pages for, from the sizes
// of the regular files args names (standard input when it is one): 0
// when they are small. Arguments that name no file (flags, their values)
// count for nothing.
func heapAhead(args []string, stdin *os.File) int {
	var total int64
	for _, a := range args {
		if fi, err := os.Stat(a); err == nil && fi.Mode().IsRegular() {
			total += fi.Size()
		}
	}
	if stdin != nil {
		if fi, err := stdin.Stat(); err == nil && fi.Mode().IsRegular() {
			total += fi.Size()
		}
	}
	if total < minInputs {
		return 0
	}
	return int(min(max(2*total, minHeapAhead), maxHeapAhead))
}

// askHugePages has the heap ask for huge pages when the inputs are large
// (see hugepage.Heap), beside the start of the command.
func askHugePages(args []string, stdin *os.File) {
	if n := heapAhead(args, stdin); n > 0 {
		go hugepage.Heap(n)
	}
}
