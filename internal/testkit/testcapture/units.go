package testcapture

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"flamekit/pkg/fold/collapse"
)

// Units are real captures whose counts measure different things, folded
// as stackcollapse folds them and written to files, for the tests of the
// units rule (folded.Units) in every tool.
type Units struct {
	// On is the burst capture's on-CPU samples (cpu-clock periods,
	// nanoseconds), Off the offcpu capture's off-CPU time (--off-cpu,
	// microseconds), OffBare the latter without its metadata lines
	// (grep -v '^#').
	On, Off, OffBare string
	// OnText and OffText are the contents of On and Off.
	OnText, OffText string
}

// UnitFiles writes the Units files to a temporary directory.
func UnitFiles(t testing.TB) Units {
	t.Helper()
	dir := t.TempDir()
	u := Units{OnText: string(Fold(t, "burst")), OffText: string(FoldWith(t, "offcpu", collapse.Options{OffCPU: true}))}
	var bare strings.Builder
	for _, l := range strings.SplitAfter(u.OffText, "\n") {
		if !strings.HasPrefix(l, "#") {
			bare.WriteString(l)
		}
	}
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	u.On, u.Off, u.OffBare = write("on.folded", u.OnText), write("off.folded", u.OffText), write("off-bare.folded", bare.String())
	return u
}

// OnLines is the number of lines of On: Off's first line is line
// OnLines+1 of the two concatenated.
func (u Units) OnLines() int { return strings.Count(u.OnText, "\n") }

// Mixed is the message of cmd (a line of its stderr) for inputs a and b
// whose lines lineA and lineB say on-CPU nanoseconds and off-CPU
// microseconds (onFirst), or the reverse; op is "summed" or "compared".
func Mixed(cmd, op, a string, lineA int, b string, lineB int, onFirst bool) string {
	on, off := "event cpu-clock:pppH: cpu in nanoseconds", "event sched:sched_switch: off-cpu in microseconds"
	if !onFirst {
		on, off = off, on
	}
	advice := "give them apart, one run each"
	if op == "compared" {
		advice = "compare captures of the same event, in the same unit"
	}
	return fmt.Sprintf("%s: %s:%d (%s) and %s:%d (%s) count different things: they cannot be %s; %s\n", cmd, a, lineA, on, b, lineB, off, op, advice)
}

// UnitCase is a case of a tool's units-rule test: its standard input and
// arguments, the exit status and the whole stderr wanted, and Out, the
// output wanted ("": any output on success, none on failure).
type UnitCase struct {
	Name, Stdin string
	Args        []string
	Code        int
	Stderr      string
	Out         string
}

// RunUnitCases runs each case as a subtest through run (the tool's
// command line: exit status, stdout, stderr) and checks what it gave.
func RunUnitCases(t *testing.T, cases []UnitCase, run func(t *testing.T, stdin string, args ...string) (int, string, string)) {
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			code, out, stderr := run(t, tc.Stdin, tc.Args...)
			if code != tc.Code || stderr != tc.Stderr {
				t.Errorf("exit %d, stderr:\n%s\nwant exit %d, stderr:\n%s", code, stderr, tc.Code, tc.Stderr)
			}
			switch {
			case tc.Out != "" && out != tc.Out:
				t.Errorf("wrote %d lines, want %d", strings.Count(out, "\n"), strings.Count(tc.Out, "\n"))
			case tc.Out == "" && (code != 0) != (out == ""):
				t.Errorf("exit %d with %d bytes of output", code, len(out))
			}
		})
	}
}
