package timeline

import (
	"testing"

	"flamekit/pkg/folded"
)

// Options.Times keeps every timed sample's time and entry, in time order,
// through the sort and merge of entries (two inputs over the same time),
// and none once there are more samples than it allows.
func TestTimes(t *testing.T) {
	type smp struct {
		in    int
		at    folded.Time
		stack string
		tid   int32
	}
	samples := []smp{
		{0, 10e6, "p;a", 1}, {0, 15e6, "p;b", 1}, {0, 30e6, "p;a", 2},
		{1, 5e6, "q;c", 3}, {1, 12e6, "p;a", 1}, {1, 31e6, "q;c", 3},
	}
	for _, limit := range []int{len(samples), len(samples) - 1} {
		b := NewBuilder(Options{Origin: 0, HasOrigin: true, Times: limit})
		for _, s := range samples {
			if int32(s.in) > b.cur {
				b.Input("in", "", 0)
			}
			rec := &folded.Record{Stack: []byte(s.stack), Count: 1, Time: s.at, Kind: folded.Timed, TID: s.tid, Has: folded.HasTID}
			if err := b.Add(rec); err != nil {
				t.Fatal(err)
			}
		}
		tl := b.Build()
		if limit < len(samples) {
			if tl.Times != nil || !tl.TimesOver {
				t.Errorf("limit %d: %d times kept, over %v", limit, len(tl.Times), tl.TimesOver)
			}
			continue
		}
		if len(tl.Times) != len(samples) || tl.TimesOver {
			t.Fatalf("%d times, over %v", len(tl.Times), tl.TimesOver)
		}
		for i, st := range tl.Times {
			if i > 0 && st.At < tl.Times[i-1].At {
				t.Errorf("times out of order at %d", i)
			}
			var want *smp
			for k := range samples {
				if samples[k].at == st.At {
					want = &samples[k]
				}
			}
			e := &tl.Entries[st.Entry]
			if got := string(tl.AppendStack(nil, e.Stack)); got != want.stack || e.Input != int32(want.in) || tl.Threads[e.Thread].TID != want.tid ||
				e.Cell != int32(tl.cellOfRel(int64(st.At-tl.Origin))) {
				t.Errorf("sample @%v: entry %+v (%s), want %+v", st.At, e, got, want)
			}
		}
	}
}
