package top

import (
	"testing"

	"flamekit/internal/testkit/unitcases"
)

// TestLabels: values print as go tool pprof prints them with -unit
// (two decimals without ".00", rounded as Go rounds, the unit's short
// name), and the unit minimum chooses is pprof's (TestUnitsAsPprof checks
// it against pprof itself on real captures).
func TestLabels(t *testing.T) {
	c := unitcases.Read(t, "testdata/labels.json")
	for _, tt := range c.Labels {
		if got := label(tt.V, tt.From, tt.To); got != tt.Want {
			t.Errorf("label(%v, %q, %q) = %q, want %q", tt.V, tt.From, tt.To, got, tt.Want)
		}
	}
	for _, u := range c.Units {
		if got := outputUnit(Minimum, u.From, u.Vals, u.Total); got != u.Want {
			t.Errorf("outputUnit(%v, total %v, %s) = %q, want %q", u.Vals, u.Total, u.From, got, u.Want)
		}
	}
}
