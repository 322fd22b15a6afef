package svg

import (
	"bytes"
	"iter"
	"testing"

	"flamekit/internal/testkit/golden"
	"flamekit/internal/testkit/testcapture"
	"flamekit/pkg/folded"
	"flamekit/pkg/view/flamegraph"
)

// TestChartGolden draws the flame chart of a real capture's 2 s (the
// burst, 13.8 s to 15.8 s after its first sample, as the explorer's
// chart tests select it) as flamegraph --flamechart does: its lanes and
// its time axis. -update rewrites the golden.
func TestChartGolden(t *testing.T) {
	text := testcapture.Fold(t, "burst")
	recs := func(yield func(*folded.Record) bool) {
		rd := folded.NewReader(bytes.NewReader(text), "burst")
		var first folded.Time
		seen := false
		for rd.Next() {
			r := rd.Record()
			if r.Kind != folded.Timed {
				continue
			}
			if !seen {
				first, seen = r.Time, true
			}
			if at := r.Time - first; at >= 13_800_000_000 && at < 15_800_000_000 && !yield(r) {
				return
			}
		}
		if err := rd.Err(); err != nil {
			t.Fatal(err)
		}
	}
	in := flamegraph.ReadRecords(iter.Seq[*folded.Record](recs), 0, true, flamegraph.Rewrite{}, nil)
	if !in.Timed || !in.Layout.Timed {
		t.Fatalf("the burst's timed lines made no timed chart")
	}
	o := DefaultOptions()
	o.Flamechart, o.CountName = true, "ns"
	var buf bytes.Buffer
	if err := Render(&buf, in.Layout, &o); err != nil {
		t.Fatal(err)
	}
	if n := len(timeAxisLabelRE.FindAll(buf.Bytes(), -1)); n < 10 {
		t.Errorf("%d labels on the time axis of 2 s", n)
	}
	golden.Check(t, "testdata/chart/burst-2s.flamechart.svg.gz", buf.Bytes())
}
