package main

import (
	"testing"

	"flamekit/internal/testkit/testcapture"
)

// TestUnitsRule: flamegraph draws the counts of its inputs in one graph
// only when they measure the same thing (issue 34 item 4: it summed
// on-CPU ns and off-CPU µs): refused with exit status 1, naming both
// files, their lines and units, and no SVG written; also as one stream
// and as a flame chart. The same capture twice is drawn; without the
// header (grep -v '^#') nothing says the unit, and the mix is drawn, as
// docs/formats.md says.
func TestUnitsRule(t *testing.T) {
	u := testcapture.UnitFiles(t)
	mixed := func(a string, lineA int, b string, lineB int, onFirst bool) string {
		return testcapture.Mixed("flamegraph", "summed", a, lineA, b, lineB, onFirst)
	}
	tests := []testcapture.UnitCase{
		{Name: "on-CPU and off-CPU", Args: []string{u.On, u.Off}, Code: 1, Stderr: mixed(u.On, 1, u.Off, 1, true)},
		{Name: "off-CPU and on-CPU", Args: []string{u.Off, u.On}, Code: 1, Stderr: mixed(u.Off, 1, u.On, 1, false)},
		{Name: "flame chart", Args: []string{"--flamechart", u.On, u.Off}, Code: 1, Stderr: mixed(u.On, 1, u.Off, 1, true)},
		{Name: "one stream", Stdin: u.OnText + u.OffText, Code: 1, Stderr: mixed("<stdin>", 1, "<stdin>", u.OnLines()+1, true)},
		{Name: "same capture twice", Args: []string{u.On, u.On}},
		{Name: "header removed", Args: []string{u.On, u.OffBare}},
	}
	testcapture.RunUnitCases(t, tests, runStdin)
}
