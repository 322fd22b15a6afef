package flamegraph_test

import (
	"fmt"
	"strings"
	"testing"

	"flamekit/pkg/folded"
	"flamekit/pkg/view/flamegraph"
)

// LayoutChart's rule, case by case: lanes per thread, samples at their own
// times, merged while a thread's consecutive samples share a prefix,
// broken by a gap of more than 1.5 intervals.
func TestLayoutChart(t *testing.T) {
	const ms = folded.Time(1e6)
	s := func(at folded.Time, tid int32, stack string) flamegraph.ChartSample {
		return flamegraph.ChartSample{Time: at * ms, PID: 1, TID: tid, Has: folded.HasPID | folded.HasTID, Stack: stack}
	}
	tests := []struct {
		name    string
		samples []flamegraph.ChartSample
		want    string // name start-end@depth, in ms
	}{
		{"one thread merges", []flamegraph.ChartSample{s(0, 2, "p;a;b"), s(10, 2, "p;a;c"), s(20, 2, "p;a;c")},
			"0-30@0 |p 1/2 0-30@1 |p 0-30@2 |a 0-30@3 |b 0-10@4 |c 10-30@4"},
		{"a gap breaks", []flamegraph.ChartSample{s(0, 2, "p;a"), s(10, 2, "p;a"), s(20, 2, "p;a"), s(50, 2, "p;a")},
			"0-60@0 |p 1/2 0-60@1 |p 0-30@2 |a 0-30@3 |p 50-60@2 |a 50-60@3"},
		{"lanes per thread, busiest first", []flamegraph.ChartSample{s(0, 3, "q;x"), s(5, 2, "p;a"), s(15, 2, "p;a"), s(10, 3, "q;y")},
			"0-25@0 |p 1/2 5-25@1 |p 5-25@2 |a 5-25@3 |q 1/3 0-20@4 |q 0-20@5 |x 0-10@6 |y 10-20@6"},
		{"trailing empty frames dropped", []flamegraph.ChartSample{s(0, 2, "p;a;;"), s(10, 2, "p;a")},
			"0-20@0 |p 1/2 0-20@1 |p 0-20@2 |a 0-20@3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			smp := tt.samples
			// in time order, as ReadRecords gives them
			for i := 1; i < len(smp); i++ {
				for j := i; j > 0 && smp[j].Time < smp[j-1].Time; j-- {
					smp[j], smp[j-1] = smp[j-1], smp[j]
				}
			}
			l := flamegraph.LayoutChart(smp)
			var parts []string
			for _, n := range l.Nodes {
				parts = append(parts, fmt.Sprintf("%s %v-%v@%d", n.Name, n.Start/1e6, n.End/1e6, n.Depth))
			}
			if got := strings.Join(parts, " |"); got != " "+tt.want && got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestChartInterval(t *testing.T) {
	s := func(at folded.Time, tid int32) flamegraph.ChartSample {
		return flamegraph.ChartSample{Time: at, TID: tid, Has: folded.HasTID, Stack: "p;a"}
	}
	for _, tt := range []struct {
		samples []flamegraph.ChartSample
		want    folded.Time
	}{
		{nil, flamegraph.ChartFallbackInterval},
		{[]flamegraph.ChartSample{s(0, 1), s(5, 2)}, flamegraph.ChartFallbackInterval},
		{[]flamegraph.ChartSample{s(0, 1), s(0, 2), s(10, 1), s(12, 2), s(20, 1), s(100, 1)}, 12}, // gaps 10 10 12 80: the upper median
	} {
		if got := flamegraph.ChartInterval(tt.samples); got != tt.want {
			t.Errorf("ChartInterval(%v) = %v, want %v", tt.samples, got, tt.want)
		}
	}
}
