// Package gotool runs go tool pprof, the oracle of pprof's semantics, for
// the tests that compare flamekit with it: one place that finds the go
// command, skips a test without it, and reports pprof's errors.
package gotool

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

// Pprof runs go tool pprof with args and returns its standard output. The
// test is skipped when go is not on PATH, and fails when pprof fails.
func Pprof(t testing.TB, args ...string) []byte {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not on PATH: cannot run go tool pprof to compare with")
	}
	cmd := exec.Command(goBin, append([]string{"tool", "pprof"}, args...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("go tool pprof %s: %v\n%s", strings.Join(args, " "), err, errb.String())
	}
	return out.Bytes()
}
