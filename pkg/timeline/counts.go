package timeline

import (
	"math"

	"flamekit/pkg/folded"
)

// Counts is the per-cell series of a view that needs no key (the heat
// map's cells, the bursts' bins), laid out densely: time is cut into the
// cells of a Timeline of Bins cells per second (the same boundaries), and
// a second that holds a sample is a block of Bins counters, a count
// (uint32, saturating) and, when made with weights, a summed weight; the
// seconds without one cost nothing. A 12-hour heat map of 50 rows costs
// about 10 MB whatever its number of samples: 4 bytes a cell, where a
// Timeline's entry is 32 (Timeline.Counts lays a timeline's entries out
// so). Samples come in time order in practice, so most need no map lookup
// (the block of the last sample is kept at hand), but any order is
// counted alike.
type Counts struct {
	origin  folded.Time
	bins    int
	weights bool
	slot    map[int64]int32 // second -> its block
	secs    []int64         // the second of each block
	n       []uint32        // counts, Bins per block
	w       []float64       // weights, Bins per block (weights only)
	// The span of the seconds covered (Add or Cover).
	lo, hi  int64
	covered bool
	// cur is the block of second curSec, the last one added to.
	cur    int32
	curSec int64
}

// NewCounts returns an empty counter of bins bins per second (at least 1)
// whose seconds count from origin; weights says whether it sums weights
// too.
func NewCounts(origin folded.Time, bins int, weights bool) *Counts {
	return &Counts{origin: origin, bins: max(bins, 1), weights: weights, slot: make(map[int64]int32), cur: -1}
}

// Origin returns the time second 0 starts at.
func (c *Counts) Origin() folded.Time { return c.origin }

// Bins returns the number of bins per second.
func (c *Counts) Bins() int { return c.bins }

// Cell returns the second of t (counted from the origin; negative before
// it) and its bin in that second.
func (c *Counts) Cell(t folded.Time) (sec int64, bin int) {
	r := int64(t - c.origin)
	sec = floorDiv(r, second)
	return sec, int((r - sec*second) * int64(c.bins) / second)
}

// Add adds n to the count of t's bin, and w to its weight when the counter
// sums weights. It returns what the count could not hold (it stops at
// 2^32-1).
func (c *Counts) Add(t folded.Time, n uint64, w float64) (lost uint64) {
	sec, bin := c.Cell(t)
	if c.cur < 0 || sec != c.curSec {
		c.cover(sec)
		i, ok := c.slot[sec]
		if !ok {
			i = int32(len(c.secs))
			c.slot[sec] = i
			c.secs = append(c.secs, sec)
			c.n = append(c.n, make([]uint32, c.bins)...)
			if c.weights {
				c.w = append(c.w, make([]float64, c.bins)...)
			}
		}
		c.cur, c.curSec = i, sec
	}
	k := int(c.cur)*c.bins + bin
	if room := uint64(math.MaxUint32 - c.n[k]); n > room {
		lost = n - room
		n = room
	}
	c.n[k] += uint32(n)
	if c.weights {
		c.w[k] += w
	}
	return lost
}

// Cover widens the span to the second of t without counting anything (a
// sample read but not counted: an idle one).
func (c *Counts) Cover(t folded.Time) {
	sec, _ := c.Cell(t)
	c.cover(sec)
}

func (c *Counts) cover(sec int64) {
	if !c.covered {
		c.lo, c.hi, c.covered = sec, sec, true
		return
	}
	c.lo, c.hi = min(c.lo, sec), max(c.hi, sec)
}

// Covered says whether any time was added or covered; Lo and Hi are then
// the first and last second of the span.
func (c *Counts) Covered() bool { return c.covered }

// Lo returns the first second covered.
func (c *Counts) Lo() int64 { return c.lo }

// Hi returns the last second covered.
func (c *Counts) Hi() int64 { return c.hi }

// Secs returns the second of each block, in the order they were made. The
// slice is the counter's: do not change it.
func (c *Counts) Secs() []int64 { return c.secs }

// Block returns the block of second sec, if it holds anything.
func (c *Counts) Block(sec int64) (int32, bool) {
	i, ok := c.slot[sec]
	return i, ok
}

// Cur returns the block the last Add counted in (-1 before any).
func (c *Counts) Cur() int32 { return c.cur }

// N returns the counts, Bins per block (block i is N()[i*Bins:(i+1)*Bins]).
// The slice is the counter's: do not change it.
func (c *Counts) N() []uint32 { return c.n }

// W returns the weights, laid out as N (nil without weights).
func (c *Counts) W() []float64 { return c.w }

// Counts lays the timeline's entries that keep accepts (nil: all) out as
// Counts, samples and weights, over its Extent: the per-cell series of a
// view that reads per second and cell. The timeline's cells must be
// sub-second (Seconds 1).
func (t *Timeline) Counts(keep func(*Entry) bool) *Counts {
	c := NewCounts(t.Origin, t.Rows, true)
	if lo, hi, ok := t.Extent(); ok {
		c.Cover(t.CellStart(lo))
		c.Cover(t.CellStart(hi))
	}
	for i := range t.Entries {
		e := &t.Entries[i]
		if keep != nil && !keep(e) {
			continue
		}
		c.Add(t.CellStart(int64(e.Cell)), uint64(e.Samples), t.WeightOf(i))
	}
	return c
}
