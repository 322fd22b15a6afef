package main

import (
	"strings"
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
	tests := []struct {
		name   string
		stdin  string
		args   []string
		code   int
		stderr string
		out    string // what was written: the first input's lines
	}{
		{"on-CPU and off-CPU", "", []string{u.On, u.Off}, 1, mixed(u.On, 1, u.Off, 1, true), u.OnText},
		{"off-CPU and on-CPU", "", []string{u.Off, u.On}, 1, mixed(u.Off, 1, u.On, 1, false), u.OffText},
		{"one stream", u.OnText + u.OffText, nil, 1, mixed("<stdin>", 1, "<stdin>", u.OnLines()+1, true), u.OnText},
		{"same capture twice", "", []string{u.On, u.On}, 0, "", u.OnText + u.OnText},
		{"header removed", "", []string{u.On, u.OffBare}, 0, "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, stderr, code := run(t, tc.stdin, tc.args...)
			if code != tc.code || stderr != tc.stderr {
				t.Errorf("exit %d, stderr:\n%s\nwant exit %d, stderr:\n%s", code, stderr, tc.code, tc.stderr)
			}
			if tc.out != "" && out != tc.out {
				t.Errorf("wrote %d lines, want %d", strings.Count(out, "\n"), strings.Count(tc.out, "\n"))
			}
			if strings.Contains(out, "off-cpu") && strings.Contains(out, "cpu-clock") {
				t.Errorf("wrote both inputs' metadata")
			}
		})
	}
}
