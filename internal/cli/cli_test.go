package cli

import (
	"bytes"
	"errors"
	"fmt"
	"os"
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

// failWriter fails every write after the first n bytes.
type failWriter struct {
	n   int
	err error
}

func (w *failWriter) Write(p []byte) (int, error) {
	if len(p) <= w.n {
		w.n -= len(p)
		return len(p), nil
	}
	n := w.n
	w.n = 0
	return n, w.err
}

// bigCmd writes much more than the output buffer, and returns an error
// that does not wrap the write error it met, as a careless command would.
type bigCmd struct {
	Version VersionFlag
}

func (c *bigCmd) Run(env *Env) error {
	for range 10000 {
		if _, err := fmt.Fprintln(env.Stdout, strings.Repeat("x", 100)); err != nil {
			return fmt.Errorf("wrapped, somehow: %v", err)
		}
	}
	return nil
}

// TestOutputFailure: a failed write, at the first flush or in the middle
// of the run, and of --help or --version, is exit status 1 with one
// message naming standard output; a closed pipe is quiet.
func TestOutputFailure(t *testing.T) {
	enospc := &os.PathError{Op: "write", Path: "/dev/stdout", Err: syscall.ENOSPC}
	tests := []struct {
		name   string
		args   []string
		w      *failWriter
		code   int
		stderr string // its last line
	}{
		{"first write", nil, &failWriter{0, enospc}, 1, "t: writing standard output: no space left on device"},
		{"middle of the run", nil, &failWriter{600 << 10, enospc}, 1, "t: writing standard output: no space left on device"},
		{"closed", nil, &failWriter{0, errClosed{}}, 1, "t: writing standard output: bad file descriptor (it is closed)"},
		{"--version", []string{"--version"}, &failWriter{0, enospc}, 1, "t: writing standard output: no space left on device"},
		{"--help", []string{"--help"}, &failWriter{0, enospc}, 1, "t: writing standard output: no space left on device"},
		{"closed pipe", nil, &failWriter{600 << 10, syscall.EPIPE}, 0, ""},
	}
	for _, tt := range tests {
		var errb bytes.Buffer
		code := Run("t", "test", &bigCmd{}, tt.args, nil, tt.w, &errb)
		lines := strings.Split(strings.TrimSpace(errb.String()), "\n")
		if code != tt.code || lines[len(lines)-1] != tt.stderr || strings.Count(errb.String(), "writing") > 1 {
			t.Errorf("%s: exit %d, stderr %q; want %d, %q", tt.name, code, errb.String(), tt.code, tt.stderr)
		}
	}
	if !errors.Is(errClosed{}, syscall.EBADF) {
		t.Error("a closed standard output is not EBADF")
	}
}
