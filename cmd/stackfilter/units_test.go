package main

import (
	"testing"

	"flamekit/internal/testkit/testcapture"
)

// TestUnitsRule: stackfilter writes its inputs as one stream, which every
// reader sums, only when their counts measure the same thing (issue 34
// item 4: it wrote on-CPU ns and off-CPU µs together). It stops at the
// first metadata line that says otherwise, with exit status 1, naming
// both files, their lines and units; what it wrote before that line is
// the first input's filtered lines, and the line itself is not written.
// The same capture twice is copied; without the header (grep -v '^#')
// nothing says the unit, and the mix is copied, as docs/formats.md says.
func TestUnitsRule(t *testing.T) {
	u := testcapture.UnitFiles(t)
	mixed := func(a string, lineA int, b string, lineB int, onFirst bool) string {
		return testcapture.Mixed("stackfilter", "summed", a, lineA, b, lineB, onFirst)
	}
	// Out: what was written, the first input's lines.
	tests := []testcapture.UnitCase{
		{Name: "on-CPU and off-CPU", Args: []string{u.On, u.Off}, Code: 1, Stderr: mixed(u.On, 1, u.Off, 1, true), Out: u.OnText},
		{Name: "off-CPU and on-CPU", Args: []string{u.Off, u.On}, Code: 1, Stderr: mixed(u.Off, 1, u.On, 1, false), Out: u.OffText},
		{Name: "one stream", Stdin: u.OnText + u.OffText, Code: 1, Stderr: mixed("<stdin>", 1, "<stdin>", u.OnLines()+1, true), Out: u.OnText},
		{Name: "same capture twice", Args: []string{u.On, u.On}, Out: u.OnText + u.OnText},
		{Name: "header removed", Args: []string{u.On, u.OffBare}},
	}
	testcapture.RunUnitCases(t, tests, func(t *testing.T, stdin string, args ...string) (int, string, string) {
		out, stderr, code := run(t, stdin, args...)
		return code, out, stderr
	})
}
