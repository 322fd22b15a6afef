package pprof

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/pprof/profile"

	"flamekit/internal/testkit/testcapture"
	"flamekit/pkg/folded"
)

// byKey sums a profile's values per stack, timestamp and labels: what
// go tool pprof shows, whatever the order or the splitting of samples.
func byKey(p *profile.Profile) map[string][]int64 {
	m := map[string][]int64{}
	for _, s := range p.Sample {
		var fr []string
		for _, l := range s.Location {
			for _, ln := range l.Line {
				fr = append(fr, ln.Function.Name)
			}
		}
		var labs []string
		for k, v := range s.NumLabel {
			labs = append(labs, fmt.Sprint(k, v, s.NumUnit[k]))
		}
		sort.Strings(labs)
		k := strings.Join(fr, ";") + "|" + strings.Join(labs, ",")
		if m[k] == nil {
			m[k] = make([]int64, len(s.Value))
		}
		for i, v := range s.Value {
			m[k][i] += v
		}
	}
	return m
}

// TestCutIsRecords: a profile cut into intervals as the samples come
// (Options.HasCut: a timeline) holds what the per-sample records give
// once the clock is known: the same values per stack, interval, CPU and
// thread, the same header; and with a wrong guess Fits says so.
func TestCutIsRecords(t *testing.T) {
	in := testcapture.ReadStream(t, collapse(t, "burst"))
	in.Recs = append(in.Recs, folded.Record{Stack: []byte("classic;line"), Count: 7, Kind: folded.Classic})
	for _, res := range []time.Duration{time.Millisecond, 100 * time.Millisecond, time.Second} {
		opts := Options{Resolution: res, Location: time.UTC}
		want, wst := build(t, in, opts)
		probe := NewBuilder(opts)
		for _, m := range in.Metas {
			probe.AddMeta(m)
		}
		for i := range in.Recs {
			probe.Add(&in.Recs[i])
		}
		opts.Cut, opts.HasCut = probe.Offset(), true
		got, gst := build(t, in, opts)
		if len(got.Sample) > len(want.Sample) || gst.Value != wst.Value || gst.Stacks != wst.Stacks || gst.Frames != wst.Frames {
			t.Errorf("%v: %d samples (records %d), stats %+v, want %+v", res, len(got.Sample), len(want.Sample), gst, wst)
		}
		// Memory: the cut holds no record, the per-sample path one per
		// timed sample.
		if gst.Held != 0 || wst.Held != wst.Timed {
			t.Errorf("%v: held %d records cut, %d of %d timed without", res, gst.Held, wst.Held, wst.Timed)
		}
		if got.TimeNanos != want.TimeNanos || got.DurationNanos != want.DurationNanos || got.Period != want.Period ||
			types(got) != types(want) || fmt.Sprint(got.Comments) != fmt.Sprint(want.Comments) {
			t.Errorf("%v: header %d %d %d %s, want %d %d %d %s", res, got.TimeNanos, got.DurationNanos, got.Period, types(got), want.TimeNanos, want.DurationNanos, want.Period, types(want))
		}
		g, w := byKey(got), byKey(want)
		if len(g) != len(w) {
			t.Errorf("%v: %d keys, want %d", res, len(g), len(w))
		}
		for k, v := range w {
			if fmt.Sprint(g[k]) != fmt.Sprint(v) {
				t.Fatalf("%v: %s: %v, want %v", res, k, g[k], v)
			}
		}
		// A guess 1 ns off: the edges move, Fits says to read again.
		opts.Cut++
		b := NewBuilder(opts)
		for _, m := range in.Metas {
			b.AddMeta(m)
		}
		for i := range in.Recs {
			b.Add(&in.Recs[i])
		}
		if b.Fits() {
			t.Errorf("%v: a cut 1 ns off fits", res)
		}
	}
}

func types(p *profile.Profile) string {
	var s []string
	for _, t := range p.SampleType {
		s = append(s, t.Type+"/"+t.Unit)
	}
	return strings.Join(s, " ")
}

// TestTrailingEmptyFrames: "a;b;;" is the stack "a;b" (folded.TrimStack,
// as flamegraph and stacktop read it), not a leaf with an empty name;
// an empty frame inside a stack stays a function.
func TestTrailingEmptyFrames(t *testing.T) {
	prof := func(lines ...string) map[string][]int64 {
		b := NewBuilder(Options{})
		for _, l := range lines {
			stack, count, _ := strings.Cut(l, " ")
			var n float64
			fmt.Sscan(count, &n)
			if err := b.Add(&folded.Record{Stack: []byte(stack), Count: n, Kind: folded.Classic}); err != nil {
				t.Fatal(err)
			}
		}
		return byKey(googleOf(t, b))
	}
	got, want := prof("a;b;; 2", "a;;c 3"), prof("a;b 2", "a;;c 3")
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("a;b;; gives %v, want %v", got, want)
	}
}
