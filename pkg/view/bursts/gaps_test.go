package bursts

import (
	"math/rand/v2"
	"testing"

	"flamekit/pkg/timeline/gaps"
)

// Time not recorded is not quiet: a capture recorded for a third of its
// span (two windows with a long hole between) has no burst when the hole
// is known, whereas counting its seconds as zeros makes the median 0 and
// every busy second a burst. A burst next to a hole keeps its rate per
// second recorded.
func TestUnrecordedIsNotQuiet(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	s := NewSeries(origin, 0)
	poisson(s, rng, 0, 40, 60, one)
	poisson(s, rng, 160, 200, 60, one)
	hole := gaps.Span{From: at(40), To: at(160)}

	if res := s.Find(Options{}); len(res.Bursts) == 0 || res.Median != 0 {
		t.Fatalf("without the hole: median %v and %d bursts; want the hole's zeros to make every busy second stand out", res.Median, len(res.Bursts))
	}
	res := s.Find(Options{Unrecorded: []gaps.Span{hole}})
	if len(res.Bursts) != 0 || res.Median < 50 || res.Seconds != 80 || res.Unrecorded != 120 {
		t.Errorf("with the hole: median %v, %d bursts, %d seconds (%d left out); want a median near 60, no burst, 80 seconds and 120 left out",
			res.Median, len(res.Bursts), res.Seconds, res.Unrecorded)
	}

	// A burst of 200/s from 38.4 s to the hole at 40.6 s (the hole
	// starts 0.6 s into second 40): its rate is per second recorded.
	s = NewSeries(origin, 0)
	poisson(s, rng, 0, 40.6, 20, one)
	poisson(s, rng, 38.4, 40.6, 180, one)
	poisson(s, rng, 160, 300, 20, one)
	res = s.Find(Options{Unrecorded: []gaps.Span{{From: at(40.6), To: at(160)}}})
	if len(res.Bursts) != 1 {
		t.Fatalf("%d bursts, want the one before the hole", len(res.Bursts))
	}
	b := res.Bursts[0]
	if !near(b.From, 38.4, 0.21) || b.To > at(40.8) || b.Rate < 160 || b.Rate > 240 {
		t.Errorf("burst %v to %v at %.0f/s, want 38.4 s to the hole at 40.6 s, about 200/s", b.From-origin, b.To-origin, b.Rate)
	}
}
