package collapse

import (
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"flamekit/pkg/folded"
)

// aggregator sums weights per distinct folded stack (classic output).
//
// Stacks are copied into large arena blocks rather than allocated one by
// one: a profile can hold tens of thousands of distinct stacks of several
// hundred bytes, and one allocation each cost more than everything else
// the classic output does per sample.
type aggregator struct {
	index  map[string]int
	stacks []string
	counts []int64
	block  []byte  // the arena block being filled
	order  []int32 // the stacks in sorted order, once sorted
}

// arenaBlock is the size of an arena block.
const arenaBlock = 1 << 20

func newAggregator() *aggregator { return &aggregator{index: make(map[string]int)} }

// intern returns a copy of stack that lives as long as the aggregator.
func (a *aggregator) intern(stack []byte) string {
	n := len(stack)
	if n == 0 {
		return ""
	}
	if n > arenaBlock/4 {
		return string(stack)
	}
	if cap(a.block)-len(a.block) < n {
		a.block = make([]byte, 0, arenaBlock)
	}
	start := len(a.block)
	a.block = append(a.block, stack...)
	// The block is never written again below len: the string is
	// immutable, as Go requires.
	return unsafe.String(&a.block[start], n)
}

func (a *aggregator) add(stack []byte, n int64) {
	a.order = nil
	if i, ok := a.index[string(stack)]; ok {
		a.counts[i] = addSat(a.counts[i], n)
		return
	}
	s := a.intern(stack)
	a.index[s] = len(a.stacks)
	a.stacks = append(a.stacks, s)
	a.counts = append(a.counts, n)
}

// sort orders the stacks bytewise, as stackcollapse-perf.pl sorts its
// output. The worker that filled the aggregator does it, in parallel with
// the others (Worker.Done).
func (a *aggregator) sort() {
	if a.order != nil || len(a.stacks) == 0 {
		return
	}
	a.order = make([]int32, len(a.stacks))
	for i := range a.order {
		a.order[i] = int32(i)
	}
	slices.SortFunc(a.order, func(x, y int32) int { return strings.Compare(a.stacks[x], a.stacks[y]) })
}

// writeMerged writes the sums of sorted aggregators as classic folded lines,
// sorted, the sums of a stack found in several of them added: a k-way
// merge, so that the only serial work at the end of a parallel run is one
// pass over the distinct stacks. Counts are divided by div (1000 turns
// nanoseconds into microseconds).
func writeMerged(w io.Writer, aggs []*aggregator, div int64) error {
	pos := make([]int, len(aggs))
	var buf []byte
	for {
		best := -1
		var stack string
		for i, a := range aggs {
			if pos[i] < len(a.order) {
				if s := a.stacks[a.order[pos[i]]]; best < 0 || s < stack {
					best, stack = i, s
				}
			}
		}
		if best < 0 {
			break
		}
		var sum int64
		for i, a := range aggs {
			if pos[i] < len(a.order) && a.stacks[a.order[pos[i]]] == stack {
				sum = addSat(sum, a.counts[a.order[pos[i]]])
				pos[i]++
			}
		}
		buf = append(buf, stack...)
		buf = append(buf, ' ')
		if div == 1 {
			buf = strconv.AppendInt(buf, sum, 10)
		} else {
			buf = folded.AppendCount(buf, float64(sum)/float64(div))
		}
		buf = append(buf, '\n')
		if len(buf) >= 64<<10 {
			if _, err := w.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
	}
	_, err := w.Write(buf)
	return err
}

// addSat adds b to a, saturating at the largest int64.
func addSat(a, b int64) int64 {
	if b > 0 && a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}
