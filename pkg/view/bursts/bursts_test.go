package bursts

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"flamekit/pkg/folded"
)

const origin = folded.Time(413_417_927_000)

func at(s float64) folded.Time { return origin + folded.Time(math.Round(s*1e9)) }

// poisson adds a Poisson process of rate per second over [from, to) seconds.
func poisson(s *Series, rng *rand.Rand, from, to, rate float64, weight func() float64) {
	for t := from + rng.ExpFloat64()/rate; t < to; t += rng.ExpFloat64() / rate {
		s.Add(at(t), weight())
	}
}

func one() float64 { return 1 }

// near reports whether t is within tol seconds of s seconds after origin.
func near(t folded.Time, s, tol float64) bool {
	return math.Abs(float64(t-at(s))/1e9) <= tol
}

func TestFindsPlantedBurst(t *testing.T) {
	for _, tt := range []struct {
		name       string
		background float64 // busy samples per second
		burst      float64
	}{
		{"busy machine", 40, 194},
		{"mostly idle", 4, 194},
		{"idle", 0.05, 60},
		{"weak burst", 20, 60},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, 2))
			s := NewSeries(origin, 0)
			s.Cover(at(0))
			poisson(s, rng, 0, 3600, tt.background, one)
			poisson(s, rng, 1234.37, 1236.37, tt.burst, one)
			s.Cover(at(3599.99))
			res := s.Find(Options{})
			if len(res.Bursts) == 0 {
				t.Fatalf("no burst found; median %v scale %v", res.Median, res.Scale)
			}
			b := res.Bursts[0]
			if !near(b.From, 1234.37, 0.21) || !near(b.To, 1236.37, 0.21) {
				t.Errorf("burst %v to %v, want 1234.37 s to 1236.37 s after the first sample (±0.2 s)", b.From-origin, b.To-origin)
			}
			if b.Score < res.Threshold || b.Rate < tt.burst*0.8 {
				t.Errorf("burst score %.1f rate %.1f", b.Score, b.Rate)
			}
			// Nothing else in a Poisson background is hot enough to
			// compete: any other burst scores far lower.
			for _, o := range res.Bursts[1:] {
				if o.Score > b.Score/3 {
					t.Errorf("another burst at %v scores %.1f, the planted one %.1f", o.From-origin, o.Score, b.Score)
				}
			}
			if res.Seconds != 3600 || res.Measure != Samples {
				t.Errorf("seconds %d measure %v", res.Seconds, res.Measure)
			}
		})
	}
}

// A short intense burst outranks a long mild one, and a burst outranks
// the periodic spikes of the rest of the capture.
func TestRanking(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	s := NewSeries(origin, 0)
	poisson(s, rng, 0, 1800, 5, one)
	poisson(s, rng, 300, 600, 25, one) // five mild minutes
	for p := 10.0; p < 1800; p += 30 {
		poisson(s, rng, p, p+0.3, 150, one) // a spike every 30 s
	}
	poisson(s, rng, 1015.5, 1017.5, 190, one)
	res := s.Find(Options{Max: -1})
	if len(res.Bursts) < 3 {
		t.Fatalf("%d bursts", len(res.Bursts))
	}
	if b := res.Bursts[0]; !near(b.From, 1015.5, 0.21) {
		t.Errorf("first burst at %v s, want the 2-second burst at 1015.5 s", float64(b.From-origin)/1e9)
	}
	var mild *Burst
	for i := range res.Bursts {
		if b := &res.Bursts[i]; near(b.From, 300, 2) {
			mild = b
		}
	}
	if mild == nil || !near(mild.To, 600, 2) {
		t.Fatalf("the five mild minutes are not one burst: %+v", res.Bursts)
	}
	if mild.Score > res.Bursts[0].Score/3 {
		t.Errorf("mild minutes score %.1f against %.1f", mild.Score, res.Bursts[0].Score)
	}
}

// Weighted input (off-CPU microseconds): the same number of lines every
// second, but one window blocks far longer.
func TestWeight(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	s := NewSeries(origin, 0)
	for sec := 0; sec < 600; sec++ {
		for i := 0; i < 20; i++ {
			w := 100 + rng.Float64()*50 // µs
			if sec >= 400 && sec < 403 {
				w = 40000
			}
			s.Add(at(float64(sec)+float64(i)/20), w)
		}
	}
	if s.Resolve(Auto) != Weight {
		t.Errorf("auto resolves to %v for weights that differ", s.Resolve(Auto))
	}
	res := s.Find(Options{})
	if res.Measure != Weight || len(res.Bursts) == 0 || !near(res.Bursts[0].From, 400, 0.11) || !near(res.Bursts[0].To, 403, 0.11) {
		t.Errorf("weight: %+v", res)
	}
	if res := s.Find(Options{Measure: Samples}); len(res.Bursts) != 0 {
		t.Errorf("counting lines, nothing stands out, but found %+v", res.Bursts)
	}
	u := NewSeries(origin, 0)
	u.Add(at(1), 1003009)
	u.Add(at(2), 1003009)
	if u.Resolve(Auto) != Samples {
		t.Errorf("equal periods: auto resolves to %v", u.Resolve(Auto))
	}
}

// Hot seconds one quiet second apart are one burst; two apart, two.
// Warm seconds extend a burst, quiet ones end it.
func TestHysteresis(t *testing.T) {
	s := NewSeries(origin, 0)
	for sec := 0; sec < 100; sec++ {
		s.Add(at(float64(sec)+0.5), 1)
	}
	add := func(sec float64, n int) {
		for i := 0; i < n; i++ {
			s.Add(at(sec+float64(i)/float64(n)), 1)
		}
	}
	add(20, 100)
	add(21, 5) // warm: z 4 (scale 1), above half the threshold
	add(22, 100)
	add(60, 100)
	add(62, 100) // a quiet second between
	add(80, 4)   // warm but never hot: no burst
	res := s.Find(Options{Max: -1})
	var got []string
	for _, b := range res.Bursts {
		got = append(got, fmt.Sprintf("%.1f-%.1f", float64(b.From-origin)/1e9, float64(b.To-origin)/1e9))
	}
	if len(got) != 3 {
		t.Errorf("bursts %v, want 19.9-23.1, 59.9-61.1 and 61.9-63.1", got)
	}
	for _, want := range []string{"19.9-23.1", "59.9-61.1", "61.9-63.1"} {
		if !strings.Contains(strings.Join(got, " "), want) {
			t.Errorf("bursts %v, want one of %s", got, want)
		}
	}
}

func TestEmptyAndFlat(t *testing.T) {
	if res := NewSeries(origin, 0).Find(Options{}); len(res.Bursts) != 0 || res.Seconds != 0 {
		t.Errorf("empty: %+v", res)
	}
	s := NewSeries(origin, 0)
	for sec := 0; sec < 50; sec++ {
		for i := 0; i < 10; i++ {
			s.Add(at(float64(sec)+float64(i)/10), 1)
		}
	}
	if res := s.Find(Options{}); len(res.Bursts) != 0 || res.Median != 10 || res.MAD != 0 {
		t.Errorf("flat: %+v", res)
	}
	// Idle seconds covered at both ends count as quiet.
	s.Cover(at(-100))
	s.Cover(at(149.5))
	if res := s.Find(Options{}); res.Seconds != 250 || res.Median != 0 || len(res.Bursts) != 1 {
		t.Errorf("covered: %d seconds, median %v, %d bursts", res.Seconds, res.Median, len(res.Bursts))
	}
}

func TestMedianWith(t *testing.T) {
	for _, tt := range []struct {
		vals  []float64
		extra int64
		x     float64
		want  float64
	}{
		{nil, 0, 0, 0},
		{[]float64{3, 1, 2}, 0, 0, 2},
		{[]float64{3, 1}, 0, 0, 2},
		{[]float64{5, 6, 7}, 4, 0, 0},
		{[]float64{5, 6, 7}, 2, 0, 5},
		{[]float64{5, 6, 7}, 3, 0, 2.5},
		{[]float64{1, 9}, 1, 4, 4},
		{[]float64{-2, 9}, 2, 0, 0},
	} {
		if got := medianWith(append([]float64(nil), tt.vals...), tt.extra, tt.x); got != tt.want {
			t.Errorf("medianWith(%v, %d copies of %v) = %v, want %v", tt.vals, tt.extra, tt.x, got, tt.want)
		}
	}
}

// The tally names the stacks of a burst's window, and ByProcess sums
// them by process.
func TestTally(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	s := NewSeries(origin, 0)
	var recs []folded.Record
	add := func(tm float64, stack string) {
		recs = append(recs, folded.Record{Stack: []byte(stack), Count: 1, Time: at(tm), Kind: folded.Timed})
	}
	for tm := 0.0; tm < 600; tm += rng.ExpFloat64() / 30 {
		add(tm, fmt.Sprintf("bash;[unknown];addr_%x", rng.Uint32())) // all distinct
		if rng.IntN(3) == 0 {
			add(tm, "sshd;main;poll")
		}
	}
	for tm := 300.2; tm < 302.2; tm += 0.005 {
		add(tm, "flamekit_burst;burst_spin")
		if rng.IntN(4) == 0 {
			add(tm, "flamekit_burst;burst_spin;asm_sysvec_apic_timer_interrupt")
		}
	}
	for i := range recs {
		s.Add(recs[i].Time, recs[i].Count)
	}
	res := s.Find(Options{})
	if len(res.Bursts) == 0 || !near(res.Bursts[0].From, 300.2, 0.21) {
		t.Fatalf("bursts %+v", res.Bursts)
	}
	ta := NewTally(res.Bursts, Samples)
	for i := range recs {
		ta.Add(&recs[i])
	}
	b := res.Bursts[0]
	all := ta.Top(0, -1)
	var n float64
	for _, sh := range all {
		n += sh.Value
	}
	if int64(n) != b.Samples {
		t.Errorf("the tally counts %v samples in the window, the series %d", n, b.Samples)
	}
	top := ta.Top(0, 2)
	if len(top) != 2 || top[0].Stack != "flamekit_burst;burst_spin" || top[0].Share < 0.6 || top[1].Stack != "flamekit_burst;burst_spin;asm_sysvec_apic_timer_interrupt" {
		t.Errorf("top stacks %+v", top)
	}
	procs := ByProcess(all, 2)
	if procs[0].Stack != "flamekit_burst" || procs[0].Share < 0.8 || procs[1].Stack != "bash" && procs[1].Stack != "sshd" {
		t.Errorf("top processes %+v", procs)
	}
}

func ExampleSeries_Find() {
	s := NewSeries(origin, 0)
	// Two samples a second for a minute, and a second of 100.
	for sec := 0; sec < 60; sec++ {
		s.Add(at(float64(sec)+0.25), 1)
		s.Add(at(float64(sec)+0.75), 1)
	}
	for i := 0; i < 100; i++ {
		s.Add(at(30.5+float64(i)/200), 1)
	}
	res := s.Find(Options{})
	b := res.Bursts[0]
	fmt.Printf("median %.0f/s, scale %.2f/s\n", res.Median, res.Scale)
	fmt.Printf("burst %.1f s to %.1f s after the first sample: %d samples, %.0f/s, z %.1f\n",
		float64(b.From-origin)/1e9, float64(b.To-origin)/1e9, b.Samples, b.Rate, b.Score)
	// Output:
	// median 2/s, scale 1.41/s
	// burst 30.4 s to 31.1 s after the first sample: 101 samples, 144/s, z 100.6
}
