package bursts

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"flamekit/pkg/folded"
	"flamekit/pkg/timeline"
)

// A series made of a timeline (SeriesOf) finds what a series fed the same
// samples finds, by rate and by composition and whatever the measure: the
// samples the filter leaves out (idle ones) count as covered, as Cover
// does. It is made of timelines whose cells make bins of 100 ms only, and
// takes no more samples.
func TestSeriesOf(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	fed := NewSeries(origin, 0)
	b := timeline.NewBuilder(timeline.Options{Rows: 50, Origin: origin, HasOrigin: true})
	b.Input("in", "", 0)
	rec := folded.Record{Kind: folded.Timed, Has: folded.HasCPU | folded.HasTID}
	for i := 0; i < 30000; i++ {
		tm := 0.5 + rng.Float64()*300
		stack := fmt.Sprintf("p%d;f%d;g%d", rng.IntN(5), rng.IntN(4), rng.IntN(20))
		switch {
		case rng.IntN(3) == 0:
			stack = "idle;cpu_idle"
		case tm >= 150 && tm < 152 && rng.IntN(2) == 0:
			stack = fmt.Sprintf("spike;s%d", rng.IntN(3))
		case tm >= 200 && tm < 201:
			stack = fmt.Sprintf("p1;f%d;g%d", rng.IntN(4), rng.IntN(20)) // p1 takes over
		}
		rec.Time, rec.Count, rec.Stack = at(tm), float64(1+rng.IntN(3)), []byte(stack)
		rec.CPU, rec.TID = int32(rng.IntN(4)), int32(rng.IntN(50))
		if strings.HasPrefix(stack, "idle;") {
			fed.Cover(rec.Time)
		} else {
			fed.AddStack(rec.Time, rec.Count, rec.Stack)
		}
		if err := b.Add(&rec); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 1500; i++ { // the rate burst
		tm := 100 + rng.Float64()*2
		stack := fmt.Sprintf("p%d;f%d;g%d", rng.IntN(5), rng.IntN(4), rng.IntN(20))
		rec.Time, rec.Count, rec.Stack = at(tm), float64(1+rng.IntN(3)), []byte(stack)
		fed.AddStack(rec.Time, rec.Count, rec.Stack)
		if err := b.Add(&rec); err != nil {
			t.Fatal(err)
		}
	}
	tl := b.Build()
	busy := func(e *timeline.Entry) bool { return tl.Frames[tl.Comm(e.Stack)] != "idle" }
	derived, ok := SeriesOf(tl, busy)
	if !ok {
		t.Fatal("no series of a 50-row timeline")
	}
	if derived.Bins() != DefaultBins || derived.Samples() != fed.Samples() || derived.Weight() != fed.Weight() {
		t.Errorf("%d bins, %d samples, weight %v; want %d, %d, %v", derived.Bins(), derived.Samples(), derived.Weight(), DefaultBins, fed.Samples(), fed.Weight())
	}
	kinds := Kind(0)
	for _, m := range []Measure{Auto, Samples, Weight} {
		want := fed.Find(Options{Measure: m, Max: -1})
		if got := derived.Find(Options{Measure: m, Max: -1}); !reflect.DeepEqual(got, want) {
			t.Errorf("%v: the timeline's series finds\n%+v\nwant\n%+v", m, got, want)
		}
		for _, br := range want.Bursts {
			kinds |= br.Kind
		}
	}
	if kinds != Rate|Composition {
		t.Errorf("bursts of kinds %v: want both rate and composition found", kinds)
	}
	if derived.Resolve(Auto) != Weight {
		t.Errorf("counts of 1 to 3 resolve Auto to %v", derived.Resolve(Auto))
	}
	derived.AddStack(at(10), 1, []byte("p0;x"))
	if derived.Err() == nil {
		t.Error("a series of a timeline took a sample")
	}
	for _, tt := range []struct {
		rows int
		ok   bool
	}{{50, true}, {1000, true}, {20, true}, {10, true}, {7, false}, {25, false}, {1, false}} {
		tb := timeline.NewBuilder(timeline.Options{Rows: tt.rows, Origin: origin, HasOrigin: true})
		rec.Time, rec.Stack = at(1), []byte("p0;x")
		tb.Add(&rec)
		s, ok := SeriesOf(tb.Build(), nil)
		if ok != tt.ok || ok && s.Bins() != DefaultBins {
			t.Errorf("%d rows: made %t, want %t (bins of 100 ms)", tt.rows, ok, tt.ok)
		}
	}
}
