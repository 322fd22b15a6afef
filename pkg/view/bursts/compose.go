package bursts

import (
	"cmp"
	"math"
	"slices"

	"flamekit/pkg/folded"
	"flamekit/pkg/timeline"
)

// MinCompScale is the smallest scale of composition z-scores: at the
// default threshold, a second of the median second's samples must move
// 5 % of them more than the median second does to stand out.
const MinCompScale = 0.005

// CompBaseline is the baseline of composition z-scores.
type CompBaseline struct {
	// Median of the seconds' divergence (0 to 1), MAD the median of
	// their deviations above it, and Scale the scale of z-scores (the
	// largest of 1.4826 × MAD, Options.CompScale or MinCompScale, and one
	// sample's worth of the median second, 1/(2 × Samples)).
	Median, MAD, Scale float64
	// Samples is the median second's measure, m in n / (n + m).
	Samples float64
	// Seconds is the number of seconds scored (those with busy samples of
	// known process, when another part of the capture has some too); Hot
	// how many were hot; Processes the distinct processes.
	Seconds, Hot, Processes int
	// Top is the highest z-score of a second, and TopDivergence its
	// divergence.
	Top, TopDivergence float64
}

// composition is the per-second, per-process part of a Series, read from
// its timeline (read). A process's samples per bin, which place the edges
// of a burst, are read from the timeline's cells when a burst needs them
// (binSamples).
type composition struct {
	names []string
	ents  []entry
	tl    *timeline.Timeline
	proc  []int32 // the process id of each node of tl (-1: Root)
	bins  int64
}

type entry struct {
	slot, id uint32
	n        uint32 // samples (saturating)
	w        float64
}

// AddStack adds a busy sample at time t with the given count (its weight),
// as Add does, and counts it for its process, the stack's root frame, so
// that Find also finds the windows whose composition stands out.
func (s *Series) AddStack(t folded.Time, count float64, stack []byte) {
	if stack == nil {
		stack = []byte{}
	}
	s.add(t, count, stack)
}

// read reads the composition from the timeline: per second and
// process, the samples and weight. A process's id is its rank among the
// processes with samples by first sample, as the timeline's nodes of
// depth 1 are.
func (c *composition) read(tl *timeline.Timeline, l *timeline.Counts) {
	*c = composition{tl: tl, bins: int64(l.Bins()), proc: make([]int32, len(tl.Nodes))}
	// The processes that have an entry: a timeline made of another's
	// (SeriesOf) holds the nodes of samples it left out (idle ones).
	has := make([]bool, len(tl.Nodes))
	for i := range tl.Entries {
		has[tl.Entries[i].Stack] = true
	}
	for n := len(tl.Nodes) - 1; n > 0; n-- {
		if has[n] {
			has[tl.Nodes[n].Parent] = true
		}
	}
	// Process ids by node: a parent's id is below its children's.
	var id int32
	for n := range tl.Nodes {
		switch nd := &tl.Nodes[n]; {
		case nd.Depth == 0 || nd.Depth == 1 && !has[n]:
			c.proc[n] = -1
		case nd.Depth == 1:
			c.proc[n] = id
			c.names = append(c.names, tl.Frames[nd.Frame])
			id++
		default:
			c.proc[n] = c.proc[nd.Parent]
		}
	}
	// A second at a time (its entries are contiguous: they are sorted by
	// cell), its entries by process and cell: every sum is made in one
	// order whatever the timeline was keyed by (processes or stacks).
	bins := c.bins
	type ref struct {
		id uint32
		k  int32 // index of the timeline's entry
	}
	var refs []ref
	for i := 0; i < len(tl.Entries); {
		sec := floorDiv(int64(tl.Entries[i].Cell), bins)
		refs = refs[:0]
		j := i
		for ; j < len(tl.Entries) && floorDiv(int64(tl.Entries[j].Cell), bins) == sec; j++ {
			if p := c.proc[tl.Entries[j].Stack]; p >= 0 {
				refs = append(refs, ref{uint32(p), int32(j)})
			}
		}
		i = j
		if len(refs) == 0 {
			continue
		}
		slices.SortFunc(refs, func(a, b ref) int {
			if c := cmp.Compare(a.id, b.id); c != 0 {
				return c
			}
			return cmp.Compare(a.k, b.k)
		})
		slot, _ := l.Block(sec)
		k := -1
		for _, r := range refs {
			if k < 0 || c.ents[k].id != r.id {
				k = len(c.ents)
				c.ents = append(c.ents, entry{slot: uint32(slot), id: r.id})
			}
			en := &c.ents[k]
			en.n = uint32(min(uint64(en.n)+uint64(tl.Entries[r.k].Samples), math.MaxUint32))
			en.w += tl.WeightOf(int(r.k))
		}
	}
}

// binSamples returns the samples of process id in bin b of second sec
// (as many as 2^16-1 at most, as a bin of the composition counts).
func (c *composition) binSamples(sec int64, b int, id uint32) uint32 {
	cell := sec*c.bins + int64(b)
	i, j := c.tl.Range(cell, cell+1)
	var n uint32
	for k := i; k < j; k++ {
		if e := &c.tl.Entries[k]; c.proc[e.Stack] == int32(id) {
			n += e.Samples
		}
	}
	return min(n, math.MaxUint16)
}

// compTotals are the sums composition scores need.
type compTotals struct {
	proc      []float64 // measure per process over the capture
	procN     []float64 // samples per process
	all       float64   // measure over every process
	samples   float64   // samples over every process
	median    float64   // the median second's measure, of the seconds scored
	bySlot    [][]int32 // entries of each slot
	slotTotal []float64 // measure per slot
}

func (c *composition) totals(m Measure, s *Series) *compTotals {
	t := &compTotals{proc: make([]float64, len(c.names)), procN: make([]float64, len(c.names)),
		bySlot: make([][]int32, len(s.c.Secs())), slotTotal: make([]float64, len(s.c.Secs()))}
	for i := range c.ents {
		e := &c.ents[i]
		v := e.value(m)
		t.proc[e.id] += v
		t.procN[e.id] += float64(e.n)
		t.all += v
		t.slotTotal[e.slot] += v
		t.bySlot[e.slot] = append(t.bySlot[e.slot], int32(i))
		t.samples += float64(e.n)
	}
	var ns []float64
	for _, v := range t.slotTotal {
		if v > 0 && t.all-v > 0 {
			ns = append(ns, v)
		}
	}
	t.median = medianWith(ns, 0, 0)
	return t
}

func (e *entry) value(m Measure) float64 {
	if m == Weight {
		return e.w
	}
	return float64(e.n)
}

// divergence returns the shrunk total-variation distance between the
// shares vals (measure per process id, total n) and the profile of the
// rest of the capture, and the process whose share most exceeds its
// share of the rest with both shares.
func (t *compTotals) divergence(ids []uint32, vals []float64, n float64) (d float64, top uint32, share, typical float64) {
	rest := t.all - n
	if n <= 0 || rest <= 0 {
		return 0, 0, 0, 0
	}
	var sum, seen float64 // sum of |share − p| over ids; sum of their p
	best := math.Inf(-1)
	for i, id := range ids {
		p := (t.proc[id] - vals[i]) / rest
		p = max(p, 0) // rounding of weights
		sh := vals[i] / n
		sum += math.Abs(sh - p)
		seen += p
		if sh-p > best {
			best, top, share, typical = sh-p, id, sh, p
		}
	}
	sum += max(1-seen, 0) // the processes absent from the window
	return n / (n + t.median) * sum / 2, top, share, typical
}

// compBursts sets the composition baseline of res and returns the bursts
// of composition, in time order.
func (s *Series) compBursts(m Measure, res *Result, o *Options, low float64) []Burst {
	c := &s.comp
	if len(c.ents) == 0 {
		return nil
	}
	t := c.totals(m, s)
	res.Comp.Processes = len(c.names)
	// Every scored second's divergence.
	div := make([]float64, len(s.c.Secs()))
	scored := make([]bool, len(s.c.Secs()))
	var ds []float64
	var ids []uint32
	var vals []float64
	for slot, es := range t.bySlot {
		if len(es) == 0 || t.slotTotal[slot] <= 0 || t.all-t.slotTotal[slot] <= 0 {
			continue
		}
		ids, vals = ids[:0], vals[:0]
		for _, e := range es {
			ids = append(ids, c.ents[e].id)
			vals = append(vals, c.ents[e].value(m))
		}
		div[slot], _, _, _ = t.divergence(ids, vals, t.slotTotal[slot])
		scored[slot] = true
		ds = append(ds, div[slot])
	}
	if len(ds) == 0 {
		return nil
	}
	b := &res.Comp
	b.Seconds = len(ds)
	b.Samples = t.median
	b.Median = medianWith(ds, 0, 0)
	up := ds[:0] // the deviations above the median
	for _, d := range ds {
		if d >= b.Median {
			up = append(up, d-b.Median)
		}
	}
	b.MAD = medianWith(up, 0, 0)
	floor := o.CompScale
	if floor <= 0 {
		floor = MinCompScale
	}
	// One sample moved in the median second moves its divergence by
	// 1/m × m/(m+m).
	unit := 1.0
	if m == Weight && t.samples > 0 {
		unit = t.all / t.samples
	}
	b.Scale = max(1.4826*b.MAD, floor, unit/(2*t.median))
	z := func(d float64) float64 { return (d - b.Median) / b.Scale }
	for i, ok := range scored {
		if ok && div[i] > b.TopDivergence {
			b.TopDivergence = div[i]
		}
	}
	b.Top = z(b.TopDivergence)

	var bursts []Burst
	b.Hot += s.hotRuns(low, res.Threshold, func(i int) (float64, bool) { return z(div[i]), scored[i] },
		func(run []int) { bursts = append(bursts, s.compBurst(m, t, run, z)) })
	return bursts
}

// compBurst builds the composition burst of a run of warm seconds (slots
// in time order).
func (s *Series) compBurst(m Measure, t *compTotals, run []int, z func(float64) float64) Burst {
	c := &s.comp
	// The process that stands out over the run's seconds, by samples (the
	// unit of the bins that place the edges) and by the measure.
	byID := map[uint32][2]float64{} // id -> samples, measure
	var n, v float64
	for _, slot := range run {
		for _, e := range t.bySlot[slot] {
			en := &c.ents[e]
			x := byID[en.id]
			x[0] += float64(en.n)
			x[1] += en.value(m)
			byID[en.id] = x
			n += float64(en.n)
			v += en.value(m)
		}
	}
	ids, vals := sortedVals(byID, 1)
	_, top, _, _ := t.divergence(ids, vals, v)
	// Its share by samples, in the run and elsewhere: a bin is hot when
	// its share there is at least half-way from elsewhere to the run.
	runShare := byID[top][0] / n
	typical := 0.0
	if t.samples > n {
		typical = (t.procN[top] - byID[top][0]) / (t.samples - n)
	}
	mid := (runShare + typical) / 2
	hotBin := func(sec int64, b int) bool {
		slot, ok := s.c.Block(sec)
		if !ok {
			return false
		}
		n := c.binSamples(sec, b, top)
		total := s.c.N()[int(slot)*s.c.Bins()+b]
		return n >= 2 && total > 0 && float64(n) >= mid*float64(total)
	}
	first, last := s.c.Secs()[run[0]], s.c.Secs()[run[len(run)-1]]
	start, end := s.edges(first, last, hotBin)
	b := s.window(m, start, end)
	b.Kind = Composition
	// The window's composition: whole seconds inside it, and the share of
	// the edge seconds' entries that falls in it (by their samples per
	// bin).
	bins := int64(s.c.Bins())
	win := map[uint32][2]float64{}
	var wv float64
	for sec := floorDiv(start, bins); sec*bins < end; sec++ {
		slot, ok := s.c.Block(sec)
		if !ok {
			continue
		}
		lo, hi := max(start-sec*bins, 0), min(end-sec*bins, bins)
		for _, e := range t.bySlot[slot] {
			en := &c.ents[e]
			frac := 1.0
			if lo > 0 || hi < bins {
				var in int
				for k := lo; k < hi; k++ {
					in += int(c.binSamples(sec, int(k), en.id))
				}
				if en.n == 0 {
					continue
				}
				frac = float64(in) / float64(en.n)
			}
			x := win[en.id]
			x[1] += frac * en.value(m)
			win[en.id] = x
			wv += frac * en.value(m)
		}
	}
	ids, vals = sortedVals(win, 1)
	var d float64
	var id uint32
	d, id, b.Share, b.Typical = t.divergence(ids, vals, wv)
	b.Process = c.names[id]
	b.Divergence = d
	b.CompScore = z(d)
	b.Score = b.CompScore
	for _, slot := range run {
		ids, vals = ids[:0], vals[:0]
		for _, e := range t.bySlot[slot] {
			ids = append(ids, c.ents[e].id)
			vals = append(vals, c.ents[e].value(m))
		}
		dd, _, _, _ := t.divergence(ids, vals, t.slotTotal[slot])
		b.Peak = max(b.Peak, z(dd))
	}
	return b
}

// sortedVals returns the ids of m in order and their values at index i.
func sortedVals(m map[uint32][2]float64, i int) ([]uint32, []float64) {
	ids := make([]uint32, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(a, b uint32) int { return cmp.Compare(a, b) })
	vals := make([]float64, len(ids))
	for j, id := range ids {
		vals[j] = m[id][i]
	}
	return ids, vals
}
