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
	tests := []struct {
		name   string
		stdin  string
		args   []string
		code   int
		stderr string
	}{
		{"on-CPU and off-CPU", "", []string{u.On, u.Off}, 1, mixed(u.On, 1, u.Off, 1, true)},
		{"off-CPU and on-CPU", "", []string{u.Off, u.On}, 1, mixed(u.Off, 1, u.On, 1, false)},
		{"flame chart", "", []string{"--flamechart", u.On, u.Off}, 1, mixed(u.On, 1, u.Off, 1, true)},
		{"one stream", u.OnText + u.OffText, nil, 1, mixed("<stdin>", 1, "<stdin>", u.OnLines()+1, true)},
		{"same capture twice", "", []string{u.On, u.On}, 0, ""},
		{"header removed", "", []string{u.On, u.OffBare}, 0, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, stderr := runStdin(t, tc.stdin, tc.args...)
			if code != tc.code || stderr != tc.stderr {
				t.Errorf("exit %d, stderr:\n%s\nwant exit %d, stderr:\n%s", code, stderr, tc.code, tc.stderr)
			}
			if (code != 0) != (out == "") {
				t.Errorf("exit %d with %d bytes of output", code, len(out))
			}
		})
	}
}
