package bursts

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"flamekit/internal/testkit/night"
	"flamekit/pkg/filter/idle"
	"flamekit/pkg/folded"
)

// The nights of these tests are made of a real 30-second capture repeated
// (package night) and handed to the series from memory (night.Each): the
// files and their reading are the timeslice command's tests. A night is
// scanned once per test binary.
type scanned struct {
	s   *Series
	n   *night.Night
	err error
}

var nights struct {
	sync.Mutex
	m map[string]*scanned
}

// idleStacks tells idle stacks, remembering the answer per stack: a night
// hands on the same few thousand stacks (the capture's) millions of times.
type idleStacks struct {
	f    idle.Filter
	memo map[*byte]bool
}

func (is *idleStacks) Is(stack []byte) bool {
	if len(stack) == 0 {
		return is.f.Is(stack)
	}
	v, ok := is.memo[&stack[0]]
	if !ok {
		if is.memo == nil {
			is.memo = make(map[*byte]bool)
		}
		v = is.f.Is(stack)
		is.memo[&stack[0]] = v
	}
	return v
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
		var is idleStacks
		sc.n, sc.err = night.Each(o, func(stack []byte, count float64, tm folded.Time) error {
			if sc.s == nil {
				sc.s = NewSeries(tm, 0)
			}
			if is.Is(stack) {
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

// tally counts the busy samples of the night in the window of burst b.
func tally(t *testing.T, o night.Options, b Burst, m Measure) *Tally {
	t.Helper()
	ta := NewTally([]Burst{b}, m)
	var is idleStacks
	rec := folded.Record{Kind: folded.Timed}
	if _, err := night.EachIn(o, b.From, b.To, func(stack []byte, count float64, tm folded.Time) error {
		if !is.Is(stack) {
			rec.Stack, rec.Count, rec.Time = stack, count, tm
			ta.Add(&rec)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return ta
}

// share is the part of the window's samples whose process is comm.
func share(ta *Tally, comm string) float64 {
	var v float64
	for _, sh := range ta.Top(0, -1) {
		if strings.HasPrefix(sh.Stack, comm+";") {
			v += sh.Share
		}
	}
	return v
}

func describe(res *Result, n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "rate: median %.1f/s, scale %.2f/s, %d hot seconds; composition: median %.3f, MAD %.4f, scale %.3f, %d hot of %d seconds, %d processes, top z %.1f",
		res.Median, res.Scale, res.Hot, res.Comp.Median, res.Comp.MAD, res.Comp.Scale, res.Comp.Hot, res.Comp.Seconds, res.Comp.Processes, res.Comp.Top)
	for i, b2 := range res.Bursts[:min(n, len(res.Bursts))] {
		fmt.Fprintf(&b, "\n  %d %v %v to %v: score %.1f (rate z %.1f, %.0f/s; composition z %.1f, divergence %.3f, %s %.1f%%, typically %.3f%%)",
			i+1, b2.Kind, b2.From, b2.To, b2.Score, b2.RateScore, b2.Rate, b2.CompScore, b2.Divergence, b2.Process, 100*b2.Share, 100*b2.Typical)
	}
	return b.String()
}

// TestNight: on twelve hours of a real capture of a mostly idle machine
// repeated, its burst kept in one copy only, the planted burst is the
// first one found, a burst of rate, and its top stack is the burst's.
func TestNight(t *testing.T) {
	o := night.Options{Capture: night.Idle, Length: 12 * time.Hour}
	s, n := scanNight(t, o)
	res := s.Find(Options{})
	if len(res.Bursts) == 0 {
		t.Fatal("no burst")
	}
	b := res.Bursts[0]
	t.Logf("%d busy samples, %d seconds; planted %v to %v; %s", s.Samples(), res.Seconds, n.BurstFrom, n.BurstTo, describe(&res, 3))
	if b.From > n.BurstFrom || b.To <= n.BurstTo || b.To-b.From > folded.Time(2400*time.Millisecond) {
		t.Errorf("first burst %v to %v, the planted one %v to %v", b.From, b.To, n.BurstFrom, n.BurstTo)
	}
	// A mostly idle host's seconds hold a few samples each: composition
	// says little there (the planted burst scores about 6 by it).
	if b.Kind&Rate == 0 || b.Kind&Composition != 0 && (b.Process != night.BurstComm || b.Share < 0.9) {
		t.Errorf("the planted burst is a burst of %v standing out by %q (%.2f), want rate (and composition by %s)", b.Kind, b.Process, b.Share, night.BurstComm)
	}
	if len(res.Bursts) > 1 && res.Bursts[1].Score > b.Score*0.8 {
		t.Errorf("the second burst scores %.1f, close to the planted one's %.1f", res.Bursts[1].Score, b.Score)
	}
	// The top stacks, from a second look at the window.
	ta := tally(t, o, b, res.Measure)
	exact := ta.Top(0, 3)
	t.Logf("top stack: %.3f %s", exact[0].Share, exact[0].Stack)
	if !strings.HasPrefix(exact[0].Stack, night.BurstComm+";") {
		t.Errorf("top stack %q, want the burst's", exact[0].Stack)
	}
	if v := share(ta, night.BurstComm); v < 0.9 {
		t.Errorf("the burst's stacks are %.2f of the window", v)
	}
}

// TestSaturatedNight: on twelve hours of a real capture of a machine whose
// CPUs are all busy (trainer), repeated, with a 2-second burst of a new
// process (kubelet_burst, three quarters of the CPUs) kept in one copy
// only, the busy rate never stands out, and the planted burst comes first,
// by composition, naming its process, placed to 100 ms or so.
func TestSaturatedNight(t *testing.T) {
	o := night.Options{Capture: night.Saturated, Length: 12 * time.Hour}
	s, n := scanNight(t, o)
	res := s.Find(Options{})
	t.Logf("%d busy samples, %d seconds; planted %v to %v; %s", s.Samples(), res.Seconds, n.BurstFrom, n.BurstTo, describe(&res, 3))
	if res.Hot != 0 {
		t.Errorf("%d seconds hot by rate on a saturated machine", res.Hot)
	}
	if len(res.Bursts) == 0 {
		t.Fatal("no burst")
	}
	b := res.Bursts[0]
	if b.Kind != Composition || b.Process != n.BurstComm {
		t.Errorf("the first burst is a burst of %v standing out by %q, want composition by %s", b.Kind, b.Process, n.BurstComm)
	}
	slack := folded.Time(250 * time.Millisecond)
	if b.From > n.BurstFrom || b.From < n.BurstFrom-slack || b.To <= n.BurstTo || b.To > n.BurstTo+slack {
		t.Errorf("first burst %v to %v, the planted one %v to %v (±%v)", b.From, b.To, n.BurstFrom, n.BurstTo, slack)
	}
	if b.Share < 0.6 || b.Typical > 1e-4 || b.Score < 5*res.Threshold {
		t.Errorf("%s is %.1f%% of the window, typically %.3f%%, score %.1f", b.Process, 100*b.Share, 100*b.Typical, b.Score)
	}
	if len(res.Bursts) > 1 {
		t.Errorf("%d bursts, want the planted one only: %s", len(res.Bursts), describe(&res, 5))
	}
	ta := tally(t, o, b, res.Measure)
	if v := share(ta, n.BurstComm); v < b.Share-0.01 || v > b.Share+0.01 {
		t.Errorf("%s is %.3f of the window by the exact tally, %.3f by the series", n.BurstComm, v, b.Share)
	}
}

// TestNightsWithoutBurst: the same nights with the burst in no copy raise
// no alarm of composition: their highest composition z-score stays under
// the threshold (the idle night's rate bursts are its capture's own
// spikes: a second of bash and python3, 19 times the median second). An
// hour is as good as twelve here: the seconds are the same 30 repeated.
func TestNightsWithoutBurst(t *testing.T) {
	for _, tt := range []struct {
		c *night.Source
		// The highest composition z-score measured, to tell a change.
		top float64
	}{
		{night.Idle, 1.6},
		{night.Saturated, 1.4},
	} {
		s, _ := scanNight(t, night.Options{Capture: tt.c, Length: time.Hour, NoBurst: true})
		res := s.Find(Options{Max: -1})
		t.Logf("%s: %d bursts; %s", tt.c.File, len(res.Bursts), describe(&res, 2))
		if res.Comp.Hot != 0 || res.Comp.Top >= res.Threshold || res.Comp.Top > tt.top+0.1 {
			t.Errorf("%s: %d seconds hot by composition, the highest z %.2f (measured %.1f)", tt.c.File, res.Comp.Hot, res.Comp.Top, tt.top)
		}
		for _, b := range res.Bursts {
			if b.Kind&Composition != 0 {
				t.Errorf("%s: a burst of composition at %v", tt.c.File, b.From)
			}
		}
		if tt.c.Busy && len(res.Bursts) != 0 {
			t.Errorf("%s: %d bursts", tt.c.File, len(res.Bursts))
		}
	}
}
