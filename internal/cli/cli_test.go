package cli

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"syscall"
	"testing"
)

type testCmd struct {
	Pid         bool        `help:"pid"`
	Tid         bool        `help:"tid"`
	Addrs       bool        `help:"addrs"`
	All         bool        `help:"all"`
	Width       int         `default:"1200"`
	Normalize   bool        `short:"n"`
	Strip       bool        `short:"s"`
	EventFilter string      `name:"event-filter"`
	Version     VersionFlag `help:"version"`
	Files       []string    `arg:"" optional:""`

	err error
	got string
}

func (c *testCmd) Run(env *Env) error {
	c.got = fmt.Sprintf("pid=%v tid=%v width=%d n=%v s=%v ev=%q files=%q", c.Pid, c.Tid, c.Width, c.Normalize, c.Strip, c.EventFilter, c.Files)
	fmt.Fprint(env.Stdout, "out")
	return c.err
}

func TestPerlSpellings(t *testing.T) {
	tests := []struct {
		args string
		want string
	}{
		{"--pid a", `pid=true tid=false width=1200 n=false s=false ev="" files=["a"]`},
		{"-pid", `pid=true tid=false width=1200 n=false s=false ev="" files=[]`},
		{"-PID -Tid", `pid=true tid=true width=1200 n=false s=false ev="" files=[]`},
		{"--wid 300", `pid=false tid=false width=300 n=false s=false ev="" files=[]`},
		{"-width=30", `pid=false tid=false width=30 n=false s=false ev="" files=[]`},
		{"-ns x y", `pid=false tid=false width=1200 n=true s=true ev="" files=["x" "y"]`},
		{"-event-filter=task-clock", `pid=false tid=false width=1200 n=false s=false ev="task-clock" files=[]`},
		{"-- -pid", `pid=false tid=false width=1200 n=false s=false ev="" files=["-pid"]`},
		{"-", `pid=false tid=false width=1200 n=false s=false ev="" files=["-"]`},
	}
	for _, tt := range tests {
		cmd := &testCmd{}
		var out, errb bytes.Buffer
		code := Run("t", "test", cmd, strings.Fields(tt.args), nil, &out, &errb)
		if code != 0 || cmd.got != tt.want {
			t.Errorf("%q: exit %d, got %s (stderr %q), want %s", tt.args, code, cmd.got, errb.String(), tt.want)
		}
	}
}

func TestExitStatus(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		err    error
		code   int
		stdout string
		stderr string
	}{
		{"ok", nil, nil, ExitOK, "out", ""},
		{"unknown flag", []string{"--bogus"}, nil, ExitUsage, "", "Try 't --help'"},
		{"ambiguous prefix", []string{"--a"}, nil, ExitUsage, "", "unknown flag"},
		{"bad int", []string{"--width", "30.5"}, nil, ExitUsage, "", "width"},
		{"failure", nil, errors.New("x.folded: no such file"), ExitFailure, "out", "t: x.folded: no such file"},
		{"usage from Run", nil, Usagef("need two files"), ExitUsage, "out", "t: need two files"},
		{"silent status", nil, &ExitError{Code: 2}, 2, "out", ""},
		{"broken pipe is quiet", nil, fmt.Errorf("write: %w", syscall.EPIPE), ExitOK, "out", ""},
		{"version", []string{"--version"}, nil, ExitOK, "t (flamekit) ", ""},
	}
	for _, tt := range tests {
		cmd := &testCmd{err: tt.err}
		var out, errb bytes.Buffer
		code := Run("t", "test", cmd, tt.args, nil, &out, &errb)
		if code != tt.code || !strings.HasPrefix(out.String(), tt.stdout) || !strings.Contains(errb.String(), tt.stderr) || (tt.stderr == "" && errb.Len() > 0) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want %d, %q, %q", tt.name, code, out.String(), errb.String(), tt.code, tt.stdout, tt.stderr)
		}
	}
}
