package bursts

import (
	"cmp"
	"container/heap"
	"math"
	"slices"

	"flamekit/pkg/folded"
	"flamekit/pkg/timeline"
)

// KeyKind is what a key of a share burst names.
type KeyKind uint8

// The kinds of keys.
const (
	// KeyProcess is a process: the stack's root frame (comm, or
	// comm-pid/tid as stackcollapse --pid/--tid names it).
	KeyProcess KeyKind = iota + 1
	// KeyThread is a thread: the samples' tid= (inputs that carry one).
	KeyThread
	// KeyFunction is a function anywhere below the root of the stack
	// (inclusive: a sample counts once for each distinct frame of its
	// stack).
	KeyFunction
)

func (k KeyKind) String() string {
	switch k {
	case KeyProcess:
		return "process"
	case KeyThread:
		return "thread"
	case KeyFunction:
		return "function"
	}
	return "none"
}

// MarshalText names the kind in JSON ("process", "thread", "function").
func (k KeyKind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// Rise is a key whose share of a burst's window stands out: what rose, and
// from what to what.
type Rise struct {
	Kind KeyKind
	// Name is the process or function as the stacks spell it; for a
	// thread, its process and tid, "comm/tid".
	Name string
	// TID and PID are a thread's ids (-1 when not carried).
	PID, TID int32
	// Typical is the key's share of the busy samples (or weight) of the
	// capture outside its own heaviest windows (the baseline); Share its
	// share of the burst's window.
	Typical, Share float64
	// Score is the key's z-score in the window, corrected for the number
	// of keys and windows tested (see Find).
	Score float64
	// Command is the command that slices the window for this key (set by
	// the caller that knows the inputs: package timeslice).
	Command string
}

// WindowLengths are the lengths of the windows a key's share is tested
// in, in bins of 0.5 s: 0.5, 1, 2 and 5 seconds.
var WindowLengths = []int{1, 2, 4, 10}

// MinExcess is the fewest samples a key must have in a window beyond
// its typical share for the window to count: a handful of samples of a
// mostly idle host are all one kernel worker's now and then, which is no
// burst (8 samples are 80 ms of a CPU at perf's 97 Hz).
const MinExcess = 8

// maxRises is the number of keys a burst names at most.
const maxRises = 5

// KeyBaseline says how the share bursts were scored.
type KeyBaseline struct {
	// Keys is the number of distinct keys with busy samples (processes,
	// threads, functions), Windows the windows tested (of every length),
	// Tests their product (the Bonferroni factor).
	Keys, Windows int
	Tests         float64
	// Hot is the number of (key, window) pairs at the threshold or more;
	// Top the highest score.
	Hot int
	Top float64
}

// keyIndex names the keys of a timeline's entries: a key id is a
// process's frame id (0..nf), nf + a function's frame id, or 2 nf + a
// thread id.
type keyIndex struct {
	tl    *timeline.Timeline
	keep  func(*timeline.Entry) bool
	m     Measure
	nf    int
	nkeys int
	per   int64 // cells per half second
	tid   []bool
	set   []int32 // per stack node: offset+1 into sets (0: not made)
	sets  []int32 // the function keys of each stack made, with its length first
	mark  []int32
	stamp int32
	unit  float64 // mean measure of a sample
}

func newKeyIndex(tl *timeline.Timeline, keep func(*timeline.Entry) bool, m Measure) *keyIndex {
	x := &keyIndex{tl: tl, keep: keep, m: m, nf: len(tl.Frames), per: int64(tl.Rows / 2)}
	x.nkeys = 2*x.nf + len(tl.Threads)
	x.tid = make([]bool, len(tl.Threads))
	for i, th := range tl.Threads {
		x.tid[i] = th.Has&folded.HasTID != 0 && th.TID >= 0
	}
	x.set = make([]int32, len(tl.Nodes))
	x.mark = make([]int32, x.nf)
	return x
}

// functions returns the function keys of stack s: the distinct frames
// below its root, made once per stack.
func (x *keyIndex) functions(s timeline.StackID) []int32 {
	if o := x.set[s]; o > 0 {
		n := x.sets[o-1]
		return x.sets[o : o+n]
	}
	x.stamp++
	at := int32(len(x.sets))
	x.sets = append(x.sets, 0)
	for n := s; n > timeline.Root && x.tl.Nodes[n].Depth > 1; n = x.tl.Nodes[n].Parent {
		f := x.tl.Nodes[n].Frame
		if x.mark[f] != x.stamp {
			x.mark[f] = x.stamp
			x.sets = append(x.sets, int32(x.nf)+int32(f))
		}
	}
	x.sets[at] = int32(len(x.sets)) - at - 1
	x.set[s] = at + 1
	return x.sets[at+1:]
}

// value returns the measure of entry i.
func (x *keyIndex) value(i int) float64 {
	if x.m == Weight {
		return x.tl.WeightOf(i)
	}
	return float64(x.tl.Entries[i].Samples)
}

// name returns the key's kind and name (and a thread's ids).
func (x *keyIndex) name(k int32) (KeyKind, string, int32, int32) {
	switch {
	case int(k) < x.nf:
		return KeyProcess, x.tl.Frames[k], -1, -1
	case int(k) < 2*x.nf:
		return KeyFunction, x.tl.Frames[int(k)-x.nf], -1, -1
	}
	th := x.tl.Threads[int(k)-2*x.nf]
	comm := ""
	if th.Comm >= 0 {
		comm = x.tl.Frames[th.Comm]
	}
	return KeyThread, comm + "/" + itoa(th.TID), th.PID, th.TID
}

func itoa(v int32) string {
	var b [12]byte
	i := len(b)
	neg := v < 0
	u := int64(v)
	if neg {
		u = -u
	}
	for {
		i--
		b[i] = byte('0' + u%10)
		u /= 10
		if u == 0 {
			break
		}
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}

// has says whether entry e counts for key k.
func (x *keyIndex) has(e *timeline.Entry, k int32) bool {
	switch {
	case int(k) < x.nf:
		return e.Stack != timeline.Root && int(x.tl.Comm(e.Stack)) == int(k)
	case int(k) < 2*x.nf:
		return e.Stack != timeline.Root && slices.Contains(x.functions(e.Stack), k)
	}
	return int(e.Thread) == int(k)-2*x.nf
}

// bins calls fn with every half second that holds busy samples, in time
// order: its index from the origin, its measure and its keys' (keys and
// vals are reused).
func (x *keyIndex) bins(fn func(bin int64, n float64, keys []int32, vals []float64)) {
	acc := make([]float64, x.nkeys)
	var touched []int32
	var vals []float64
	var n float64
	cur, open := int64(0), false
	add := func(k int32, v float64) {
		if acc[k] == 0 {
			touched = append(touched, k)
		}
		acc[k] += v
	}
	flush := func() {
		if open && n > 0 {
			vals = vals[:0]
			for _, k := range touched {
				vals = append(vals, acc[k])
				acc[k] = 0
			}
			fn(cur, n, touched, vals)
		}
		for _, k := range touched {
			acc[k] = 0
		}
		touched, n = touched[:0], 0
	}
	ents := x.tl.Entries
	for i := range ents {
		e := &ents[i]
		if e.Cell == timeline.NoTime || e.Stack == timeline.Root || x.keep != nil && !x.keep(e) {
			continue
		}
		b := floorDiv(int64(e.Cell), x.per)
		if !open || b != cur {
			flush()
			cur, open = b, true
		}
		v := x.value(i)
		if v <= 0 {
			continue
		}
		n += v
		add(int32(x.tl.Comm(e.Stack)), v)
		if e.Thread >= 0 && x.tid[e.Thread] {
			add(int32(2*x.nf)+int32(e.Thread), v)
		}
		for _, f := range x.functions(e.Stack) {
			add(f, v)
		}
	}
	flush()
}

// win is a window's sums being made: its index, measure and its keys'.
type win struct {
	j       int64
	n       float64
	acc     []float64
	touched []int32
	used    bool
}

// windows calls fn with every window of length bins (in half seconds),
// stepping by half its length (a half second at least), that holds busy
// samples; tiled says the window is one of the tiling that starts at bin
// 0 (every step-th). bins calls give the half seconds.
func (x *keyIndex) windows(length int, fn func(j int64, tiled bool, n float64, keys []int32, vals []float64)) {
	step := int64(max(length/2, 1))
	l := int64(length)
	r := int((l + step - 1) / step)
	slots := make([]win, r)
	for i := range slots {
		slots[i].acc = make([]float64, x.nkeys)
	}
	var vals []float64
	emit := func(w *win) {
		if w.used && w.n > 0 {
			vals = vals[:0]
			for _, k := range w.touched {
				vals = append(vals, w.acc[k])
			}
			fn(w.j, w.j%int64(r) == 0, w.n, w.touched, vals)
		}
		for _, k := range w.touched {
			w.acc[k] = 0
		}
		w.touched, w.n, w.used = w.touched[:0], 0, false
	}
	x.bins(func(b int64, n float64, keys []int32, bv []float64) {
		// Windows j with j*step <= b < j*step + l.
		lo := ceilDiv(b-l+1, step)
		hi := floorDiv(b, step)
		for j := lo; j <= hi; j++ {
			w := &slots[mod(j, int64(r))]
			if !w.used || w.j != j {
				emit(w)
				w.j, w.used = j, true
			}
			w.n += n
			for i, k := range keys {
				if w.acc[k] == 0 {
					w.touched = append(w.touched, k)
				}
				w.acc[k] += bv[i]
			}
		}
	})
	// The rest, in time order.
	slices.SortFunc(slots, func(a, b win) int { return cmp.Compare(a.j, b.j) })
	for i := range slots {
		emit(&slots[i])
	}
}

func ceilDiv(a, b int64) int64 { return -floorDiv(-a, b) }

func mod(a, m int64) int64 {
	v := a % m
	if v < 0 {
		v += m
	}
	return v
}

// keyStats are a key's sums over the tiled windows of one length, less
// its heaviest ones (trim).
type keyStats struct {
	sx, sxx, sxn float64
	top          topWindows
}

// topWindows is a min-heap of a key's heaviest windows (x, n).
type topWindows [][2]float64

func (h topWindows) Len() int           { return len(h) }
func (h topWindows) Less(i, j int) bool { return h[i][0] < h[j][0] }
func (h topWindows) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *topWindows) Push(v any)        { *h = append(*h, v.([2]float64)) }
func (h *topWindows) Pop() any {
	old := *h
	v := old[len(old)-1]
	*h = old[:len(old)-1]
	return v
}

// trimSeconds is the time of a key's heaviest windows left out of its
// baseline: a burst as long as the longest window, and a second more
// (a burst need not start on a tile). More would leave out the usual
// swings of a key that comes and goes in a short capture.
const trimSeconds = 6

// baseline is a key's baseline at one window length: its typical share p
// and the dispersion phi of its counts (1: binomial).
type baseline struct {
	p, phi float64
	ok     bool
}

// lengthBaselines computes, for windows of length bins, every key's
// baseline from the tiled windows, and returns how many windows there are
// (tiled or not).
func (x *keyIndex) lengthBaselines(length int) ([]baseline, int) {
	trim := trimSeconds*2/length + 1
	stats := make(map[int32]*keyStats)
	var n1, n2 float64
	tiled, all := 0, 0
	x.windows(length, func(j int64, isTiled bool, n float64, keys []int32, vals []float64) {
		all++
		if !isTiled {
			return
		}
		tiled++
		n1 += n
		n2 += n * n
		for i, k := range keys {
			v := vals[i]
			st := stats[k]
			if st == nil {
				st = &keyStats{}
				stats[k] = st
			}
			st.sx += v
			st.sxx += v * v
			st.sxn += v * n
			if len(st.top) < trim {
				heap.Push(&st.top, [2]float64{v, n})
			} else if v > st.top[0][0] {
				st.top[0] = [2]float64{v, n}
				heap.Fix(&st.top, 0)
			}
		}
	})
	out := make([]baseline, x.nkeys)
	for k, st := range stats {
		sx, sxx, sxn, rn1, rn2 := st.sx, st.sxx, st.sxn, n1, n2
		for _, t := range st.top {
			sx -= t[0]
			sxx -= t[0] * t[0]
			sxn -= t[0] * t[1]
			rn1 -= t[1]
			rn2 -= t[1] * t[1]
		}
		if tiled-len(st.top) < 4 || rn1 <= 0 {
			continue // too little left to say what is typical
		}
		p := max(sx, 0.5*x.unit) / rn1
		p = min(p, 1-1e-9)
		num := sxx - 2*p*sxn + p*p*rn2
		den := p * (1 - p) * rn1 * x.unit
		phi := 1.0
		if den > 0 && num/den > 1 {
			phi = num / den
		}
		out[k] = baseline{p: p, phi: phi, ok: true}
	}
	return out, all
}

// kl is the Kullback-Leibler divergence of Bernoulli(q) from
// Bernoulli(p).
func kl(q, p float64) float64 {
	d := 0.0
	if q > 0 {
		d += q * math.Log(q/p)
	}
	if q < 1 {
		d += (1 - q) * math.Log((1-q)/(1-p))
	}
	return max(d, 0)
}

// logQ returns the log of the upper tail of the standard normal at z.
func logQ(z float64) float64 {
	if z < 5 {
		return math.Log(0.5 * math.Erfc(z/math.Sqrt2))
	}
	// Asymptotic series (Abramowitz and Stegun 26.2.12), good to 1e-4 at 5.
	z2 := z * z
	return -z2/2 - math.Log(z*math.Sqrt(2*math.Pi)) + math.Log(1-1/z2+3/(z2*z2))
}

// zOfLogQ returns the z whose upper normal tail is e^lq (0 for lq >= log
// 0.5).
func zOfLogQ(lq float64) float64 {
	if lq >= math.Log(0.5) {
		return 0
	}
	z := math.Sqrt(-2 * lq)
	for range 30 {
		f := logQ(z) - lq
		// d/dz log Q(z) = -φ(z)/Q(z), about -z for large z.
		d := -math.Exp(-z*z/2-0.5*math.Log(2*math.Pi)) / math.Exp(logQ(z))
		if d == 0 || math.IsNaN(d) || math.IsInf(d, 0) {
			d = -z
		}
		step := f / d
		z -= step
		if z < 0 {
			z = 0
		}
		if math.Abs(step) < 1e-9 {
			break
		}
	}
	return z
}

// corrected returns the z-score of a raw signed-root z after a Bonferroni
// correction over tests tests.
func corrected(raw, tests float64) float64 {
	if raw <= 0 {
		return 0
	}
	return zOfLogQ(logQ(raw) + math.Log(max(tests, 1)))
}

// hit is a (key, window) pair that scored at low or more.
type hit struct {
	key      int32
	from, to int64 // half seconds from the origin, [from, to)
	z        float64
}

// shareBursts finds the windows where a key's share stands out and
// returns them as bursts, in time order.
func (s *Series) shareBursts(m Measure, res *Result, low float64) []Burst {
	tl := s.full
	if tl == nil || tl.Seconds != 1 || tl.Rows%2 != 0 {
		return nil
	}
	x := newKeyIndex(tl, s.keep, m)
	x.unit = 1
	if m == Weight && s.samples > 0 {
		x.unit = s.weight / float64(s.samples)
	}
	// Pass 1: every key's baseline at every length.
	base := make([][]baseline, len(WindowLengths))
	windows := 0
	for i, l := range WindowLengths {
		var n int
		base[i], n = x.lengthBaselines(l)
		windows += n
	}
	active := 0
	for k := range base[0] {
		for i := range base {
			if base[i][k].ok {
				active++
				break
			}
		}
	}
	kb := &res.Keys
	kb.Keys, kb.Windows = active, windows
	kb.Tests = float64(active) * float64(windows)
	if active == 0 {
		return nil
	}
	// Pass 2: every window's keys against their baselines.
	var hits []hit
	for i, l := range WindowLengths {
		step := int64(max(l/2, 1))
		bl := base[i]
		x.windows(l, func(j int64, _ bool, n float64, keys []int32, vals []float64) {
			neff := n / x.unit
			for ki, k := range keys {
				b := &bl[k]
				if !b.ok {
					continue
				}
				q := vals[ki] / n
				if q <= b.p || (vals[ki]-b.p*n)/x.unit < MinExcess {
					continue
				}
				raw := math.Sqrt(2 * neff * kl(q, b.p) / b.phi)
				z := corrected(raw, kb.Tests)
				if z < low {
					continue
				}
				kb.Top = max(kb.Top, z)
				if z >= res.Threshold {
					kb.Hot++
				}
				hits = append(hits, hit{key: k, from: j * step, to: j*step + int64(l), z: z})
			}
		})
	}
	return s.shareRuns(x, hits, base[0], res.Threshold)
}

// shareRuns makes bursts of the hits: per key, runs of overlapping or
// touching windows that hold a hot one; then runs of different keys that
// overlap are one burst, naming its keys best first.
func (s *Series) shareRuns(x *keyIndex, hits []hit, typical []baseline, threshold float64) []Burst {
	slices.SortFunc(hits, func(a, b hit) int {
		if c := cmp.Compare(a.key, b.key); c != 0 {
			return c
		}
		return cmp.Compare(a.from, b.from)
	})
	type run struct {
		key      int32
		from, to int64
		z        float64
	}
	var runs []run
	for i := 0; i < len(hits); {
		r := run{key: hits[i].key, from: hits[i].from, to: hits[i].to, z: hits[i].z}
		hot := r.z >= threshold
		j := i + 1
		for ; j < len(hits) && hits[j].key == r.key && hits[j].from <= r.to; j++ {
			r.to = max(r.to, hits[j].to)
			r.z = max(r.z, hits[j].z)
			hot = hot || hits[j].z >= threshold
		}
		i = j
		if hot {
			runs = append(runs, r)
		}
	}
	// Runs of the same time, best first, make one burst.
	slices.SortFunc(runs, func(a, b run) int {
		if c := cmp.Compare(a.from, b.from); c != 0 {
			return c
		}
		return cmp.Compare(a.key, b.key)
	})
	var out []Burst
	for i := 0; i < len(runs); {
		j := i + 1
		to := runs[i].to
		for ; j < len(runs) && runs[j].from < to; j++ {
			to = max(to, runs[j].to)
		}
		group := slices.Clone(runs[i:j])
		i = j
		slices.SortFunc(group, func(a, b run) int {
			if c := cmp.Compare(b.z, a.z); c != 0 {
				return c
			}
			return cmp.Compare(a.key, b.key)
		})
		// What rose: the best key, but a process, else a thread, that
		// scores nearly as well names it better (its functions rose with
		// it).
		lead := 0
		for _, want := range []KeyKind{KeyProcess, KeyThread} {
			g := slices.IndexFunc(group, func(r run) bool {
				k, _, _, _ := x.name(r.key)
				return k == want && r.z >= 0.9*group[0].z
			})
			if g >= 0 {
				lead = g
				break
			}
		}
		group[0], group[lead] = group[lead], group[0]
		b := s.keyWindow(x, group[0].key, group[0].from, group[0].to, typical[group[0].key].p)
		b.Kind = KeyShare
		b.ShareScore = group[0].z
		for g := 0; g < len(group) && len(b.Rises) < maxRises; g++ {
			r := s.rise(x, group[g].key, b.From, b.To, typical[group[g].key].p)
			r.Score = group[g].z
			b.Rises = append(b.Rises, r)
			b.ShareScore = max(b.ShareScore, r.Score)
		}
		b.Score = b.ShareScore
		b.Peak = b.ShareScore
		out = append(out, b)
	}
	return out
}

// keyWindow places the burst of key k found in half seconds [from, to):
// to the 100 ms bins where the key's share is at least half-way from its
// typical share p to its share of the run, and one bin more either side.
func (s *Series) keyWindow(x *keyIndex, k int32, from, to int64, p float64) Burst {
	tl := x.tl
	per := int64(tl.Rows / s.bins) // cells per bin
	bins := int64(s.bins)
	// The bins of [from - 0.5 s, to + 0.5 s): the key's and all.
	lo, hi := (from-1)*bins/2, (to+1)*bins/2
	kv := make([]float64, hi-lo)
	nv := make([]float64, hi-lo)
	i, j := tl.Range(lo*per, hi*per)
	for e := i; e < j; e++ {
		en := &tl.Entries[e]
		if en.Stack == timeline.Root || x.keep != nil && !x.keep(en) {
			continue
		}
		b := floorDiv(int64(en.Cell), per) - lo
		v := x.value(e)
		nv[b] += v
		if x.has(en, k) {
			kv[b] += v
		}
	}
	var rk, rn float64
	for b := (from - lo*2/bins) * bins / 2; b < (to-lo*2/bins)*bins/2 && b < int64(len(kv)); b++ {
		rk += kv[b]
		rn += nv[b]
	}
	mid := p
	if rn > 0 {
		mid = (p + rk/rn) / 2
	}
	hot := func(b int64) bool { return nv[b] > 0 && kv[b] >= 2*x.unit && kv[b] >= mid*nv[b] }
	first, last := int64(-1), int64(-1)
	for b := int64(0); b < int64(len(kv)); b++ {
		if hot(b) {
			if first < 0 {
				first = b
			}
			last = b
		}
	}
	start, end := from*bins/2, to*bins/2
	if first >= 0 {
		start, end = lo+first, lo+last+1
	}
	start, end = max(start-1, s.c.Lo()*bins), min(end+1, (s.c.Hi()+1)*bins)
	return s.window(x.m, start, end)
}

// rise measures key k in the window [from, to).
func (s *Series) rise(x *keyIndex, k int32, from, to folded.Time, p float64) Rise {
	kind, name, pid, tid := x.name(k)
	r := Rise{Kind: kind, Name: name, PID: pid, TID: tid, Typical: p}
	tl := x.tl
	i, j := tl.Range(tl.CellOf(from), tl.CellOf(to))
	var kv, nv float64
	for e := i; e < j; e++ {
		en := &tl.Entries[e]
		if en.Stack == timeline.Root || x.keep != nil && !x.keep(en) {
			continue
		}
		v := x.value(e)
		nv += v
		if x.has(en, k) {
			kv += v
		}
	}
	if nv > 0 {
		r.Share = kv / nv
	}
	return r
}
