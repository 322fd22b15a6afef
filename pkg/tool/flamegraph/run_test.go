package flamegraph

import (
	"errors"
	"strings"
	"testing"

	"flamekit/pkg/svg"
	"flamekit/pkg/tool"
)

// Run is flamegraph without its command line: folded stacks from a
// reader, the SVG on a writer, flamegraph.pl's messages on Stderr.
func TestRun(t *testing.T) {
	var out, errs strings.Builder
	env := &tool.Env{Stdin: strings.NewReader("a;b 5\na;c 3\n"), Stdout: &out, Stderr: &errs}
	if err := Run(Config{Options: svg.DefaultOptions()}, env); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "<title>b (5 samples, 62.50%)</title>") {
		t.Errorf("the SVG does not draw a;b:\n%.500s", out.String())
	}
	if !strings.Contains(errs.String(), "Stack count is low (8)") {
		t.Errorf("stderr %q, want flamegraph.pl's low count message", errs.String())
	}
}

// Input without a stack draws the empty SVG and says so, as flamegraph.pl
// does; two standard inputs are a usage error.
func TestRunEmpty(t *testing.T) {
	var out, errs strings.Builder
	env := &tool.Env{Stdin: strings.NewReader("not a folded line\n"), Stdout: &out, Stderr: &errs}
	err := Run(Config{Options: svg.DefaultOptions()}, env)
	if !errors.Is(err, ErrNoStacks) || !strings.Contains(out.String(), "<svg") ||
		!strings.Contains(errs.String(), "ERROR: No stack counts found") || !strings.Contains(errs.String(), "Ignored 1 lines") {
		t.Errorf("%v; stderr %q", err, errs.String())
	}
	err = Run(Config{Options: svg.DefaultOptions(), Files: []string{"-", "-"}}, env)
	if !errors.As(err, new(*tool.UsageError)) {
		t.Errorf("two standard inputs: %v, want a tool.UsageError", err)
	}
}
