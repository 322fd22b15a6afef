package bursts

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"flamekit/pkg/folded"
	"flamekit/pkg/timeline"
)

// The stacks of the bursts' windows read from a timeline that keeps them
// (any timeline of 100 ms-aligned cells) are the stacks a second reading
// of the samples tallies; on cells the windows do not fall on, the tally
// says so. A series tallies its own timeline: stacks, or processes for a
// series of processes.
func TestTallyFromTimeline(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	type smp struct {
		tm    folded.Time
		w     float64
		stack string
	}
	var samples []smp
	for i := 0; i < 20000; i++ {
		tm := rng.Float64() * 200
		stack := fmt.Sprintf("p%d;f%d;g%d", rng.IntN(4), rng.IntN(5), rng.IntN(30))
		if tm >= 120 && tm < 122 {
			stack = fmt.Sprintf("spike;s%d", rng.IntN(3))
		}
		samples = append(samples, smp{at(tm), float64(1 + rng.IntN(3)), stack})
	}
	for i := 0; i < 3000; i++ { // the burst
		samples = append(samples, smp{at(120 + rng.Float64()*2), 1, fmt.Sprintf("spike;s%d", rng.IntN(3))})
	}
	plain := NewSeries(origin, 0)
	procs := NewProcessSeries(origin, 0)
	b50 := timeline.NewBuilder(timeline.Options{Rows: 50, Origin: origin, HasOrigin: true})
	b7 := timeline.NewBuilder(timeline.Options{Rows: 7, Origin: origin, HasOrigin: true})
	rec := folded.Record{Kind: folded.Timed}
	for _, s := range samples {
		plain.AddStack(s.tm, s.w, []byte(s.stack))
		procs.AddStack(s.tm, s.w, []byte(s.stack))
		rec.Time, rec.Count, rec.Stack = s.tm, s.w, []byte(s.stack)
		b50.Add(&rec)
		b7.Add(&rec)
	}
	for _, m := range []Measure{Samples, Weight} {
		res := plain.Find(Options{Measure: m})
		if len(res.Bursts) == 0 {
			t.Fatalf("%v: no burst", m)
		}
		want := NewTally(res.Bursts, m)
		for _, s := range samples {
			rec.Time, rec.Count, rec.Stack = s.tm, s.w, []byte(s.stack)
			want.Add(&rec)
		}
		tl50, tl7 := b50.Snapshot(), b7.Snapshot()
		got50, ok50 := TallyOf(tl50, res.Bursts, m, nil)
		if !ok50 {
			t.Fatalf("%v: no tally from the 50-row timeline", m)
		}
		for i := range res.Bursts {
			w := want.Top(i, -1)
			if g := got50.Top(i, -1); !reflect.DeepEqual(g, w) {
				t.Errorf("%v: burst %d: 50-row timeline's stacks %v, want %v", m, i, g[:min(3, len(g))], w[:min(3, len(w))])
			}
		}
		// The series' own: its stacks, or its processes.
		own, ok := plain.Tally(res.Bursts, m)
		ownProcs, okProcs := procs.Tally(res.Bursts, m)
		if !ok || !okProcs {
			t.Fatalf("%v: no tally from the series' timelines", m)
		}
		for i := range res.Bursts {
			w := want.Top(i, -1)
			if g := own.Top(i, -1); !reflect.DeepEqual(g, w) {
				t.Errorf("%v: burst %d: the series' stacks %v, want %v", m, i, g[:min(3, len(g))], w[:min(3, len(w))])
			}
			if g, w := ownProcs.Top(i, -1), ByProcess(w, -1); !sameShares(g, w) {
				t.Errorf("%v: burst %d: the process series' processes %v, want %v", m, i, g, w)
			}
		}
		if _, ok := TallyOf(tl7, res.Bursts, m, nil); ok {
			t.Errorf("%v: 7 cells a second hold 100 ms windows", m)
		}
	}
}

// sameShares says whether a and b name the same stacks with the same
// values, in the same order, and shares equal but for rounding (ByProcess
// sums its stacks' shares).
func sameShares(a, b []Share) bool {
	return slices.EqualFunc(a, b, func(x, y Share) bool {
		return x.Stack == y.Stack && x.Value == y.Value && math.Abs(x.Share-y.Share) < 1e-12
	})
}
