package e2e

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"flamekit/internal/testkit/golden"
)

// Unix manners of every command: files or stdin, .gz inputs, | head, exit
// statuses, --help and --version.

// inputs makes a directory with the burst capture as text and gzipped,
// and folded files made from it and from before/after.
func inputs(t *testing.T) string {
	t.Helper()
	need(t, "stackcollapse")
	dir := t.TempDir()
	ok(t, dir, fmt.Sprintf(`zcat %q > burst.txt && cp %q burst.txt.gz &&
		stackcollapse burst.txt > timed.folded && gzip -k timed.folded &&
		stackcollapse --no-time burst.txt > classic.folded && gzip -k classic.folded &&
		stackcollapse --no-time %q > before.folded && gzip -k before.folded &&
		stackcollapse --no-time %q > after.folded && gzip -k after.folded`,
		capture("burst"), capture("burst"), capture("before"), capture("after")))
	return dir
}

// TestStdinVersusFiles: a file argument, "-", a redirection (seekable
// stdin) and a pipe (not seekable) give the same bytes.
func TestStdinVersusFiles(t *testing.T) {
	dir := inputs(t)
	tests := []struct {
		tool  string
		forms []string
	}{
		{"stackcollapse", []string{
			"stackcollapse burst.txt",
			"stackcollapse - < burst.txt",
			"stackcollapse < burst.txt",
			"cat burst.txt | stackcollapse",
		}},
		{"stackcollapse", []string{
			"stackcollapse --no-time burst.txt",
			"cat burst.txt | stackcollapse --no-time",
		}},
		{"flamegraph", []string{
			"flamegraph timed.folded",
			"flamegraph - < timed.folded",
			"flamegraph < timed.folded",
			"cat timed.folded | flamegraph",
		}},
		{"flamegraph", []string{
			"flamegraph classic.folded",
			"cat classic.folded | flamegraph",
		}},
		{"timeslice", []string{
			"timeslice --at 14.8s±1 timed.folded",
			"timeslice --at 14.8s±1 - < timed.folded",
			"timeslice --at 14.8s±1 < timed.folded",
			"cat timed.folded | timeslice --at 14.8s±1",
		}},
		{"timeslice", []string{
			"timeslice timed.folded",
			"cat timed.folded | timeslice",
		}},
		{"difffolded", []string{
			"difffolded before.folded after.folded",
			"difffolded - after.folded < before.folded",
			"cat after.folded | difffolded before.folded -",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.forms[0], func(t *testing.T) {
			need(t, tt.tool)
			want := ok(t, dir, tt.forms[0])
			if len(want.stdout) == 0 {
				t.Fatalf("%s wrote nothing", tt.forms[0])
			}
			for _, form := range tt.forms[1:] {
				got := ok(t, dir, form)
				if !bytes.Equal(sourceless(got.stdout), sourceless(want.stdout)) {
					t.Errorf("%q and %q differ:\n%s", form, tt.forms[0], golden.Diff(want.stdout, got.stdout))
				}
			}
		})
	}
}

// TestGzipInputs: gzipped inputs, named or on stdin, read as the plain ones.
func TestGzipInputs(t *testing.T) {
	dir := inputs(t)
	tests := []struct {
		tool        string
		plain, gzip string
	}{
		{"stackcollapse", "stackcollapse burst.txt", "stackcollapse burst.txt.gz"},
		{"stackcollapse", "stackcollapse burst.txt", "stackcollapse < burst.txt.gz"},
		{"stackcollapse", "stackcollapse burst.txt", "cat burst.txt.gz | stackcollapse"},
		{"flamegraph", "flamegraph timed.folded", "flamegraph timed.folded.gz"},
		{"flamegraph", "flamegraph classic.folded", "cat classic.folded.gz | flamegraph"},
		{"timeslice", "timeslice --at 14.8s±1 timed.folded", "timeslice --at 14.8s±1 timed.folded.gz"},
		{"timeslice", "timeslice --at 14.8s±1 timed.folded", "cat timed.folded.gz | timeslice --at 14.8s±1"},
		{"difffolded", "difffolded before.folded after.folded", "difffolded before.folded.gz after.folded.gz"},
		{"difffolded", "difffolded before.folded after.folded", "difffolded before.folded.gz - < after.folded.gz"},
	}
	for _, tt := range tests {
		t.Run(tt.gzip, func(t *testing.T) {
			need(t, tt.tool)
			want := ok(t, dir, tt.plain)
			got := ok(t, dir, tt.gzip)
			if len(want.stdout) == 0 {
				t.Fatalf("%s wrote nothing", tt.plain)
			}
			if !bytes.Equal(sourceless(got.stdout), sourceless(want.stdout)) {
				t.Errorf("%q and %q differ:\n%s", tt.gzip, tt.plain, golden.Diff(want.stdout, got.stdout))
			}
		})
	}
}

var sourceRE = regexp.MustCompile(`(?m)^(# flamekit .*) source="(?:[^"\\]|\\.)*"`)

// sourceless removes the source="NAME" field of metadata lines: it names
// the input (a file, or nothing for stdin), so it rightly differs.
func sourceless(b []byte) []byte {
	return sourceRE.ReplaceAll(b, []byte("$1"))
}

// TestHeadEndsQuietly: cmd | head -1 prints one line, nothing on stderr,
// and the command ends with status 0 or 141 (SIGPIPE), as Unix tools do.
func TestHeadEndsQuietly(t *testing.T) {
	dir := inputs(t)
	// Inputs big enough that the output overflows a pipe buffer (64 KiB).
	ok(t, dir, `for i in 1 2 3 4 5 6 7 8; do cat burst.txt; done > big.txt &&
		stackcollapse big.txt > big.folded &&
		stackcollapse --no-time -pid burst.txt > pid.folded`)
	tests := []struct{ tool, cmd string }{
		{"stackcollapse", "stackcollapse big.txt"},
		{"stackcollapse", "stackcollapse --no-time big.txt"},
		{"flamegraph", "flamegraph big.folded"},
		{"timeslice", "timeslice --keep-time big.folded"},
		// The heat map of a 30 s capture (33 kB) fits in a pipe buffer:
		// it ends normally, and -q keeps its summary off stderr.
		{"timeslice", "timeslice -q --heatmap big.folded"},
		{"difffolded", "difffolded classic.folded big.folded"},
		{"stackcollapse", "perf script | stackcollapse | flamegraph"},
	}
	for _, tt := range tests {
		t.Run(tt.cmd, func(t *testing.T) {
			need(t, tt.tool)
			r := shNoPipefail(t, dir, tt.cmd+" | head -1", fakePerf(capture("burst")))
			if r.code != 0 {
				t.Errorf("pipeline status %d, want 0:\n%s", r.code, r)
			}
			// The capture's own warning (stacks broken by code without
			// frame pointers) is not about the pipe; anything else is.
			for _, l := range strings.Split(strings.TrimSpace(string(r.stderr)), "\n") {
				if l != "" && !strings.Contains(l, "with no symbol") && !strings.Contains(l, "are broken (") {
					t.Errorf("stderr is not empty:\n%s", r.stderr)
					break
				}
			}
			if n := bytes.Count(r.stdout, []byte("\n")); n != 1 {
				t.Errorf("%d lines on stdout, want 1", n)
			}
			f := strings.Fields(r.pipe)
			for _, s := range f[:len(f)-1] {
				if s != "0" && s != "141" {
					t.Errorf("statuses %s: a command before head exited %s, want 0 or 141", r.pipe, s)
				}
			}
		})
	}
}

// TestExitStatus: 2 for usage errors, 1 for unreadable input, and
// flamegraph's 2 with flamegraph.pl's message for empty input.
func TestExitStatus(t *testing.T) {
	dir := inputs(t)
	ok(t, dir, "mkdir adir && touch empty && chmod 000 empty && printf 'x\\n' > unreadable && chmod 000 unreadable")
	root := sh(t, dir, "test -r unreadable").code == 0
	tests := []struct {
		tool, cmd string
		code      int
		stderr    string // must appear on stderr
	}{
		// usage errors
		{"stackcollapse", "stackcollapse --no-such-option burst.txt", 2, "--help"},
		{"flamegraph", "flamegraph --no-such-option timed.folded", 2, "--help"},
		{"difffolded", "difffolded --no-such-option before.folded after.folded", 2, "--help"},
		{"timeslice", "timeslice --no-such-option timed.folded", 2, "--help"},
		{"flamegraph", "flamegraph --width lots timed.folded", 2, "width"},
		{"difffolded", "difffolded before.folded", 2, ""},
		{"difffolded", "difffolded", 2, ""},
		{"timeslice", "timeslice --at 70s± timed.folded", 2, "70s±"},
		{"timeslice", "timeslice --at yesterday timed.folded", 2, "yesterday"},
		{"stackfilter", "stackfilter --no-such-option timed.folded", 2, "--help"},
		{"stackfilter", "stackfilter --focus '(' timed.folded", 2, "--focus"},
		{"stacktop", "stacktop --by file timed.folded", 2, "--help"},
		// unreadable inputs
		{"stackcollapse", "stackcollapse missing.txt", 1, "missing.txt"},
		{"flamegraph", "flamegraph missing.folded", 1, "missing.folded"},
		{"difffolded", "difffolded missing.folded after.folded", 1, "missing.folded"},
		{"difffolded", "difffolded before.folded missing.folded", 1, "missing.folded"},
		{"timeslice", "timeslice --at 10s±1 missing.folded", 1, "missing.folded"},
		{"timeslice", "timeslice missing.folded", 1, "missing.folded"},
		{"stackcollapse", "stackcollapse adir", 1, "adir"},
		{"flamegraph", "flamegraph adir", 1, "adir"},
		{"stackcollapse", "stackcollapse burst.txt missing.txt", 1, "missing.txt"},
		{"stackfilter", "stackfilter timed.folded missing.folded", 1, "missing.folded"},
		{"stackfilter", "stackfilter adir", 1, "adir"},
		{"stacktop", "stacktop missing.folded", 1, "missing.folded"},
		// empty input
		{"flamegraph", "flamegraph < /dev/null", 2, "ERROR: No stack counts found"},
		{"flamegraph", ": | stackcollapse | flamegraph", 2, "ERROR: No stack counts found"},
		{"flamegraph", "stackcollapse < /dev/null | timeslice | flamegraph", 2, "ERROR: No stack counts found"},
		{"stackcollapse", "stackcollapse < /dev/null", 0, ""},
		{"difffolded", "difffolded /dev/null /dev/null", 0, ""},
		{"stackfilter", "stackfilter < /dev/null", 0, ""},
		{"stacktop", "stacktop < /dev/null", 0, "no stacks"},
		// a window on classic input, or outside the capture
		{"timeslice", "timeslice --at 10s±1 classic.folded", -1, "stackcollapse"},
		{"timeslice", "timeslice --at 1h±1 timed.folded", -1, "413."},
	}
	if !root {
		tests = append(tests,
			struct {
				tool, cmd string
				code      int
				stderr    string
			}{"stackcollapse", "stackcollapse unreadable", 1, "unreadable"},
			struct {
				tool, cmd string
				code      int
				stderr    string
			}{"flamegraph", "flamegraph unreadable", 1, "unreadable"})
	}
	for _, tt := range tests {
		t.Run(tt.cmd, func(t *testing.T) {
			need(t, tt.tool)
			r := sh(t, dir, tt.cmd)
			switch {
			case tt.code == -1 && r.code == 0:
				t.Errorf("want a failure:\n%s", r)
			case tt.code >= 0 && r.code != tt.code:
				t.Errorf("want exit status %d:\n%s", tt.code, r)
			}
			if !strings.Contains(string(r.stderr), tt.stderr) {
				t.Errorf("stderr does not mention %q:\n%s", tt.stderr, r.stderr)
			}
			if tt.code > 0 && len(bytes.TrimSpace(r.stderr)) == 0 {
				t.Errorf("exit status %d without a message on stderr", r.code)
			}
			if strings.Contains(string(r.stderr), "panic") || strings.Contains(string(r.stderr), "goroutine") {
				t.Errorf("crashed:\n%s", r.stderr)
			}
		})
	}
	// flamegraph's empty-input SVG is still a valid SVG, as flamegraph.pl's.
	r := sh(t, dir, "flamegraph < /dev/null")
	if need(t, "flamegraph"); r.code == 2 {
		parseSVG(t, r.stdout)
	}
}

// TestHelpAndVersion: --help and --version exit 0 and say something useful.
func TestHelpAndVersion(t *testing.T) {
	for _, tool := range tools {
		t.Run(tool, func(t *testing.T) {
			need(t, tool)
			dir := t.TempDir()
			for _, flag := range []string{"--help", "-h"} {
				r := sh(t, dir, tool+" "+flag)
				if r.code != 0 {
					t.Errorf("%s %s: exit status %d, want 0", tool, flag, r.code)
				}
				help := string(r.stdout) + string(r.stderr)
				for _, want := range []string{"Usage: " + tool, "Examples", "--version"} {
					if !strings.Contains(help, want) {
						t.Errorf("%s %s does not mention %q", tool, flag, want)
					}
				}
				// At least one example line runs the tool in a pipeline or on a file.
				if !strings.Contains(help, "| "+tool) && !strings.Contains(help, "    "+tool+" ") {
					t.Errorf("%s %s: no example using %s", tool, flag, tool)
				}
			}
			r := sh(t, dir, tool+" --version")
			if r.code != 0 || !strings.HasPrefix(string(r.stdout), tool+" (flamekit) ") {
				t.Errorf("%s --version: exit status %d, output %q; want 0 and %q", tool, r.code, r.stdout, tool+" (flamekit) VERSION")
			}
		})
	}
}
