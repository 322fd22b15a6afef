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
	tests := []struct {
		name   string
		stdin  string
		args   []string
		code   int
		stderr string
	}{
		{"on-CPU and off-CPU", "", []string{u.On, u.Off}, 1, mixed(u.On, u.Off, true)},
		{"off-CPU and on-CPU", "", []string{u.Off, u.On}, 1, mixed(u.Off, u.On, false)},
		{"off-CPU on stdin", u.OffText, []string{u.On, "-"}, 1, mixed(u.On, "<stdin>", true)},
		{"same capture twice", "", []string{u.On, u.On}, 0, ""},
		{"header removed", "", []string{u.On, u.OffBare}, 0, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, stderr, code := run(t, tc.stdin, tc.args...)
			if code != tc.code || stderr != tc.stderr {
				t.Errorf("exit %d, stderr:\n%s\nwant exit %d, stderr:\n%s", code, stderr, tc.code, tc.stderr)
			}
			if (code != 0) != (out == "") {
				t.Errorf("exit %d with %d bytes of output", code, len(out))
			}
		})
	}
}
