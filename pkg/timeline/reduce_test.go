package timeline

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"flamekit/pkg/folded"
)

// bigHost hands f the samples of a busy host, made up: cpus CPUs sampled
// at hz for seconds, each sample one of stacks distinct stacks (of 40
// processes, 4 threads each), the heavy ones far more often (Zipf), in
// time order, as perf script writes a system-wide capture. The record is
// reused.
func bigHost(cpus, hz, seconds, stacks int, f func(*folded.Record)) {
	rng := rand.New(rand.NewPCG(1, 2))
	zipf := rand.NewZipf(rng, 1.2, 1, uint64(stacks-1))
	names := make([][]byte, stacks)
	for i := range names {
		p := i % 40
		names[i] = fmt.Appendf(nil, "proc%d;main;work%d;leaf%d", p, i%97, i)
	}
	var rec folded.Record
	rec.Kind, rec.Count, rec.Has = folded.Timed, 10101010, folded.HasCPU|folded.HasPID|folded.HasTID
	period := int64(1e9) / int64(hz)
	for tick := range int64(seconds) * int64(hz) {
		for cpu := range cpus {
			s := int(zipf.Uint64())
			rec.Stack = names[s]
			rec.Time = folded.Time(1_000_000_000_000 + tick*period + int64(cpu)*1000)
			rec.CPU = int32(cpu)
			rec.PID = int32(1000 + s%40)
			rec.TID = rec.PID + int32(s/40%4)
			f(&rec)
		}
	}
}

type keyText struct {
	cell, input int32
	stack       string
}

type sums struct {
	samples uint32
	weight  int64
}

// byText sums the entries of t by cell, input and stack text, with the
// keys merge says merged first.
func byText(t *Timeline, m Merge) map[keyText]sums {
	out := map[keyText]sums{}
	t = t.MergeKeys(m, nil)
	for _, e := range t.Entries {
		k := keyText{e.Cell, e.Input, t.Stack(e.Stack)}
		s := out[k]
		s.samples += e.Samples
		s.weight += e.Weight
		out[k] = s
	}
	return out
}

// A Builder with a Budget holds at most its entries; every sample stays
// counted in its cell, input and process at the width reached, and a stack
// kept is never counted more than it was sampled.
func TestBudget(t *testing.T) {
	for _, c := range []struct {
		name                 string
		cpus, seconds, stack int
		budget               int
		rows, seconds2, cap  int // the cells and cap reached
	}{
		{"fits", 2, 3, 50, 100_000, 50, 1, 0},
		{"widened", 2, 20, 50, 2_000, 1, 1, 0},
		{"cut", 16, 20, 5000, 16_000, 1, 1, DefaultCap},
		{"cut and widened", 16, 120, 5000, 8_000, 1, 10, DefaultCap},
	} {
		t.Run(c.name, func(t *testing.T) {
			exact := NewBuilder(Options{})
			small := NewBuilder(Options{Budget: c.budget})
			n := 0
			bigHost(c.cpus, 97, c.seconds, c.stack, func(rec *folded.Record) {
				n++
				if err := exact.Add(rec); err != nil {
					t.Fatal(err)
				}
				if err := small.Add(rec); err != nil {
					t.Fatal(err)
				}
			})
			ex, got := exact.Build(), small.Build()
			if len(got.Entries) > c.budget {
				t.Errorf("%d entries, budget %d", len(got.Entries), c.budget)
			}
			if got.Rows != c.rows || got.Seconds != c.seconds2 {
				t.Errorf("cells %d a second, %d s a cell; want %d, %d", got.Rows, got.Seconds, c.rows, c.seconds2)
			}
			if c.rows == 50 {
				if got.Reduced != nil {
					t.Errorf("Reduced %+v within the budget", *got.Reduced)
				}
				return
			}
			r := got.Reduced
			if r == nil || r.Rows != 50 || r.Cap != c.cap || (r.Other > 0) != (c.cap > 0) || r.Entries < int64(len(ex.Entries))/2 {
				t.Fatalf("Reduced %+v, want the cap %d, an estimate near %d entries", r, c.cap, len(ex.Entries))
			}
			if got.Samples != int64(n) || got.Times != nil {
				t.Errorf("%d samples, want %d; %d times", got.Samples, n, len(got.Times))
			}
			// the exact timeline at the same cells
			for ex.Rows != got.Rows || ex.Seconds != got.Seconds {
				ex = ex.Widen()
			}
			for _, m := range []Measure{Samples, Weight} {
				a, b := ex.Series(m, nil), got.Series(m, nil)
				if fmt.Sprint(a) != fmt.Sprint(b) {
					t.Errorf("series of %v differ", m)
				}
			}
			procs := MergeFrames | MergeThreads | MergeCPUs
			if a, b := byText(ex, procs), byText(got, procs); fmt.Sprint(a) != fmt.Sprint(b) {
				t.Errorf("per process: %d keys, want %d", len(b), len(a))
			}
			exStacks := byText(ex, MergeThreads|MergeCPUs)
			var other int64
			for k, s := range byText(got, MergeThreads|MergeCPUs) {
				if strings.HasSuffix(k.stack, ";"+OtherFrame) {
					other += int64(s.samples)
					continue
				}
				if x := exStacks[k]; s.samples > x.samples || s.weight > x.weight {
					t.Errorf("%v: %d samples kept, %d sampled", k, s.samples, x.samples)
				}
			}
			if other != r.Other {
				t.Errorf("%d samples in %s stacks, Reduced.Other %d", other, OtherFrame, r.Other)
			}
		})
	}
}

// Widen follows the ladder of widths and stops at a day.
func TestWiden(t *testing.T) {
	b := NewBuilder(Options{})
	b.Add(&folded.Record{Kind: folded.Timed, Stack: []byte("a;b"), Count: 1, Time: 1e9})
	b.Add(&folded.Record{Kind: folded.Timed, Stack: []byte("a;b"), Count: 1, Time: 90_000e9})
	tl := b.Build()
	var got []string
	for ; tl != nil; tl = tl.Widen() {
		got = append(got, fmt.Sprintf("%d/%d:%d", tl.Rows, tl.Seconds, len(tl.Entries)))
	}
	want := "[50/1:2 10/1:2 5/1:2 1/1:2 1/10:2 1/60:2 1/600:2 1/3600:2 1/86400:2]"
	if fmt.Sprint(got) != want {
		t.Errorf("%v, want %s", got, want)
	}
}

// BenchmarkBudgetMemory builds the timeline of a made-up host of 96 CPUs
// at 97 Hz (the recorder's real case, for less time) with the explorer
// page's budget scaled down (50,000 entries), at 1, 10 and 100 times the
// samples, and reports the most heap the builder held (peak-live-MB,
// measured every 2^18 samples): it stays flat as the samples grow, where
// the builder without a budget (unbudgeted-…) grows with them.
func BenchmarkBudgetMemory(b *testing.B) {
	for _, c := range []struct {
		name   string
		scale  int
		budget int
	}{
		{"1x", 1, 50_000}, {"10x", 10, 50_000}, {"100x", 100, 50_000},
		{"unbudgeted-1x", 1, 0}, {"unbudgeted-10x", 10, 0},
	} {
		b.Run(c.name, func(b *testing.B) {
			for range b.N {
				var peak uint64
				measure := func() {
					var ms runtime.MemStats
					runtime.GC()
					runtime.ReadMemStats(&ms)
					peak = max(peak, ms.HeapAlloc)
				}
				measure()
				base := peak
				tb := NewBuilder(Options{Budget: c.budget})
				n := 0
				bigHost(96, 97, 20*c.scale, 20_000, func(rec *folded.Record) {
					if err := tb.Add(rec); err != nil {
						b.Fatal(err)
					}
					if n++; n%(1<<18) == 0 {
						measure()
					}
				})
				measure()
				tl := tb.Build()
				measure()
				b.ReportMetric(float64(peak-base)/1e6, "peak-live-MB")
				b.ReportMetric(float64(n), "samples")
				b.ReportMetric(float64(len(tl.Entries)), "entries")
				runtime.KeepAlive(tl)
			}
		})
	}
}

// A Snapshot taken before a reduction keeps what it held.
func TestBudgetSnapshot(t *testing.T) {
	b := NewBuilder(Options{Budget: 2_000, Cap: 16})
	var snap *Timeline
	var want string
	n := 0
	bigHost(8, 97, 60, 2000, func(rec *folded.Record) {
		if err := b.Add(rec); err != nil {
			t.Fatal(err)
		}
		if n++; n == 5_000 {
			snap = b.Snapshot()
			want = fmt.Sprint(snap.Entries)
		}
	})
	tl := b.Build()
	if tl.Reduced == nil || tl.Reduced.Cap != 16 || tl.Samples != int64(n) {
		t.Fatalf("not cut: %+v, %d samples", tl.Reduced, tl.Samples)
	}
	if fmt.Sprint(snap.Entries) != want {
		t.Errorf("the snapshot changed")
	}
}
