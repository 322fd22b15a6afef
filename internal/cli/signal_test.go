package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestOnSignals: on SIGTERM the cleanup runs, then the process dies of
// SIGTERM (run in a child process: this test binary).
func TestOnSignals(t *testing.T) {
	if marker := os.Getenv("FLAMEKIT_TEST_SIGNAL_MARKER"); marker != "" {
		onSignals(func() { os.WriteFile(marker, []byte("cleaned"), 0o644) })
		syscall.Kill(os.Getpid(), syscall.SIGTERM)
		time.Sleep(10 * time.Second) // the signal ends the process first
		os.Exit(0)
	}
	marker := filepath.Join(t.TempDir(), "marker")
	cmd := exec.Command(os.Args[0], "-test.run=^TestOnSignals$")
	cmd.Env = append(os.Environ(), "FLAMEKIT_TEST_SIGNAL_MARKER="+marker)
	err := cmd.Run()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGTERM {
		t.Errorf("the child ended with %v, want to die of SIGTERM", err)
	}
	if b, err := os.ReadFile(marker); err != nil || string(b) != "cleaned" {
		t.Errorf("the cleanup did not run: %q, %v", b, err)
	}
}
