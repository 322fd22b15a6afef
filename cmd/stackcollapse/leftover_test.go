package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMain runs the command itself when the tests start their own binary
// as stackcollapse (FLAMEKIT_AS_COMMAND=1), for the tests of how it ends.
func TestMain(m *testing.M) {
	if os.Getenv("FLAMEKIT_AS_COMMAND") == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

// asCommand returns this test binary run as stackcollapse with args, its
// temporary files in tmp.
func asCommand(t *testing.T, tmp string, args ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Skipf("cannot run the test binary again: %v", err)
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), "FLAMEKIT_AS_COMMAND=1", "TMPDIR="+tmp)
	return cmd
}

// TestNoCopyLeftOnPipeClosed: `stackcollapse x.data.gz | head -1` and
// `cat x.data | stackcollapse - | head -1` end by SIGPIPE, which runs no
// deferred removal: the decompressed copy and the copy of standard input
// must have no name in TMPDIR to begin with.
func TestNoCopyLeftOnPipeClosed(t *testing.T) {
	gz := "../../pkg/perf/perfdata/testdata/go.data.gz"
	for _, tc := range []struct {
		name  string
		args  []string
		stdin string
	}{
		{"gzip file", []string{gz}, ""},
		{"stdin", []string{"-"}, gz},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tmp := t.TempDir()
			cmd := asCommand(t, tmp, tc.args...)
			if tc.stdin != "" {
				f, err := os.Open(tc.stdin)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				cmd.Stdin = f
			}
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			line, err := bufio.NewReader(out).ReadString('\n')
			if err != nil || line == "" {
				t.Fatalf("first line %q: %v", line, err)
			}
			out.Close() // head -1 exits
			cmd.Wait()
			if left, _ := filepath.Glob(filepath.Join(tmp, "*")); len(left) != 0 {
				t.Errorf("left in TMPDIR: %v", left)
			}
		})
	}
}

// TestNoCopyLeftOnSignals: killed while it copies standard input (the
// pipe stays open), by SIGHUP, SIGINT, SIGTERM or even SIGKILL, the
// command leaves nothing in TMPDIR.
func TestNoCopyLeftOnSignals(t *testing.T) {
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		t.Skip("no /proc to see the copy being made")
	}
	for _, sig := range []syscall.Signal{syscall.SIGHUP, syscall.SIGINT, syscall.SIGTERM, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) {
			tmp := t.TempDir()
			cmd := asCommand(t, tmp, "-")
			in, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// More than the head the command sniffs (gzip members of a
			// perf.data, one after another): it starts its copy, and
			// waits for the rest.
			gz, err := os.ReadFile("../../pkg/perf/perfdata/testdata/go.data.gz")
			if err != nil {
				t.Fatal(err)
			}
			go func() {
				for range 8 {
					in.Write(gz)
				}
			}()
			// Wait until the copy is open (the state, not a time bound).
			fds := filepath.Join("/proc", strconv.Itoa(cmd.Process.Pid), "fd")
			for !copyOpen(fds) {
				time.Sleep(10 * time.Millisecond)
			}
			cmd.Process.Signal(sig)
			cmd.Wait()
			in.Close()
			if left, _ := filepath.Glob(filepath.Join(tmp, "*")); len(left) != 0 {
				t.Errorf("left in TMPDIR after %v: %v", sig, left)
			}
		})
	}
}

// copyOpen reports whether a process (its /proc/PID/fd) has a flamekit
// copy open, unlinked.
func copyOpen(fds string) bool {
	ents, _ := os.ReadDir(fds)
	for _, e := range ents {
		if l, _ := os.Readlink(filepath.Join(fds, e.Name())); strings.Contains(l, "/flamekit-") && strings.HasSuffix(l, " (deleted)") {
			return true
		}
	}
	return false
}
