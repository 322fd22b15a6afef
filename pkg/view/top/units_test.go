package top

import (
	"encoding/json"
	"os"
	"testing"
)

// labelCases are the cases of testdata/labels.json, shared with the
// explorer page's units.js (its test runs them in Chromium).
type labelCases struct {
	Labels []struct {
		V        float64
		From, To string
		Want     string
	}
	Units []struct {
		Vals  []float64
		Total float64
		From  string
		Want  string
	}
}

// TestLabels: values print as go tool pprof prints them with -unit
// (two decimals without ".00", rounded as Go rounds, the unit's short
// name), and the unit minimum chooses is pprof's (TestUnitsAsPprof checks
// it against pprof itself on real captures).
func TestLabels(t *testing.T) {
	data, err := os.ReadFile("testdata/labels.json")
	if err != nil {
		t.Fatal(err)
	}
	var c labelCases
	if err := json.Unmarshal(data, &c); err != nil {
		t.Fatal(err)
	}
	if len(c.Labels) == 0 || len(c.Units) == 0 {
		t.Fatal("no cases")
	}
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
