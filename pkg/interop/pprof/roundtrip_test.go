package pprof

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"flamekit/internal/testkit/testcapture"
	"flamekit/pkg/folded"
)

// captures are the real perf captures of testdata/perf.
var captures = []string{
	"burst", "clock-mono", "cpp-templates", "go", "java", "node", "kernel",
	"dwarf", "mixed-events", "comm-spaces", "nocallgraph", "syswide",
	"tracepoint", "before", "after",
}

// TestRoundTripRealCaptures: folded -> pprof -> folded gives the same
// records (stack, count, perf-clock time, in order) and totals, and the
// profile's weight total is the folded total.
func TestRoundTripRealCaptures(t *testing.T) {
	for _, name := range captures {
		t.Run(name, func(t *testing.T) {
			in := testcapture.ReadStream(t, collapse(t, name))
			if len(in.Recs) == 0 {
				t.Fatal("no records")
			}
			p, st := build(t, in, Options{})
			if got, want := valueSum(p, len(p.SampleType)-1), int64(in.Total()); got != want || float64(want) != in.Total() {
				t.Errorf("pprof weight total %d, folded total %v", got, in.Total())
			}
			if got := valueSum(p, 0); got != int64(len(in.Recs)) {
				t.Errorf("samples/count total %d, want %d timed lines", got, len(in.Recs))
			}
			if st.Timed != int64(len(in.Recs)) || st.Stacks == 0 || st.Frames == 0 {
				t.Errorf("stats %+v", st)
			}
			_, q := encode(t, p)
			var out bytes.Buffer
			sum, err := ToFolded(&out, q, ReadOptions{Name: name})
			if err != nil {
				t.Fatal(err)
			}
			back := testcapture.ReadStream(t, out.Bytes())
			want := mergeSame(in.Recs)
			if len(back.Recs) != len(want) {
				t.Fatalf("%d records back, want %d", len(back.Recs), len(want))
			}
			for i := range want {
				a, b := want[i], back.Recs[i]
				if !bytes.Equal(a.Stack, b.Stack) || a.Count != b.Count || a.Time != b.Time || a.Kind != b.Kind ||
					a.Has != b.Has || a.CPU != b.CPU || a.PID != b.PID || a.TID != b.TID {
					t.Fatalf("record %d: got %q %v @%v (%v) %s, want %q %v @%v (%v) %s", i, b.Stack, b.Count, b.Time, b.Kind, folded.AppendFields(nil, &b), a.Stack, a.Count, a.Time, a.Kind, folded.AppendFields(nil, &a))
				}
			}
			if back.Total() != in.Total() || sum.Total != in.Total() {
				t.Errorf("totals: back %v, summary %v, want %v", back.Total(), sum.Total, in.Total())
			}
			// The original metadata lines come back, then the sample type.
			if len(back.Metas) != len(in.Metas)+1 {
				t.Fatalf("%d metadata lines back, want %d+1", len(back.Metas), len(in.Metas))
			}
			for i := range in.Metas {
				if got, want := string(folded.AppendMeta(nil, &back.Metas[i])), string(folded.AppendMeta(nil, &in.Metas[i])); got != want {
					t.Errorf("meta %d: got %s want %s", i, got, want)
				}
			}
			w, _ := WeightFor(&back.Metas[len(back.Metas)-1])
			if w != st.Weight {
				t.Errorf("weight back %v, want %v", w, st.Weight)
			}
		})
	}
}

// mergeSame returns the records with those of the same stack and time
// summed into the first: a profile has one sample per distinct stack and
// time (tracepoint samples of one CPU can share their microsecond).
func mergeSame(recs []folded.Record) []folded.Record {
	type key struct {
		stack         string
		t             folded.Time
		cpu, pid, tid int32
		has           folded.Has
	}
	idx := map[key]int{}
	var out []folded.Record
	for _, r := range recs {
		k := key{string(r.Stack), r.Time, r.CPU, r.PID, r.TID, r.Has}
		if i, ok := idx[k]; ok {
			out[i].Count += r.Count
			continue
		}
		idx[k] = len(out)
		out = append(out, r)
	}
	return out
}

// TestClockExact: a perf record -k mono capture maps exactly: the first
// sample's timestamp_ns is the reference's wall time plus the perf-clock
// difference, and TimeNanos is the first sample's.
func TestClockExact(t *testing.T) {
	in := testcapture.ReadStream(t, collapse(t, "clock-mono"))
	p, st := build(t, in, Options{})
	if st.Estimated || st.NoWall {
		t.Fatalf("clock: %+v", st)
	}
	// # reference time: 2026-11-22T02:25:56.722310Z = 506.099781735 (monotonic)
	ref := time.Date(2026, 11, 22, 2, 25, 56, 722310000, time.UTC)
	first := in.Recs[0].Time
	want := ref.Add(time.Duration(first - folded.Time(506099781735))).UnixNano()
	if got := p.Sample[0].NumLabel[LabelTimestamp][0]; got != want {
		t.Errorf("first timestamp_ns %d, want %d", got, want)
	}
	if p.TimeNanos != want {
		t.Errorf("TimeNanos %d, want %d", p.TimeNanos, want)
	}
	last := in.Recs[len(in.Recs)-1].Time
	if p.DurationNanos != int64(last-first) {
		t.Errorf("DurationNanos %d, want %d", p.DurationNanos, last-first)
	}
	if p.Period != 10309278 || p.PeriodType.Type != "cpu" || p.PeriodType.Unit != "nanoseconds" {
		t.Errorf("period %v %d", p.PeriodType, p.Period)
	}
	if got := p.SampleType; len(got) != 2 || got[0].Type != "samples" || got[1].Type != "cpu" || got[1].Unit != "nanoseconds" || p.DefaultSampleType != "cpu" {
		t.Errorf("sample types %v default %q", got, p.DefaultSampleType)
	}
}

// TestClockEstimated: without -k the wall clock is estimated from
// "captured on" (read in the given zone), the last sample being at that
// time.
func TestClockEstimated(t *testing.T) {
	in := testcapture.ReadStream(t, collapse(t, "burst"))
	p, st := build(t, in, Options{Location: time.UTC})
	if !st.Estimated || st.NoWall {
		t.Fatalf("clock: %+v", st)
	}
	// captured-on="Sun Nov 22 02:24:54 2026", last="443.407714"
	last := in.Recs[len(in.Recs)-1]
	want := time.Date(2026, 11, 22, 2, 24, 54, 0, time.UTC).UnixNano()
	got := p.Sample[len(p.Sample)-1].NumLabel[LabelTimestamp][0]
	if last.Time != folded.Time(443407714000) || got != want {
		t.Errorf("last sample @%v at %d, want %d", last.Time, got, want)
	}
}

// TestClockGiven: a window's reference and bounds are used as given.
func TestClockGiven(t *testing.T) {
	in := testcapture.ReadStream(t, collapse(t, "burst"))
	ref := folded.WallRef{Wall: time.Unix(1795314277, 825849327), Perf: 427204232000, Exact: true, How: "dmesg marker"}
	p, st := build(t, in, Options{Ref: &ref, From: 420e9, To: 430e9, HasFrom: true, HasTo: true})
	if st.Clock != "dmesg marker" || st.Estimated {
		t.Errorf("clock %+v", st)
	}
	if want := ref.ToWall(420e9).UnixNano(); p.TimeNanos != want || p.DurationNanos != 10e9 {
		t.Errorf("TimeNanos %d DurationNanos %d, want %d 10e9", p.TimeNanos, p.DurationNanos, want)
	}
}

// TestNoWallClock: without any clock facts, times stay on perf's clock
// and come back unchanged.
func TestNoWallClock(t *testing.T) {
	in := testcapture.Stream{Recs: []folded.Record{
		{Stack: []byte("a;b"), Count: 3, Time: 5e9, Kind: folded.Timed},
		{Stack: []byte("a;c"), Count: 4, Time: 6e9, Kind: folded.Timed},
	}}
	p, st := build(t, in, Options{})
	if !st.NoWall || p.Sample[0].NumLabel[LabelTimestamp][0] != 5e9 {
		t.Fatalf("stats %+v sample %v", st, p.Sample[0])
	}
	if st.Weight != (Weight{"weight", "count"}) || st.WeightKnown {
		t.Errorf("weight %v known %v", st.Weight, st.WeightKnown)
	}
	_, q := encode(t, p)
	var out bytes.Buffer
	sum, err := ToFolded(&out, q, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Clock != "perf" {
		t.Errorf("clock %q", sum.Clock)
	}
	back := testcapture.ReadStream(t, out.Bytes())
	if len(back.Recs) != 2 || back.Recs[1].Time != 6e9 || string(back.Recs[1].Stack) != "a;c" {
		t.Errorf("back: %+v", back.Recs)
	}
}

// TestClassicAndFractions: classic lines give one sample per stack and
// the weight alone; fractions are rounded with the error carried, so the
// total is the folded total rounded.
func TestClassicAndFractions(t *testing.T) {
	tests := []struct {
		name   string
		counts []float64
		want   []int64
	}{
		{"integers", []float64{3, 4, 5}, []int64{3, 4, 5}},
		{"thirds", []float64{1.0 / 3, 1.0 / 3, 1.0 / 3}, []int64{0, 1, 0}},
		{"halves", []float64{0.5, 0.5, 0.5, 0.5}, []int64{1, 0, 1, 0}},
		{"big", []float64{1 << 52, 1}, []int64{1 << 52, 1}},
		{"2^53 and fractions", []float64{1 << 53, 0.5, 1<<53 - 1, 0.5}, []int64{1 << 53, 1, 1<<53 - 1, 0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var in testcapture.Stream
			for i, c := range tc.counts {
				in.Recs = append(in.Recs, folded.Record{Stack: []byte{'a', byte('a' + i)}, Count: c, Kind: folded.Classic})
			}
			p, st := build(t, in, Options{Weight: Weight{"cpu", "nanoseconds"}})
			if len(p.SampleType) != 1 || p.SampleType[0].Type != "cpu" {
				t.Fatalf("sample types %v", p.SampleType)
			}
			var got []int64
			for _, s := range p.Sample {
				got = append(got, s.Value[0])
			}
			if len(got) != len(tc.want) {
				t.Fatalf("values %v, want %v", got, tc.want)
			}
			var sum int64
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("values %v, want %v", got, tc.want)
					break
				}
				sum += got[i]
			}
			if st.Value != sum {
				t.Errorf("stats value %d, sum %d", st.Value, sum)
			}
		})
	}
}

// TestExactSums: integer counts summed into one pprof sample (one stack,
// one time, or Aggregate) stay exact past 2^53, where float64 sums round;
// a count beyond 2^53 and sums beyond int64 are errors.
func TestExactSums(t *testing.T) {
	for _, opts := range []Options{{}, {Resolution: time.Second}, {Aggregate: true}} {
		b := NewBuilder(opts)
		for _, c := range []float64{1 << 53, 1, 1 << 53, 1, 1 << 53} {
			if err := b.Add(&folded.Record{Stack: []byte("a;b"), Count: c, Time: 5e9, Kind: folded.Timed}); err != nil {
				t.Fatal(err)
			}
		}
		p, err := b.Profile()
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Sample) != 1 || p.Sample[0].Value[1] != 3<<53+2 || p.Sample[0].Value[0] != 5 || b.Stats().Value != 3<<53+2 {
			t.Errorf("%+v: samples %v", opts, p.Sample)
		}
	}
	b := NewBuilder(Options{})
	err := b.Add(&folded.Record{Stack: []byte("a"), Count: 1<<53 + 2, Kind: folded.Classic})
	if !errors.Is(err, folded.ErrCountRange) {
		t.Errorf("count 2^53+2: %v", err)
	}
	for i := 0; i < 1023; i++ {
		if err := b.Add(&folded.Record{Stack: []byte("a"), Count: 1 << 53, Kind: folded.Classic}); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Add(&folded.Record{Stack: []byte("a"), Count: 1 << 53, Kind: folded.Classic}); err == nil || !strings.Contains(err.Error(), "beyond 2^63-1") {
		t.Errorf("a sum of 2^63: %v", err)
	}
}

// TestAggregate: one sample per distinct stack, no timestamps, the same
// totals.
func TestAggregate(t *testing.T) {
	in := testcapture.ReadStream(t, collapse(t, "burst"))
	p, st := build(t, in, Options{Aggregate: true})
	if len(p.Sample) != st.Stacks {
		t.Errorf("%d samples for %d stacks", len(p.Sample), st.Stacks)
	}
	if got := valueSum(p, 1); float64(got) != in.Total() {
		t.Errorf("weight %d, want %v", got, in.Total())
	}
	if got := valueSum(p, 0); got != int64(len(in.Recs)) {
		t.Errorf("samples %d, want %d", got, len(in.Recs))
	}
	for _, s := range p.Sample {
		if len(s.NumLabel) != 0 {
			t.Fatal("aggregated sample with labels")
		}
	}
}

// TestDiffRefused: a differential line is an error, not half a profile.
func TestDiffRefused(t *testing.T) {
	b := NewBuilder(Options{})
	if err := b.Add(&folded.Record{Stack: []byte("a"), Count: 1, Before: 2, Kind: folded.Diff}); err != ErrDiff {
		t.Errorf("err %v", err)
	}
	if err := b.Add(&folded.Record{Stack: []byte("a"), Count: -1, Kind: folded.Classic}); err == nil {
		t.Error("negative count accepted")
	}
}

// fields makes metadata fields from key, value pairs.
func fields(kv ...string) []folded.Field {
	var fs []folded.Field
	for i := 0; i+1 < len(kv); i += 2 {
		fs = append(fs, folded.Field{Key: kv[i], Value: kv[i+1]})
	}
	return fs
}

func TestWeightFor(t *testing.T) {
	tests := []struct {
		fields []folded.Field
		want   Weight
		known  bool
	}{
		{fields("event", "cpu-clock:pppH"), Weight{"cpu", "nanoseconds"}, true},
		{fields("event", "task-clock"), Weight{"cpu", "nanoseconds"}, true},
		{fields("event", "cycles:u"), Weight{"cycles", "count"}, true},
		{fields("event", "page-faults"), Weight{"page_faults", "count"}, true},
		{fields("event", "sched:sched_switch"), Weight{"sched_switch", "count"}, false},
		{fields("event", "probe_libc:malloc"), Weight{"malloc", "count"}, false},
		{fields("event", "offcpu-time"), Weight{"off_cpu", "nanoseconds"}, true},
		{fields("event", "off-cpu"), Weight{"off_cpu", "microseconds"}, true},
		{fields("event", "cpu-clock", KeyType, "alloc_space", KeyUnit, "bytes"), Weight{"alloc_space", "bytes"}, true},
		{nil, Weight{"weight", "count"}, false},
		// What stackcollapse writes: the weight and unit keys win over
		// the event (issue #20: off-CPU was sched_switch/count).
		{fields("event", "sched:sched_switch", "weight", "off-cpu", "unit", "us"), Weight{"off_cpu", "microseconds"}, true},
		{fields("event", "cpu-clock/freq=99/,sched:sched_switch", "weight", "hot-cold", "unit", "us"), Weight{"hot_cold", "microseconds"}, true},
		{fields("event", "probe_libc:malloc", "weight", "size"), Weight{"malloc", "bytes"}, true},
		{fields("event", "block:block_rq_issue", "weight", "nr_sector"), Weight{"block_rq_issue", "sectors"}, true},
		{fields("event", "sched:sched_stat_sleep", "weight", "delay"), Weight{"sched_stat_sleep", "nanoseconds"}, true},
		{fields("event", "probe:f", "weight", "arg2"), Weight{"f", "count"}, false},
		{fields("event", "cpu-clock/freq=99/"), Weight{"cpu", "nanoseconds"}, true},
		{fields("event", "cpu/cycles/u"), Weight{"cycles", "count"}, true},
		{fields("event", "sched:sched_switch", "weight", "off-cpu", "unit", "us", KeyType, "samples", KeyUnit, "count"), Weight{"samples", "count"}, true},
	}
	for _, tc := range tests {
		m := folded.Meta{Fields: tc.fields}
		w, known := WeightFor(&m)
		if w != tc.want || known != tc.known {
			t.Errorf("%v: got %v %v, want %v %v", tc.fields, w, known, tc.want, tc.known)
		}
	}
}
