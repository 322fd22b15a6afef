package collapse

import (
	"bytes"
	"io"
	"math/bits"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
)

// The classic output of many distinct stacks (a system-wide capture holds
// a hundred thousand) ends with a tail that nothing else overlaps: sorting
// the keys, then making the text of each and writing it. Both are cut by
// ranges of the final order (keyRanges): splitter keys, quantiles of a
// sample, cut the keys into ranges, the first range's keys all before the
// second's, and so on, so that each range is sorted and its lines made
// by itself, on every core at once, while the ranges before it are
// written, in order. Keys of one text compare equal, so they fall in one
// range, next to each other once it is sorted: their sums are added
// there.

// keysPerRange is about how many keys a range holds: enough that a range
// is worth a goroutine's turn, few enough that the first range is ready
// soon and the ranges waiting to be written hold little memory.
const keysPerRange = 2048

// rangeSample is how many keys are sampled per range to pick the
// splitters.
const rangeSample = 16

// ordered returns the keys (but the idle ones) in the order of their
// texts: ranges (see keyRanges), written on every core by writeTo, or
// read as one sumList by writeLists. The keys are sorted by their
// numbers, not by their text, which is made once per key as it is
// written (keyList): it is never held whole. It may hold a text twice
// (two keys of one text), which is added. No add may run after.
func (k *keySums) ordered() *keyRanges {
	k.pieces.rank()
	return k.ranges(max(1, k.len()/keysPerRange))
}

// keyRanges is the keys of a keySums, but the idle ones, cut into ranges
// of the order of their texts (see the top of this file). As a sumList,
// it is every range sorted, one after the other; writeTo makes and
// writes the lines of the ranges on several goroutines.
type keyRanges struct {
	p *pieceTable
	// parts[g] holds the keys gathered by goroutine g, by range: those
	// of range r are parts[g][bounds[g][r]:bounds[g][r+1]], unsorted.
	parts  [][]keyRef
	bounds [][]int
	n      int // ranges
	// next reads list, the keys of the range before r, sorted with
	// scratch.
	list    *keyList
	r       int
	scratch sortScratch
}

// keyRef is a key and its sum, as ranges gathers them.
type keyRef struct {
	ids []uint32
	sum int64
}

// ranges cuts the keys of k into n ranges (fewer when there are fewer
// distinct keys), on up to GOMAXPROCS goroutines, each taking the shards
// i, i+g, i+2g...; the shards are emptied. Once p is ranked.
func (k *keySums) ranges(n int) *keyRanges {
	split := k.splitters(n)
	n = len(split.keys) + 1
	g := min(runtime.GOMAXPROCS(0), shards)
	kr := &keyRanges{p: k.pieces, parts: make([][]keyRef, g), bounds: make([][]int, g), n: n}
	var wg sync.WaitGroup
	for w := range g {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Two passes over the slots, the second to put each key
			// in its place: the tail's memory is new to the process
			// (the kernel clears its pages), so none is spent on a copy
			// of the keys in the order of the slots.
			size := 0
			for i := w; i < shards; i += g {
				size += k.shards[i].used
			}
			in := make([]uint32, 0, size) // the range of each key, in the order of the slots
			count := make([]int, n+1)
			for i := w; i < shards; i += g {
				sh := &k.shards[i]
				for _, e := range sh.slots {
					if e.n != 0 && !e.idle {
						r := k.pieces.rangeOf(split, sh.ids[e.start:e.start+e.n])
						in = append(in, uint32(r))
						count[r+1]++
					}
				}
			}
			for r := range n {
				count[r+1] += count[r]
			}
			bounds := slices.Clone(count)
			part := make([]keyRef, len(in))
			j := 0
			for i := w; i < shards; i += g {
				sh := &k.shards[i]
				for _, e := range sh.slots {
					if e.n != 0 && !e.idle {
						r := in[j]
						j++
						part[count[r]] = keyRef{sh.ids[e.start : e.start+e.n : e.start+e.n], e.sum}
						count[r]++
					}
				}
				sh.slots, sh.used = nil, 0
			}
			kr.parts[w], kr.bounds[w] = part, bounds
		}()
	}
	wg.Wait()
	return kr
}

// splitters returns up to n-1 keys of k, sorted, that cut its keys into n
// ranges of about as many keys each: quantiles of a sample of rangeSample
// keys per range. Keys with the text of a splitter go to the range after
// it (rangeOf). Once k.pieces is ranked.
func (k *keySums) splitters(n int) *splitters {
	if n <= 1 {
		return newSplitters(nil)
	}
	total := k.len()
	want := n * rangeSample
	var sample [][]uint32
	// A key's slot is where its hash puts it: keys at evenly spaced
	// slots are a sample of them all.
	for i := range k.shards {
		sh := &k.shards[i]
		m := (sh.used*want + total - 1) / total
		for j := range m {
			for s := j * len(sh.slots) / m; s < (j+1)*len(sh.slots)/m; s++ {
				if e := &sh.slots[s]; e.n != 0 && !e.idle {
					sample = append(sample, sh.ids[e.start:e.start+e.n:e.start+e.n])
					break
				}
			}
		}
	}
	if len(sample) < 2 {
		return newSplitters(nil)
	}
	slices.SortFunc(sample, k.pieces.compareKeys)
	n = min(n, len(sample))
	split := make([][]uint32, 0, n-1)
	for j := 1; j < n; j++ {
		split = append(split, sample[j*len(sample)/n])
	}
	return newSplitters(split)
}

// splitters is the keys that cut keys into ranges, sorted (see
// keySums.splitters), and what the binary search of rangeOf knows of
// them: the numbers keys[j] starts with alike with the splitters below
// (lo[j]) and above it (hi[j]) between which the search compares with it
// (0 at the ends). A key starts with as many numbers alike with keys[j]
// as it does with both of those, which it was compared with: the
// comparison starts there.
type splitters struct {
	keys   [][]uint32
	lo, hi []int
}

func newSplitters(keys [][]uint32) *splitters {
	n := len(keys)
	s := &splitters{keys: keys, lo: make([]int, n), hi: make([]int, n)}
	var walk func(lo, hi int)
	walk = func(lo, hi int) {
		if lo+1 >= hi {
			return
		}
		mid := (lo + hi) / 2
		if lo >= 0 {
			s.lo[mid] = commonPrefix(keys[lo], keys[mid])
		}
		if hi < n {
			s.hi[mid] = commonPrefix(keys[mid], keys[hi])
		}
		walk(lo, mid)
		walk(mid, hi)
	}
	walk(-1, n)
	return s
}

// rangeOf returns the range of key among those s cuts: the number of
// splitters that come before it, or are its text.
func (p *pieceTable) rangeOf(s *splitters, key []uint32) int {
	lo, hi := -1, len(s.keys) // keys[lo] <= key < keys[hi]
	atLo, atHi := 0, 0        // the numbers key starts with alike with them
	for lo+1 < hi {
		mid := (lo + hi) / 2
		from := max(min(atLo, s.lo[mid]), min(atHi, s.hi[mid]))
		c, at := p.compareAt(key, s.keys[mid], from)
		if c < 0 {
			hi, atHi = mid, at
		} else {
			lo, atLo = mid, at
		}
	}
	return hi
}

// sortRef is a key being sorted or written: its numbers are
// arena[off:off+n] of the arena they were copied into, and its sum. It
// holds no pointer: the sort moves it without the write barriers of a
// garbage collection running, which reads none of its arrays.
type sortRef struct {
	off, n uint32
	sum    int64
}

// ids returns the numbers of the key r in arena.
func (r sortRef) ids(arena []uint32) []uint32 {
	return arena[r.off : r.off+r.n : r.off+r.n]
}

// sortScratch is the memory a goroutine sorts ranges with, reused from one
// range to the next.
type sortScratch struct {
	arena []uint32
	refs  []sortRef
	ranks []uint32
}

// sorted returns the keys of range r, sorted, as a keyList in the memory
// of s, valid until s sorts another range. Their numbers are copied into
// one arena, so that the sort reads the keys of the range in one place
// rather than all over the shards.
func (kr *keyRanges) sorted(r int, s *sortScratch) *keyList {
	keys, size := 0, 0
	for g, part := range kr.parts {
		for _, ref := range part[kr.bounds[g][r]:kr.bounds[g][r+1]] {
			keys++
			size += len(ref.ids)
		}
	}
	arena := slices.Grow(s.arena[:0], size)
	refs := slices.Grow(s.refs[:0], keys)
	for g, part := range kr.parts {
		for _, ref := range part[kr.bounds[g][r]:kr.bounds[g][r+1]] {
			refs = append(refs, sortRef{uint32(len(arena)), uint32(len(ref.ids)), ref.sum})
			arena = append(arena, ref.ids...)
		}
	}
	s.arena, s.refs = arena, refs
	s.ranks = slices.Grow(s.ranks[:0], keys)[:keys]
	kr.p.sortKeys(refs, arena, s.ranks)
	return &keyList{p: kr.p, arena: arena, refs: refs}
}

// next reads the ranges in order, each sorted once the one before was
// read.
func (kr *keyRanges) next() ([]byte, int64, bool) {
	for {
		if kr.list != nil {
			if text, n, ok := kr.list.next(); ok {
				return text, n, true
			}
		}
		if kr.r == kr.n {
			return nil, 0, false
		}
		kr.list = kr.sorted(kr.r, &kr.scratch)
		kr.r++
	}
}

// chunkSize is about how much of the output a chunk holds: lines are
// made into chunks, which are written and reused.
const chunkSize = 64 << 10

// chunks holds the chunks of lines not in use, to reuse.
type chunks chan []byte

// get returns an empty chunk.
func (c chunks) get() []byte {
	select {
	case b := <-c:
		return b
	default:
		return make([]byte, 0, chunkSize+chunkSize/4)
	}
}

// put gives back a chunk (written).
func (c chunks) put(b []byte) {
	select {
	case c <- b[:0]:
	default:
	}
}

// appendLines appends to out the classic lines of the keys of l, which
// are sorted, their counts divided by div, in chunks of about chunkSize
// bytes taken from free (a line is never cut): the sums of keys of one
// text are added.
func (l *keyList) appendLines(out [][]byte, free chunks, div int64) [][]byte {
	buf := free.get()
	text, n, ok := l.next()
	for ok {
		if len(buf) >= chunkSize {
			out = append(out, buf)
			buf = free.get()
		}
		start := len(buf)
		buf = append(buf, text...)
		line := buf[start:len(buf):len(buf)]
		sum := addSat(0, n)
		for {
			if text, n, ok = l.next(); !ok || !bytes.Equal(text, line) {
				break
			}
			sum = addSat(sum, n)
		}
		buf = appendSum(buf, sum, div)
	}
	return append(out, buf)
}

// writeTo writes the classic lines of the keys to w, their counts divided
// by div (see writeLists): the ranges are sorted and their lines made on
// up to GOMAXPROCS goroutines at once, and written in order. At most one
// range more than the goroutines is taken before the ranges before it
// are written: the memory held is a few ranges' lines (new memory, which
// the kernel clears: it costs as much as making the lines).
func (kr *keyRanges) writeTo(w io.Writer, div int64) error {
	workers := min(runtime.GOMAXPROCS(0), kr.n)
	window := workers + 1
	tokens := make(chan struct{}, window) // a range may be taken
	for range window {
		tokens <- struct{}{}
	}
	free := make(chunks, 256)
	done := make([]chan [][]byte, kr.n) // the lines of each range
	for r := range done {
		done[r] = make(chan [][]byte, 1)
	}
	quit := make(chan struct{})
	var next atomic.Int32
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var scratch sortScratch
			for {
				select {
				case <-tokens:
				case <-quit:
					return
				}
				r := int(next.Add(1)) - 1
				if r >= kr.n {
					return
				}
				done[r] <- kr.sorted(r, &scratch).appendLines(nil, free, div)
			}
		}()
	}
	var err error
write:
	for r := range kr.n {
		for _, buf := range <-done[r] {
			if _, err = w.Write(buf); err != nil {
				break write
			}
			free.put(buf)
		}
		tokens <- struct{}{}
	}
	close(quit)
	wg.Wait()
	return err
}

// sortKeys sorts refs, keys in arena, in the order of their texts
// (compareKeys), the way a multikey quicksort sorts strings: by the rank
// of their first numbers (tokenRank), those of equal rank (one number)
// then by their second numbers, and so on. Sorted keys share a dozen
// numbers on average: a comparison of two keys reads them all again, a
// multikey quicksort reads each key's number at a depth about once.
// Where a number is not ranked among the others (a text that is not
// simple), the keys are sorted by compareFrom from there. ranks is
// scratch memory, as long as refs.
func (p *pieceTable) sortKeys(refs []sortRef, arena []uint32, ranks []uint32) {
	p.sortKeysAt(refs, arena, ranks, 0, false, 2*bits.Len(uint(len(refs))))
}

// sortKeysAt is sortKeys of keys that start with the same d numbers, with
// ranks[i] the rank of refs[i] at d when ranked, and budget the
// partitions at d left before refs are sorted by compareFrom (a bad run
// of pivots).
func (p *pieceTable) sortKeysAt(refs []sortRef, arena []uint32, ranks []uint32, d int, ranked bool, budget int) {
	for {
		if len(refs) < 12 || budget == 0 {
			p.sortFrom(refs, arena, d)
			return
		}
		if !ranked {
			for i, ref := range refs {
				ids := ref.ids(arena)
				if d >= len(ids) { // a key of d numbers: only one can be
					p.sortFrom(refs, arena, d)
					return
				}
				r, ok := p.tokenRank(ids[d], d, d+1 == len(ids))
				if !ok {
					p.sortFrom(refs, arena, d)
					return
				}
				ranks[i] = r
			}
		}
		n := len(refs)
		v := median3(ranks[0], ranks[n/2], ranks[n-1])
		lt, i, gt := 0, 0, n // [:lt] < v, [lt:i] == v, [gt:] > v
		for i < gt {
			switch r := ranks[i]; {
			case r < v:
				refs[lt], refs[i] = refs[i], refs[lt]
				ranks[lt], ranks[i] = ranks[i], ranks[lt]
				lt++
				i++
			case r > v:
				gt--
				refs[gt], refs[i] = refs[i], refs[gt]
				ranks[gt], ranks[i] = ranks[i], ranks[gt]
			default:
				i++
			}
		}
		p.sortKeysAt(refs[:lt], arena, ranks[:lt], d, true, budget-1)
		p.sortKeysAt(refs[gt:], arena, ranks[gt:], d, true, budget-1)
		// One number at d: on to the next.
		refs, ranks, d, ranked = refs[lt:gt], ranks[lt:gt], d+1, false
		budget = 2 * bits.Len(uint(len(refs)))
	}
}

// sortFrom sorts refs, keys in arena that start with the same d numbers,
// by compareFrom.
func (p *pieceTable) sortFrom(refs []sortRef, arena []uint32, d int) {
	slices.SortFunc(refs, func(a, b sortRef) int { return p.compareFrom(a.ids(arena), b.ids(arena), d) })
}

// median3 returns the median of a, b and c.
func median3(a, b, c uint32) uint32 {
	if a > b {
		a, b = b, a
	}
	return max(a, min(b, c))
}
