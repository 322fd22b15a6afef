package cli

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"

	"flamekit/internal/base/hugepage"
)

// Heap sizes for hugepage.Heap: asked for when the named inputs are
// not small (minInputs: a 1.9 MB system-wide capture took 5,000 page
// faults and 0.12 s without, 1,400 and 0.08 s with them; the region costs
// a collection, 2-6 ms), twice their size (a perf.data file's frames and
// symbol tables take about 1.5 times its size), at least minHeapAhead
// (the symbol tables of a system-wide capture take 40 to 60 MB whatever
// its length: a 10 MB capture took 11,000 page faults without huge
// pages, 2,500 with them), at most maxHeapAhead.
const (
	minInputs    = 1 << 20
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
// (see hugepage.Heap), before the command starts, and keeps the collector
// from running before the heap reaches minHeapAhead (see heapFloor),
// unless GOGC is set. It waits for Heap's collection (2-6 ms here): run on
// the side, the command's first allocations came from fresh pages before
// the huge ones were freed, 1,500-2,900 page faults a run on a 10 MB
// capture instead of 1,250-1,400.
func askHugePages(args []string, stdin *os.File) {
	if n := heapAhead(args, stdin); n > 0 {
		floor := os.Getenv("GOGC") == ""
		if floor {
			// Allocating n bytes would start a collection of its
			// own before Heap's.
			debug.SetGCPercent(-1)
		}
		hugepage.Heap(n)
		if floor {
			heapFloor(minHeapAhead)
		}
	}
}

// heapFloor lets the heap grow to floor bytes before the garbage
// collector runs, and then collects as GOGC=100 does: after each cycle it
// sets the GC percentage that puts the next goal at floor, or at twice
// the live heap when that is more. The heap of a large input starts
// small (a few MB of tables) and collected at GOGC=100 every few MB of
// allocation: on a 10 MB system-wide capture seven cycles took 15% of
// stackcollapse's wall time. The floor is a constant, so memory still
// grows with what the run keeps, not with the input's size.
func heapFloor(floor uint64) {
	t := &floorTuner{floor: floor, live: []metrics.Sample{{Name: "/gc/heap/live:bytes"}}}
	t.tune()
}

// floorTuner sets the GC percentage after each collection (see heapFloor).
type floorTuner struct {
	floor uint64
	live  []metrics.Sample
}

// floorSentinel is garbage whose finalizer runs after a collection.
type floorSentinel struct{ _ *int }

// tune sets the percentage for the live heap now, and again after the
// next collection.
func (t *floorTuner) tune() {
	metrics.Read(t.live)
	p := floorPercent(t.live[0].Value.Uint64(), t.floor)
	debug.SetGCPercent(p)
	runtime.SetFinalizer(&floorSentinel{}, func(*floorSentinel) { t.tune() })
}

// runtimeHeapMinimum is the Go runtime's least heap goal at GOGC=100, 4
// MB, which it scales with the GC percentage: at GOGC=p the goal is never
// under 4 MB × p/100.
const runtimeHeapMinimum = 4 << 20

// floorPercent is the GC percentage whose goal, live*(1+p/100), is floor,
// at least 100, and at most the one whose scaled heap minimum is floor (a
// percentage of 9,900 on a heap of 600 kB put the goal at 396 MB).
func floorPercent(live, floor uint64) int {
	if floor <= 2*live {
		return 100
	}
	most := int(floor * 100 / runtimeHeapMinimum)
	if live == 0 {
		return max(most, 100)
	}
	return max(min(int(floor*100/live)-100, most), 100)
}
