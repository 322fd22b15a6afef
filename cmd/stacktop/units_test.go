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
	tests := []testcapture.UnitCase{
		{Name: "on-CPU and off-CPU", Args: []string{on, off}, Code: 1, Stderr: mixed(on, 1, off, 1, true)},
		{Name: "off-CPU and on-CPU", Args: []string{off, on}, Code: 1, Stderr: mixed(off, 1, on, 1, false)},
		{Name: "one stream", Stdin: u.OnText + u.OffText, Code: 1, Stderr: mixed("<stdin>", 1, "<stdin>", u.OnLines()+1, true)},
		{Name: "on-CPU and off-CPU pprof", Args: []string{on, offPprof}, Code: 1, Stderr: mixed(on, 1, offPprof, 1, true)},
		{Name: "same capture twice", Args: []string{on, on}},
		{Name: "off-CPU and its pprof", Args: []string{off, offPprof}, Stderr: "stacktop: " + offPprof + ": folding sample type off_cpu/microseconds of samples, off_cpu (--sample-type picks another)\n"},
		{Name: "header removed", Args: []string{on, u.OffBare}},
	}
	testcapture.RunUnitCases(t, tests, func(t *testing.T, stdin string, args ...string) (int, string, string) {
		out, stderr, code := run(t, stdin, args...)
		return code, out, stderr
	})
}
