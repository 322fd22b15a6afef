package main

import (
	"testing"

	"flamekit/internal/testkit/testcapture"
)

// TestUnitsRule: difffolded compares two inputs only when their counts
// measure the same thing (issue 34 item 4: it compared on-CPU ns with
// off-CPU µs): refused with exit status 1, naming both files, their lines
// and units, and nothing written. The same capture twice is compared;
// without the header (grep -v '^#') nothing says the unit, and the mix
// is compared, as docs/formats.md says.
func TestUnitsRule(t *testing.T) {
	u := testcapture.UnitFiles(t)
	mixed := func(a, b string, onFirst bool) string {
		return testcapture.Mixed("difffolded", "compared", a, 1, b, 1, onFirst)
	}
	tests := []testcapture.UnitCase{
		{Name: "on-CPU and off-CPU", Args: []string{u.On, u.Off}, Code: 1, Stderr: mixed(u.On, u.Off, true)},
		{Name: "off-CPU and on-CPU", Args: []string{u.Off, u.On}, Code: 1, Stderr: mixed(u.Off, u.On, false)},
		{Name: "off-CPU on stdin", Stdin: u.OffText, Args: []string{u.On, "-"}, Code: 1, Stderr: mixed(u.On, "<stdin>", true)},
		{Name: "same capture twice", Args: []string{u.On, u.On}},
		{Name: "header removed", Args: []string{u.On, u.OffBare}},
	}
	testcapture.RunUnitCases(t, tests, func(t *testing.T, stdin string, args ...string) (int, string, string) {
		out, stderr, code := run(t, stdin, args...)
		return code, out, stderr
	})
}
