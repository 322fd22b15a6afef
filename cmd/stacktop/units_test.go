package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"flamekit/internal/testkit/testcapture"
	"flamekit/pkg/fold/collapse"
	"flamekit/pkg/tool"
	"flamekit/pkg/tool/timeslice"
)

// unitFiles writes real captures folded as stackcollapse folds them: the
// burst capture's on-CPU samples (cpu-clock periods, ns) and the offcpu
// capture's off-CPU time (--off-cpu, µs), and the latter's header
// removed as grep -v '^#' removes it.
func unitFiles(t *testing.T) (on, off, offNoHeader, onText, offText string) {
	t.Helper()
	dir := t.TempDir()
	onText = string(testcapture.Fold(t, "burst"))
	offText = string(testcapture.FoldWith(t, "offcpu", collapse.Options{OffCPU: true}))
	var kept []string
	for _, l := range strings.SplitAfter(offText, "\n") {
		if !strings.HasPrefix(l, "#") {
			kept = append(kept, l)
		}
	}
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	return write("on.folded", onText), write("off.folded", offText), write("off-noheader.folded", strings.Join(kept, "")), onText, offText
}

// mixed is the message of the units rule (folded.Units) for inputs a and
// b, whose first lines say on-CPU ns and off-CPU µs, or the reverse.
func mixed(cmd, a string, lineA int, b string, lineB int, onFirst bool) string {
	on, off := "event cpu-clock:pppH: cpu in nanoseconds", "event sched:sched_switch: off-cpu in microseconds"
	if !onFirst {
		on, off = off, on
	}
	return fmt.Sprintf("%s: %s:%d (%s) and %s:%d (%s) count different things: they cannot be summed; give them apart, one run each\n", cmd, a, lineA, on, b, lineB, off)
}

// pprofOf writes the pprof profile timeslice makes of the folded file in.
func pprofOf(t *testing.T, in string) string {
	t.Helper()
	var out bytes.Buffer
	c := timeslice.Config{Format: "pprof", Measure: "auto", Rows: 50, Top: 10, Threshold: 3.5, Quiet: true, Files: []string{in}}
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
	on, off, offBare, onText, offText := unitFiles(t)
	offPprof := pprofOf(t, off)
	onLines := strings.Count(onText, "\n")
	tests := []struct {
		name   string
		stdin  string
		args   []string
		code   int
		stderr string
	}{
		{"on-CPU and off-CPU", "", []string{on, off}, 1, mixed("stacktop", on, 1, off, 1, true)},
		{"off-CPU and on-CPU", "", []string{off, on}, 1, mixed("stacktop", off, 1, on, 1, false)},
		{"one stream", onText + offText, nil, 1, mixed("stacktop", "<stdin>", 1, "<stdin>", onLines+1, true)},
		{"on-CPU and off-CPU pprof", "", []string{on, offPprof}, 1, mixed("stacktop", on, 1, offPprof, 1, true)},
		{"same capture twice", "", []string{on, on}, 0, ""},
		{"off-CPU and its pprof", "", []string{off, offPprof}, 0, "stacktop: " + offPprof + ": folding sample type off_cpu/microseconds of samples, off_cpu (--sample-type picks another)\n"},
		{"header removed", "", []string{on, offBare}, 0, ""},
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
