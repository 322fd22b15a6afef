package top

import "testing"

// TestLabels: values print as go tool pprof prints them with -unit
// (two decimals without ".00", the unit's short name), and the unit
// minimum chooses is pprof's (TestUnitsAsPprof checks it against pprof
// itself on real captures).
func TestLabels(t *testing.T) {
	tests := []struct {
		v        float64
		from, to string
		want     string
	}{
		{26958761970, "nanoseconds", "s", "26.96s"},
		{51546390, "nanoseconds", "s", "0.05s"},
		{51546390, "nanoseconds", Minimum, "51.55ms"},
		{7743580, "microseconds", "ms", "7743.58ms"},
		{1, "microseconds", "ns", "1000ns"},
		{5400, "seconds", Minimum, "1.50hrs"},
		{1536, "bytes", Minimum, "1.50kB"},
		{3 << 30, "bytes", "MB", "3072MB"},
		{0, "nanoseconds", "s", "0"},
		{-2e9, "nanoseconds", Minimum, "-2s"},
		{4568, "count", Minimum, "4568"},
		{12.5, "count", Minimum, "12.50"},
		{26958761970, "nanoseconds", Raw, "26958761970"},
		{26958761970, "", Minimum, "26958761970"},
	}
	for _, tt := range tests {
		if got := label(tt.v, tt.from, tt.to); got != tt.want {
			t.Errorf("label(%v, %q, %q) = %q, want %q", tt.v, tt.from, tt.to, got, tt.want)
		}
	}
	units := []struct {
		vals       []float64
		total      float64
		from, want string
	}{
		{[]float64{26958761970, 51546390}, 32876287542, "nanoseconds", "s"}, // 100 × 51.5 ms is 5.2 s
		{[]float64{26958761970, 10309278}, 32876287542, "nanoseconds", "s"},
		{[]float64{30927834, 10309278}, 567010290, "nanoseconds", "ms"}, // the total is in ms too
		{[]float64{0}, 0, "nanoseconds", "s"},
		{[]float64{4568}, 4568, "count", Raw},
		{[]float64{5}, 5, "", Raw},
	}
	for _, u := range units {
		if got := outputUnit(Minimum, u.from, u.vals, u.total); got != u.want {
			t.Errorf("outputUnit(%v, total %v, %s) = %q, want %q", u.vals, u.total, u.from, got, u.want)
		}
	}
}
