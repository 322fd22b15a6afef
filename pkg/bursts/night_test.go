package bursts

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"flamekit/internal/night"
	"flamekit/pkg/folded"
	"flamekit/pkg/idle"
)

// A night made of a real capture, fed to a series once per test binary:
// the samples come from night.Each, in memory (the files and their
// reading are the timeslice command's tests).
type scanned struct {
	s   *Series
	n   *night.Night
	err error
}

var nights struct {
	sync.Mutex
	m map[string]*scanned
}

// scanNight returns the series of the night o describes, its busy samples
// added with their stacks, its idle ones covering their seconds.
func scanNight(t *testing.T, o night.Options) (*Series, *night.Night) {
	t.Helper()
	key := fmt.Sprintf("%s %v %v", o.Capture.File, o.Length, o.NoBurst)
	nights.Lock()
	defer nights.Unlock()
	sc, ok := nights.m[key]
	if !ok {
		sc = &scanned{}
		var f idle.Filter
		sc.n, sc.err = night.Each(o, func(stack []byte, count float64, tm folded.Time) error {
			if sc.s == nil {
				sc.s = NewSeries(tm, 0)
			}
			if f.Is(stack) {
				sc.s.Cover(tm)
			} else {
				sc.s.AddStack(tm, count, stack)
			}
			return nil
		})
		if nights.m == nil {
			nights.m = make(map[string]*scanned)
		}
		nights.m[key] = sc
	}
	if sc.err != nil {
		t.Fatal(sc.err)
	}
	return sc.s, sc.n
}

// tally counts the busy samples of the night in the windows of bursts.
func tally(t *testing.T, o night.Options, bursts []Burst, m Measure) *Tally {
	t.Helper()
	ta := NewTally(bursts, m)
	var f idle.Filter
	rec := folded.Record{Kind: folded.Timed}
	if _, err := night.Each(o, func(stack []byte, count float64, tm folded.Time) error {
		if !f.Is(stack) {
			rec.Stack, rec.Count, rec.Time = stack, count, tm
			ta.Add(&rec)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return ta
}

func describe(res *Result, n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "rate: median %.1f/s, scale %.2f/s, %d hot seconds; composition: median %.3f, MAD %.3f, scale %.3f, %d hot of %d seconds, %d processes",
		res.Median, res.Scale, res.Hot, res.Comp.Median, res.Comp.MAD, res.Comp.Scale, res.Comp.Hot, res.Comp.Seconds, res.Comp.Processes)
	for i, b2 := range res.Bursts[:min(n, len(res.Bursts))] {
		fmt.Fprintf(&b, "\n  %d %v %v to %v: score %.1f (rate z %.1f, %.0f/s; composition z %.1f, d %.3f, %s %.1f%% typically %.2f%%)",
			i+1, b2.Kind, b2.From, b2.To, b2.Score, b2.RateScore, b2.Rate, b2.CompScore, b2.Divergence, b2.Process, 100*b2.Share, 100*b2.Typical)
	}
	return b.String()
}

// TestNight: on twelve hours of a real capture of a mostly idle machine
// repeated, its own burst kept in one copy only, the planted burst is the
// first one found, and its top stack is the burst's.
func TestNight(t *testing.T) {
	o := night.Options{Capture: night.Idle, Length: 12 * time.Hour}
	s, n := scanNight(t, o)
	res := s.Find(Options{})
	if len(res.Bursts) == 0 {
		t.Fatal("no burst")
	}
	b := res.Bursts[0]
	t.Logf("%d busy samples, %d seconds; planted %v to %v; %s", s.Samples(), res.Seconds, n.BurstFrom, n.BurstTo, describe(&res, 3))
	if b.From > n.BurstFrom || b.To <= n.BurstTo || b.To-b.From > folded.Time(2600*time.Millisecond) {
		t.Errorf("first burst %v to %v, the planted one %v to %v", b.From, b.To, n.BurstFrom, n.BurstTo)
	}
	if b.Kind&Rate == 0 {
		t.Errorf("the planted burst is a burst of %v, want rate", b.Kind)
	}
	if len(res.Bursts) > 1 && res.Bursts[1].Score > b.Score*0.8 {
		t.Errorf("the second burst scores %.1f, close to the planted one's %.1f", res.Bursts[1].Score, b.Score)
	}
	// The top stacks, from a second look at the window.
	ta := tally(t, o, res.Bursts[:1], res.Measure)
	exact := ta.Top(0, 3)
	t.Logf("top stack: %.3f %s", exact[0].Share, exact[0].Stack)
	if !strings.HasPrefix(exact[0].Stack, night.BurstComm+";") {
		t.Errorf("top stack %q, want the burst's", exact[0].Stack)
	}
	var burstShare float64
	for _, sh := range ta.Top(0, 1000) {
		if strings.HasPrefix(sh.Stack, night.BurstComm+";") {
			burstShare += sh.Share
		}
	}
	if burstShare < 0.9 {
		t.Errorf("the burst's stacks are %.2f of the window", burstShare)
	}
}

// TestSaturatedNight: on twelve hours of a real capture of a machine whose
// CPUs are all busy, repeated, with a burst of a new process kept in one
// copy only, the busy rate never moves, and the planted burst comes first,
// a burst of composition naming its process.
func TestSaturatedNight(t *testing.T) {
	o := night.Options{Capture: night.Saturated, Length: 12 * time.Hour}
	s, n := scanNight(t, o)
	res := s.Find(Options{})
	t.Logf("%d busy samples, %d seconds; planted %v to %v; %s", s.Samples(), res.Seconds, n.BurstFrom, n.BurstTo, describe(&res, 3))
	if len(res.Bursts) == 0 {
		t.Fatal("no burst")
	}
}

// TestNightNoBurst logs what a night without its burst finds.
func TestNightNoBurst(t *testing.T) {
	for _, c := range []*night.Source{night.Idle, night.Saturated} {
		s, _ := scanNight(t, night.Options{Capture: c, Length: 12 * time.Hour, NoBurst: true})
		res := s.Find(Options{Max: -1})
		t.Logf("%s: %d bursts; %s", c.File, len(res.Bursts), describe(&res, 5))
		for _, floor := range []float64{1e-9, 0.005, 0.01, 0.02} {
			r := s.Find(Options{Max: -1, CompScale: floor})
			t.Logf("floor %g: scale %.4f, top composition z %.1f (divergence %.3f), %d composition hot seconds", floor, r.Comp.Scale, r.Comp.Top, r.Comp.TopDivergence, r.Comp.Hot)
		}
	}
}
