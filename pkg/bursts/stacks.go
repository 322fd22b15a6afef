package bursts

import (
	"cmp"
	"hash/maphash"
	"slices"
	"strings"

	"flamekit/pkg/folded"
)

// Share is a stack's part of a window.
type Share struct {
	Stack string
	// Value is the stack's samples or weight (by the measure) in the
	// window, Share its fraction of the window's total.
	Value, Share float64
}

// Tally sums the busy samples of some windows per stack, exactly: a
// caller that can read its input again gives it just the samples of the
// windows (timeslice reads only those windows of its inputs). Memory is
// one entry per distinct stack of the windows.
type Tally struct {
	measure Measure
	wins    []tallyWindow
}

type tallyWindow struct {
	from, to folded.Time
	stacks   map[string]float64
	total    float64
}

// NewTally returns a tally of the windows of bursts, by measure m
// (Samples or Weight; Auto counts samples).
func NewTally(bursts []Burst, m Measure) *Tally {
	t := &Tally{measure: m}
	for _, b := range bursts {
		t.wins = append(t.wins, tallyWindow{from: b.From, to: b.To, stacks: make(map[string]float64)})
	}
	return t
}

// Add adds a busy timed sample to the windows that hold its time.
func (t *Tally) Add(rec *folded.Record) {
	v := 1.0
	if t.measure == Weight {
		v = rec.Count
	}
	for i := range t.wins {
		w := &t.wins[i]
		if rec.Time >= w.from && rec.Time < w.to {
			w.stacks[string(rec.Stack)] += v
			w.total += v
		}
	}
}

// Top returns the n heaviest stacks of window i (the i-th burst), heaviest
// first (n < 0: all of them).
func (t *Tally) Top(i, n int) []Share {
	w := &t.wins[i]
	shares := make([]Share, 0, len(w.stacks))
	for s, v := range w.stacks {
		shares = append(shares, Share{Stack: s, Value: v, Share: v / w.total})
	}
	return top(shares, n)
}

// ByProcess sums shares by their stacks' root frame (the process, as
// stackcollapse names it) and returns the n heaviest, heaviest first.
func ByProcess(shares []Share, n int) []Share {
	idx := make(map[string]int)
	var out []Share
	for _, sh := range shares {
		root, _, _ := strings.Cut(sh.Stack, ";")
		i, ok := idx[root]
		if !ok {
			i = len(out)
			idx[root] = i
			out = append(out, Share{Stack: root})
		}
		out[i].Value += sh.Value
		out[i].Share += sh.Share
	}
	return top(out, n)
}

func top(shares []Share, n int) []Share {
	slices.SortFunc(shares, func(a, b Share) int {
		if c := cmp.Compare(b.Value, a.Value); c != 0 {
			return c
		}
		return cmp.Compare(a.Stack, b.Stack)
	})
	if n >= 0 && len(shares) > n {
		shares = shares[:n]
	}
	return shares
}

// Sketch keeps, in one pass, the heaviest stacks of every second, for
// input that can be read only once (standard input): each second has K
// slots filled by the Space-Saving algorithm (a new stack takes the
// lightest slot's place and inherits its count), so that any stack with
// more than 1/K of a second's samples is in it, counted at most the
// lightest slot's count too high. A slot holds a 64-bit hash of the stack;
// the stack's text is kept once, for as long as a slot holds it. Memory
// is bounded by the seconds that hold busy samples (K slots each, and at
// most K texts each), never by the number of samples.
type Sketch struct {
	origin  folded.Time
	k       int
	measure Measure
	seed    maphash.Seed
	slot    map[int64]int32 // second -> its index
	slots   []sketchSlot    // k per second
	totals  []float64       // per second: samples, weight
	texts   map[uint64]*stackText
	cur     int32
	curSec  int64
}

type sketchSlot struct {
	h    uint64 // 0: empty
	n, w float64
}

type stackText struct {
	s    string
	refs int32
}

// DefaultK is the number of stacks a Sketch keeps per second.
const DefaultK = 8

// NewSketch returns an empty sketch of seconds counted from origin,
// keeping k stacks a second (DefaultK when k < 1), ranked by measure m
// (Auto ranks by samples).
func NewSketch(origin folded.Time, k int, m Measure) *Sketch {
	if k < 1 {
		k = DefaultK
	}
	return &Sketch{origin: origin, k: k, measure: m, seed: maphash.MakeSeed(),
		slot: make(map[int64]int32), texts: make(map[uint64]*stackText), cur: -1}
}

// Add adds a busy timed sample.
func (s *Sketch) Add(rec *folded.Record) {
	r := int64(rec.Time - s.origin)
	sec := r / second
	if r%second != 0 && r < 0 {
		sec--
	}
	if s.cur < 0 || sec != s.curSec {
		i, ok := s.slot[sec]
		if !ok {
			i = int32(len(s.slot))
			s.slot[sec] = i
			s.slots = append(s.slots, make([]sketchSlot, s.k)...)
			s.totals = append(s.totals, 0, 0)
		}
		s.cur, s.curSec = i, sec
	}
	s.totals[2*s.cur]++
	s.totals[2*s.cur+1] += rec.Count
	h := maphash.Bytes(s.seed, rec.Stack) | 1
	slots := s.slots[int(s.cur)*s.k : int(s.cur+1)*s.k]
	lightest := 0
	for j := range slots {
		sl := &slots[j]
		if sl.h == h {
			sl.n++
			sl.w += rec.Count
			return
		}
		if sl.h == 0 {
			*sl = sketchSlot{h: h, n: 1, w: rec.Count}
			s.hold(h, rec.Stack)
			return
		}
		if s.rank(sl) < s.rank(&slots[lightest]) {
			lightest = j
		}
	}
	sl := &slots[lightest]
	s.release(sl.h)
	*sl = sketchSlot{h: h, n: sl.n + 1, w: sl.w + rec.Count}
	s.hold(h, rec.Stack)
}

func (s *Sketch) rank(sl *sketchSlot) float64 {
	if s.measure == Weight {
		return sl.w
	}
	return sl.n
}

func (s *Sketch) hold(h uint64, stack []byte) {
	if t, ok := s.texts[h]; ok {
		t.refs++
		return
	}
	s.texts[h] = &stackText{s: string(stack), refs: 1}
}

func (s *Sketch) release(h uint64) {
	if t := s.texts[h]; t != nil {
		if t.refs--; t.refs <= 0 {
			delete(s.texts, h)
		}
	}
}

// Stacks returns the number of stack texts the sketch holds.
func (s *Sketch) Stacks() int { return len(s.texts) }

// Top returns the n heaviest stacks (n < 0: all it holds) of the whole
// seconds that overlap [from, to), by measure m (Samples or Weight),
// heaviest first; shares
// are of those seconds' exact totals, values at most the lightest slot's
// count too high.
func (s *Sketch) Top(from, to folded.Time, n int, m Measure) []Share {
	lo := floorDiv(int64(from-s.origin), second)
	hi := floorDiv(int64(to-s.origin)-1, second)
	sum := make(map[uint64]float64)
	var total float64
	for sec := lo; sec <= hi; sec++ {
		i, ok := s.slot[sec]
		if !ok {
			continue
		}
		if m == Weight {
			total += s.totals[2*i+1]
		} else {
			total += s.totals[2*i]
		}
		for _, sl := range s.slots[int(i)*s.k : int(i+1)*s.k] {
			if sl.h == 0 {
				continue
			}
			if m == Weight {
				sum[sl.h] += sl.w
			} else {
				sum[sl.h] += sl.n
			}
		}
	}
	shares := make([]Share, 0, len(sum))
	for h, v := range sum {
		shares = append(shares, Share{Stack: s.texts[h].s, Value: v, Share: v / total})
	}
	return top(shares, n)
}
