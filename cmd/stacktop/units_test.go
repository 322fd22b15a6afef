package main

import (
	"bytes"
	"os"
	"testing"

	"flamekit/internal/testkit/testcapture"
	"flamekit/pkg/tool"
	"flamekit/pkg/tool/timeslice"
)

// pprofOf writes the pprof profile timeslice makes of the folded file in.
func pprofOf(t *testing.T, in string) string {
	t.Helper()
	var out bytes.Buffer
	c := timeslice.Config{Format: "pprof", Rows: 50, Top: 10, Threshold: 3.5, Quiet: true, Files: []string{in}}
	if err := timeslice.Run(c, &tool.Env{Stdout: &out, Warn: func(string) {}}); err != nil {
		t.Fatal(err)
	}
	p := in + ".pb.gz"
	if err := os.WriteFile(p, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestUnitsRule: stacktop sums the counts of its inputs only when they
// measure the same thing (issue 34 item 4: it summed on-CPU ns and
// off-CPU µs): on-CPU and off-CPU files, in either order or concatenated
// into one stream, are refused with exit status 1, naming both files,
// their lines and units, and nothing printed. The same capture twice, and
// an off-CPU stream with its own pprof profile (pprof spells off_cpu), are
// summed. Without the header (grep -v '^#') nothing says the unit: the
// mix is summed, as docs/formats.md says.
func TestUnitsRule(t *testing.T) {
	u := testcapture.UnitFiles(t)
	on, off := u.On, u.Off
	offPprof := pprofOf(t, off)
	mixed := func(a string, lineA int, b string, lineB int, onFirst bool) string {
		return testcapture.Mixed("stacktop", "summed", a, lineA, b, lineB, onFirst)
	}
	tests := []struct {
		name   string
		stdin  string
		args   []string
		code   int
		stderr string
	}{
		{"on-CPU and off-CPU", "", []string{on, off}, 1, mixed(on, 1, off, 1, true)},
		{"off-CPU and on-CPU", "", []string{off, on}, 1, mixed(off, 1, on, 1, false)},
		{"one stream", u.OnText + u.OffText, nil, 1, mixed("<stdin>", 1, "<stdin>", u.OnLines()+1, true)},
		{"on-CPU and off-CPU pprof", "", []string{on, offPprof}, 1, mixed(on, 1, offPprof, 1, true)},
		{"same capture twice", "", []string{on, on}, 0, ""},
		{"off-CPU and its pprof", "", []string{off, offPprof}, 0, "stacktop: " + offPprof + ": folding sample type off_cpu/microseconds of samples, off_cpu (--sample-type picks another)\n"},
		{"header removed", "", []string{on, u.OffBare}, 0, ""},
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
