package bursts

import (
	"cmp"
	"slices"
	"strings"

	"flamekit/pkg/folded"
	"flamekit/pkg/timeline"
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

// TallyOf returns the tally of the windows of bursts, by measure m, read
// from the entries of a timeline that keeps whole stacks (whatever its
// other keys), of the entries keep accepts (nil: all; a timeline that
// holds idle samples leaves them out so): a caller that builds such a
// timeline anyway (the explorer page's) needs no second reading of its
// input. ok is false when the timeline keeps processes only
// (timeline.MergeFrames) or a window does not start and end on its cells
// (a timeline of 50 or 100 cells a second holds the bursts' 100 ms
// windows exactly). Entries without a stack (Root) are left out.
func TallyOf(tl *timeline.Timeline, bursts []Burst, m Measure, keep func(*timeline.Entry) bool) (t *Tally, ok bool) {
	if tl.Merged()&timeline.MergeFrames != 0 {
		return nil, false
	}
	return tallyOf(tl, bursts, m, keep)
}

// Tally returns the tally of the windows of bursts (found in s), by
// measure m, read from the series' own timeline: per stack for a
// NewSeries, per process for a NewProcessSeries (whose Top names
// processes, as ByProcess would). ok is false for a series whose bins do
// not hold the windows exactly (see TallyOf).
func (s *Series) Tally(bursts []Burst, m Measure) (t *Tally, ok bool) {
	s.read()
	return tallyOf(s.full, bursts, m, s.keep)
}

func tallyOf(tl *timeline.Timeline, bursts []Burst, m Measure, keep func(*timeline.Entry) bool) (t *Tally, ok bool) {
	for _, b := range bursts {
		if tl.Seconds != 1 || tl.CellStart(tl.CellOf(b.From)) != b.From || tl.CellStart(tl.CellOf(b.To)) != b.To {
			return nil, false
		}
	}
	t = NewTally(bursts, m)
	names := make(map[timeline.StackID]string)
	for w := range t.wins {
		win := &t.wins[w]
		i, j := tl.Range(tl.CellOf(win.from), tl.CellOf(win.to))
		for k := i; k < j; k++ {
			e := &tl.Entries[k]
			if e.Stack == timeline.Root || keep != nil && !keep(e) {
				continue
			}
			v := float64(e.Samples)
			if m == Weight {
				v = tl.WeightOf(k)
			}
			name, ok := names[e.Stack]
			if !ok {
				name = tl.Stack(e.Stack)
				names[e.Stack] = name
			}
			win.stacks[name] += v
			win.total += v
		}
	}
	return t, true
}
