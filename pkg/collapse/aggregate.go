package collapse

import (
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
)

// aggregator sums weights per distinct folded stack (classic output).
type aggregator struct {
	index  map[string]int
	stacks []string
	counts []int64
}

func newAggregator() *aggregator { return &aggregator{index: make(map[string]int)} }

func (a *aggregator) add(stack []byte, n int64) {
	if i, ok := a.index[string(stack)]; ok {
		a.counts[i] = addSat(a.counts[i], n)
		return
	}
	s := string(stack)
	a.index[s] = len(a.stacks)
	a.stacks = append(a.stacks, s)
	a.counts = append(a.counts, n)
}

// merge adds the sums of o to a.
func (a *aggregator) merge(o *aggregator) {
	for i, s := range o.stacks {
		if k, ok := a.index[s]; ok {
			a.counts[k] = addSat(a.counts[k], o.counts[i])
		} else {
			a.index[s] = len(a.stacks)
			a.stacks = append(a.stacks, s)
			a.counts = append(a.counts, o.counts[i])
		}
	}
}

// writeSorted writes the sums sorted bytewise by stack, as
// stackcollapse-perf.pl does.
func (a *aggregator) writeSorted(w io.Writer) error {
	order := make([]int, len(a.stacks))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(x, y int) int { return strings.Compare(a.stacks[x], a.stacks[y]) })
	var buf []byte
	for _, i := range order {
		buf = append(buf, a.stacks[i]...)
		buf = append(buf, ' ')
		buf = strconv.AppendInt(buf, a.counts[i], 10)
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
