package bursts

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// busyHost adds the samples of a 2-CPU host sampled at 97 Hz whose CPUs
// are always busy, over [from, to) seconds: each sample is the process
// pick returns for its time and CPU.
func busyHost(s *Series, from, to float64, pick func(t float64, cpu int) string) {
	const hz = 97
	for cpu := 0; cpu < 2; cpu++ {
		for i := int(math.Ceil(from * hz)); float64(i)/hz < to; i++ {
			t := float64(i)/hz + float64(cpu)*0.003
			s.AddStack(at(t), 1, []byte(pick(t, cpu)+";main;work"))
		}
	}
}

// trainer is the background of a saturated host: two training processes
// and, now and then, a short-lived tool.
func trainer(rng *rand.Rand) func(t float64, cpu int) string {
	return func(t float64, cpu int) string {
		switch r := rng.Float64(); {
		case r < 0.03:
			return []string{"ls", "bash", "sshd", "node_exporter"}[rng.IntN(4)]
		case cpu == 0:
			return "python3"
		}
		return "pt_data_worker"
	}
}

// On a saturated host, a process that takes CPU from the others is a
// burst of composition, named, placed, and first; the rate never moves.
// Too small a share stays under the threshold.
func TestCompositionSaturated(t *testing.T) {
	for _, tt := range []struct {
		name  string
		share float64 // of each CPU the burst takes
		cpus  int     // CPUs the burst runs on
		found bool
	}{
		{"both CPUs, 70 %", 0.7, 2, true},
		{"both CPUs, 30 %", 0.3, 2, true},
		{"one CPU, 60 %", 0.6, 1, true},
		{"both CPUs, 5 %", 0.05, 2, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(11, 12))
			s := NewSeries(origin, 0)
			bg := trainer(rng)
			busyHost(s, 0, 3600, func(tm float64, cpu int) string {
				if tm >= 1234.37 && tm < 1236.37 && cpu < tt.cpus && rng.Float64() < tt.share {
					return "kubelet"
				}
				return bg(tm, cpu)
			})
			res := s.Find(Options{})
			t.Logf("composition: median %.4f, MAD %.4f, scale %.3f, %d hot, top z %.1f; %d bursts", res.Comp.Median, res.Comp.MAD, res.Comp.Scale, res.Comp.Hot, res.Comp.Top, len(res.Bursts))
			if res.Hot != 0 {
				t.Errorf("%d seconds hot by rate", res.Hot)
			}
			if !tt.found {
				if len(res.Bursts) != 0 {
					b := res.Bursts[0]
					t.Errorf("found %v at %v: %s %.2f, z %.1f", b.Kind, b.From-origin, b.Process, b.Share, b.Score)
				}
				return
			}
			if len(res.Bursts) == 0 {
				t.Fatal("no burst")
			}
			b := res.Bursts[0]
			t.Logf("%v %.2f to %.2f s: z %.1f, divergence %.3f, %s %.3f typically %.4f", b.Kind, float64(b.From-origin)/1e9, float64(b.To-origin)/1e9, b.Score, b.Divergence, b.Process, b.Share, b.Typical)
			if b.Kind != Composition || b.Process != "kubelet" {
				t.Errorf("first burst: %v by %q", b.Kind, b.Process)
			}
			if !near(b.From, 1234.37, 0.21) || !near(b.To, 1236.37, 0.21) {
				t.Errorf("burst %.2f to %.2f s, want 1234.37 to 1236.37 (±0.2 s)", float64(b.From-origin)/1e9, float64(b.To-origin)/1e9)
			}
			// The burst's share of the CPUs over its 2 seconds, of a
			// window placed to a bin or two either side.
			want := tt.share * float64(tt.cpus) / 2 * 2e9 / float64(b.To-b.From)
			if math.Abs(b.Share-want) > 0.1*want || b.Typical != 0 {
				t.Errorf("%s is %.3f of the window, want %.3f; typically %.4f, want 0", b.Process, b.Share, want, b.Typical)
			}
			for _, o := range res.Bursts[1:] {
				if o.Score > b.Score/3 {
					t.Errorf("another burst at %v scores %.1f, the planted one %.1f", o.From-origin, o.Score, b.Score)
				}
			}
		})
	}
}

// A capture in two halves, one process then another, has no burst: every
// second is as far from the whole as the median second.
func TestCompositionPhases(t *testing.T) {
	s := NewSeries(origin, 0)
	busyHost(s, 0, 600, func(tm float64, cpu int) string {
		if tm < 300 {
			return "build"
		}
		return "test"
	})
	if res := s.Find(Options{}); len(res.Bursts) != 0 || res.Comp.Hot != 0 {
		t.Errorf("phases: %d bursts, %d seconds hot by composition: %+v", len(res.Bursts), res.Comp.Hot, res.Bursts)
	}
}

// A mostly idle host's few busy samples a second are mostly noise: a
// second of them does not stand out by composition, nor does a new
// process's handful of samples.
func TestCompositionIdle(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	s := NewSeries(origin, 0)
	procs := []string{"ls", "bash", "sshd", "systemd", "kworker/0:1"}
	for tm := rng.ExpFloat64() / 4; tm < 3600; tm += rng.ExpFloat64() / 4 {
		s.AddStack(at(tm), 1, []byte(procs[rng.IntN(len(procs))]+";x"))
	}
	for i := 0; i < 6; i++ {
		s.AddStack(at(1800.2+float64(i)*0.01), 1, []byte("cron;run"))
	}
	res := s.Find(Options{})
	t.Logf("composition: median %.3f, scale %.3f, top z %.1f", res.Comp.Median, res.Comp.Scale, res.Comp.Top)
	for _, b := range res.Bursts {
		if b.Kind&Composition != 0 {
			t.Errorf("a burst of composition at %v: %s %.2f, z %.1f", b.From-origin, b.Process, b.Share, b.CompScore)
		}
	}
}

// Weighted input (off-CPU time): the same lines every second, but one
// process blocks far longer for three seconds. Its composition stands
// out by weight, not by counting lines.
func TestCompositionWeight(t *testing.T) {
	s := NewSeries(origin, 0)
	for sec := 0; sec < 600; sec++ {
		for i := 0; i < 40; i++ {
			proc, w := "nginx", 900.0
			if i%4 == 0 {
				proc, w = "postgres", 100.0
				if sec >= 400 && sec < 403 {
					w = 2000
				}
			}
			s.AddStack(at(float64(sec)+float64(i)/40), w, []byte(proc+";wait"))
		}
	}
	res := s.Find(Options{Measure: Weight})
	if len(res.Bursts) == 0 || res.Bursts[0].Process != "postgres" || res.Bursts[0].Kind&Composition == 0 || !near(res.Bursts[0].From, 400, 0.11) || !near(res.Bursts[0].To, 403, 0.11) {
		t.Errorf("by weight: %+v", res.Bursts)
	}
	if res := s.Find(Options{Measure: Samples}); len(res.Bursts) != 0 {
		t.Errorf("counting lines, nothing stands out, but found %+v", res.Bursts)
	}
}

// A window that stands out both ways is one burst, of both kinds, scored
// by the larger z-score; a composition burst elsewhere is another.
func TestMergeKinds(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	s := NewSeries(origin, 0)
	for tm := rng.ExpFloat64() / 40; tm < 600; tm += rng.ExpFloat64() / 40 {
		p := "app"
		switch {
		case tm >= 100 && tm < 102 && rng.IntN(2) == 0:
			p = "gc" // composition only: half the samples, the rate unchanged
		case rng.IntN(10) == 0:
			p = "sidecar"
		}
		s.AddStack(at(tm), 1, []byte(p+";x"))
	}
	for tm := 300.0; tm < 302; tm += 1.0 / 190 {
		s.AddStack(at(tm), 1, []byte("spike;x")) // both: a new process, and the rate
	}
	res := s.Find(Options{Max: -1})
	var both, comp *Burst
	for i := range res.Bursts {
		b := &res.Bursts[i]
		switch {
		case near(b.From, 300, 0.21):
			both = b
		case near(b.From, 100, 0.21):
			comp = b
		default:
			t.Errorf("a burst at %v: %v, %s", b.From-origin, b.Kind, b.Process)
		}
	}
	if both == nil || both.Kind != Rate|Composition || both.Process != "spike" || both.Score != max(both.RateScore, both.CompScore) {
		t.Errorf("the spike: %+v", both)
	}
	if comp == nil || comp.Kind != Composition || comp.Process != "gc" || comp.Score != comp.CompScore {
		t.Errorf("the gc window: %+v", comp)
	}
	if both != nil && comp != nil && both.Samples < 380 {
		t.Errorf("the spike's window holds %d samples", both.Samples)
	}
}

// Composition memory: one entry per (second, process), whatever the
// number of samples; a stack without a frame separator is its own
// process.
func TestCompositionEntries(t *testing.T) {
	s := NewSeries(origin, 0)
	for i := 0; i < 1000; i++ {
		tm := float64(i) / 100 // 10 seconds
		s.AddStack(at(tm), 1, []byte("a;x;y"))
		s.AddStack(at(tm), 1, []byte("b"))
		if i%2 == 0 {
			s.AddStack(at(tm), 1, []byte(fmt.Sprintf("a;z%d", i)))
		}
	}
	s.read() // the composition is read from the timeline when searched
	if n := len(s.comp.ents); n != 20 {
		t.Errorf("%d entries for 2 processes over 10 seconds, want 20", n)
	}
	if len(s.comp.names) != 2 || s.comp.names[0] != "a" || s.comp.names[1] != "b" {
		t.Errorf("processes %q", s.comp.names)
	}
	// Plain Add counts for the rate only.
	s.Add(at(3), 1)
	s.read()
	if len(s.comp.ents) != 20 || s.Samples() != 2501 {
		t.Errorf("%d entries, %d samples", len(s.comp.ents), s.Samples())
	}
}

func ExampleSeries_AddStack() {
	s := NewSeries(origin, 0)
	// Ten minutes of a host whose two CPUs are busy with a build, 100
	// samples a second, and two seconds where kubelet takes 70 of them.
	for sec := 0; sec < 600; sec++ {
		for i := 0; i < 100; i++ {
			stack := "make;cc1;parse"
			if sec >= 300 && sec < 302 && i%10 < 7 {
				stack = "kubelet;sync_pods"
			}
			s.AddStack(at(float64(sec)+float64(i)/100), 1, []byte(stack))
		}
	}
	res := s.Find(Options{})
	b := res.Bursts[0]
	fmt.Printf("%v burst %.1f s to %.1f s: %s %.0f%% of the window, typically %.0f%%; z %.1f, %d seconds hot by rate\n",
		b.Kind, float64(b.From-origin)/1e9, float64(b.To-origin)/1e9, b.Process, 100*b.Share, 100*b.Typical, b.Score, res.Hot)
	// Output:
	// composition burst 299.9 s to 302.1 s: kubelet 64% of the window, typically 0%; z 87.3, 0 seconds hot by rate
}
