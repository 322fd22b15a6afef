package collapse

import (
	"bytes"
	"hash/maphash"
	"io"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"flamekit/pkg/folded"
)

// aggregator sums weights per distinct folded stack (classic output).
//
// Stacks are copied into large arena blocks rather than allocated one by
// one: a profile can hold tens of thousands of distinct stacks of several
// hundred bytes, and one allocation each cost more than everything else
// the classic output does per sample.
//
// The index is keyed by a hash of the stack that the caller may have
// computed already (sharedSums picks a shard with it): hashing a stack of
// a few hundred bytes once per sample rather than twice is worth a tenth
// of the classic path. Stacks are still compared byte for byte; a stack
// whose hash another one had first goes to spill.
type aggregator struct {
	index  map[uint64]int32 // stack number by hash
	spill  map[string]int32 // stacks whose hash was taken
	stacks []string
	counts []int64
	block  []byte  // the arena block being filled
	order  []int32 // the stacks in sorted order, once sorted
}

// arenaBlock is the largest size of an arena block. Blocks start small and
// double: the classic sums are sharded (sharedSums), and a 1 MB block for
// each of 64 shards holding a few kilobytes of stacks each cost more
// (allocating and clearing 64 MB) than folding 100 MB of perf script text.
const (
	arenaBlock      = 1 << 20
	arenaFirstBlock = 4 << 10
)

func newAggregator() *aggregator { return &aggregator{index: make(map[uint64]int32)} }

// aggSeed seeds the hash of every aggregator's stacks.
var aggSeed = maphash.MakeSeed()

// hashStack is the hash of a stack that aggregators are indexed by.
func hashStack(stack []byte) uint64 { return maphash.Bytes(aggSeed, stack) }

// stackBytes returns stack i as bytes, without a copy: for reading only
// (the stacks live in the arena, immutable).
func (a *aggregator) stackBytes(i int32) []byte {
	s := a.stacks[i]
	return unsafe.Slice(unsafe.StringData(s), len(s))
}

// find returns the number of stack, whose hash is h, adding it (with a
// count of 0) if it is new.
func (a *aggregator) find(stack []byte, h uint64) int32 {
	i, ok := a.index[h]
	if ok && a.stacks[i] == string(stack) {
		return i
	}
	if ok { // another stack has this hash
		if j, ok := a.spill[string(stack)]; ok {
			return j
		}
	}
	n := int32(len(a.stacks))
	s := a.intern(stack)
	if ok {
		if a.spill == nil {
			a.spill = make(map[string]int32)
		}
		a.spill[s] = n
	} else {
		a.index[h] = n
	}
	a.stacks = append(a.stacks, s)
	a.counts = append(a.counts, 0)
	a.order = nil
	return n
}

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
		a.block = make([]byte, 0, max(n, min(arenaBlock, max(arenaFirstBlock, 2*cap(a.block)))))
	}
	start := len(a.block)
	a.block = append(a.block, stack...)
	// The block is never written again below len: the string is
	// immutable, as Go requires.
	return unsafe.String(&a.block[start], n)
}

// add adds n to the count of stack, whose hash is h (hashStack).
func (a *aggregator) add(stack []byte, h uint64, n int64) {
	i := a.find(stack, h)
	a.counts[i] = addSat(a.counts[i], n)
}

// sort orders the stacks bytewise, as stackcollapse-perf.pl sorts its
// output.
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

// sumList is a list of classic sums, in the order of their stacks
// (bytewise), which writeLists merges. A stack may be listed twice.
type sumList interface {
	// next returns the next stack and its sum, false at the end. The
	// stack is valid until the next call.
	next() ([]byte, int64, bool)
}

// aggList is the sumList of a sorted aggregator.
type aggList struct {
	a   *aggregator
	pos int
}

func (l *aggList) next() ([]byte, int64, bool) {
	if l.pos >= len(l.a.order) {
		return nil, 0, false
	}
	i := l.a.order[l.pos]
	l.pos++
	return l.a.stackBytes(i), l.a.counts[i], true
}

// writeMerged is writeLists of sorted aggregators.
func writeMerged(w io.Writer, aggs []*aggregator, div int64) error {
	lists := make([]sumList, len(aggs))
	for i, a := range aggs {
		lists[i] = &aggList{a: a}
	}
	return writeLists(w, lists, div)
}

// writeLists writes the sums of sorted lists as classic folded lines,
// sorted, the sums of a stack found in several of them (or twice in one)
// added: a k-way merge through a heap, one pass over the distinct stacks.
// Counts are divided by div (1000 turns nanoseconds into microseconds).
func writeLists(w io.Writer, lists []sumList, div int64) error {
	// A heap of the lists' heads, smallest stack first.
	type head struct {
		l     sumList
		stack []byte
		n     int64
	}
	var heap []head
	less := func(i, j int) bool { return bytes.Compare(heap[i].stack, heap[j].stack) < 0 }
	down := func(i int) {
		for {
			l, m := 2*i+1, i
			if l < len(heap) && less(l, m) {
				m = l
			}
			if r := l + 1; r < len(heap) && less(r, m) {
				m = r
			}
			if m == i {
				return
			}
			heap[i], heap[m] = heap[m], heap[i]
			i = m
		}
	}
	for _, l := range lists {
		if stack, n, ok := l.next(); ok {
			heap = append(heap, head{l, stack, n})
		}
	}
	for i := len(heap)/2 - 1; i >= 0; i-- {
		down(i)
	}
	var buf []byte
	for len(heap) > 0 {
		start := len(buf)
		buf = append(buf, heap[0].stack...)
		stack := buf[start:len(buf):len(buf)] // never written: appends to buf go past it
		var sum int64
		for { // the head is stack: add it, then those equal to it
			h := &heap[0]
			sum = addSat(sum, h.n)
			var ok bool
			if h.stack, h.n, ok = h.l.next(); !ok {
				heap[0] = heap[len(heap)-1]
				heap = heap[:len(heap)-1]
			}
			down(0)
			if len(heap) == 0 || !bytes.Equal(heap[0].stack, stack) {
				break
			}
		}
		buf = appendSum(buf, sum, div)
		if len(buf) >= chunkSize {
			if _, err := w.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
	}
	_, err := w.Write(buf)
	return err
}

// appendSum appends the end of a classic line: a space, sum divided by
// div, and a newline.
func appendSum(buf []byte, sum, div int64) []byte {
	buf = append(buf, ' ')
	if div == 1 {
		buf = strconv.AppendInt(buf, sum, 10)
	} else {
		buf = folded.AppendCount(buf, float64(sum)/float64(div))
	}
	return append(buf, '\n')
}

// addSat adds b to a, saturating at the largest int64.
func addSat(a, b int64) int64 {
	if b > 0 && a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// shards is the number of parts of a sharedSums.
const shards = 64

// sharedSums is the classic sums of all the workers of a stage, cut into
// shards by a hash of the stack, each behind its own lock. Workers fold
// different chunks of one profile, which hold mostly the same distinct
// stacks: with one table each, every worker copied and indexed each of
// them, and the tables had to be merged at the end; here each distinct
// stack is copied once, and two workers rarely want the same shard at
// once.
type sharedSums struct {
	shards [shards]struct {
		mu  sync.Mutex
		agg aggregator
		_   [64]byte // keep shards' locks on separate cache lines
	}
}

func newSharedSums() *sharedSums {
	s := &sharedSums{}
	for i := range s.shards {
		s.shards[i].agg.index = make(map[uint64]int32)
	}
	return s
}

// add adds n to stack, whose hash is h (hashStack).
func (s *sharedSums) add(stack []byte, h uint64, n int64) {
	sh := &s.shards[h%shards]
	sh.mu.Lock()
	sh.agg.add(stack, h, n)
	sh.mu.Unlock()
}

// aggregators returns the shards, sorted, for writeMerged; the shards are
// sorted by up to GOMAXPROCS goroutines at once. No add may run.
func (s *sharedSums) aggregators() []*aggregator {
	out := make([]*aggregator, shards)
	var wg sync.WaitGroup
	next := make(chan *aggregator, shards)
	for i := range s.shards {
		out[i] = &s.shards[i].agg
		next <- out[i]
	}
	close(next)
	for range min(runtime.GOMAXPROCS(0), shards) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for a := range next {
				a.sort()
			}
		}()
	}
	wg.Wait()
	return out
}

// sumCache is a worker's combiner in front of the shared sums: a few
// stacks with their pending weights, by hash. Samples of one stack often
// come close together (an idle loop, a hot function): their weights are
// added here, and go to the shared table, behind its lock, once when the
// stack leaves the cache or the worker ends (flush).
type sumCache struct {
	slots [sumSlots]struct {
		stack []byte
		h     uint64
		n     int64
		used  bool
	}
}

const sumSlots = 64

// add adds n to stack, for s.
func (c *sumCache) add(s *sharedSums, stack []byte, n int64) {
	h := hashStack(stack)
	e := &c.slots[(h>>32^h)%sumSlots]
	if e.used && e.h == h && string(e.stack) == string(stack) {
		e.n = addSat(e.n, n)
		return
	}
	if e.used {
		s.add(e.stack, e.h, e.n)
	}
	e.stack = append(e.stack[:0], stack...)
	e.h, e.n, e.used = h, n, true
}

// flush gives the pending weights to s.
func (c *sumCache) flush(s *sharedSums) {
	for i := range c.slots {
		if e := &c.slots[i]; e.used {
			s.add(e.stack, e.h, e.n)
			e.used = false
		}
	}
}
