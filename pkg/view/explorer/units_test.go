package explorer

import (
	"encoding/json"
	"strings"
	"testing"

	"flamekit/internal/testkit/unitcases"
	"flamekit/pkg/timeline"
)

// The page's units (units.js) are stacktop's (pkg/view/top/units.go):
// the shared cases of pkg/view/top/testdata/labels.json give the same
// labels and units in Chromium as in Go, ties rounded as Go rounds them
// (1.125 s is "1.12s"). Raw counts are left out: the page prints them
// with thousands separators.
func TestUnitsSameAsGo(t *testing.T) {
	c := unitcases.Read(t, "../top/testdata/labels.json")
	tl, _, err := readTimeline(strings.NewReader("# flamekit v1 timed\na;b 1 @100.000000 cpu=0\n"), "units", timeline.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b := newBrowser(t, 800, 600)
	b.open(t, "file://"+pageFile(t, "units.html", tl, Options{}))
	var labels []string
	b.Eval(t, `(() => { const cs = `+string(mustJSON(t, c.Labels))+`; return cs.map(c => flamekit.unitLabel(c.V, c.From, c.To)); })()`, &labels)
	checked := 0
	for i, tt := range c.Labels {
		if tt.To == "raw" || tt.From == "" {
			continue
		}
		checked++
		if labels[i] != tt.Want {
			t.Errorf("unitLabel(%v, %q, %q) = %q in the page, %q in Go", tt.V, tt.From, tt.To, labels[i], tt.Want)
		}
	}
	var units []string
	b.Eval(t, `(() => { const cs = `+string(mustJSON(t, c.Units))+`; return cs.map(c => flamekit.outputUnit("minimum", c.From, c.Vals, c.Total)); })()`, &units)
	for i, u := range c.Units {
		if units[i] != u.Want {
			t.Errorf("outputUnit(%v, total %v, %q) = %q in the page, %q in Go", u.Vals, u.Total, u.From, units[i], u.Want)
		}
	}
	if checked < 10 || len(units) != len(c.Units) {
		t.Errorf("%d labels and %d units checked: the table tests little", checked, len(units))
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
