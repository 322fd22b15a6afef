//go:build unix

package safefile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestRefused opens real hostile files: each must be refused at once,
// with a message naming the file and why.
func TestRefused(t *testing.T) {
	dir := t.TempDir()
	p := func(n string) string { return filepath.Join(dir, n) }

	if err := syscall.Mkfifo(p("fifo.map"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", p("zero.map")); err != nil {
		t.Fatal(err)
	}
	// 50 GB, sparse: no disk used, but os.ReadFile would try to allocate it.
	if f, err := os.Create(p("sparse.map")); err != nil {
		t.Fatal(err)
	} else {
		if err := f.Truncate(50 << 30); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	if err := os.WriteFile(p("real.map"), []byte("1000 10 f\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(p("real.map"), p("link.map")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p("shared.map"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p("shared.map"), 0o666); err != nil {
		t.Fatal(err)
	}
	private := Rule{What: "perf map", Private: true}
	if _, err := ReadFile(p("real.map"), private); err != nil {
		t.Fatalf("a private rule refuses a file only its owner may write: %v", err)
	}

	rule := Rule{What: "perf map", Max: 1 << 30, Owners: Trusted(-1)}
	cases := []struct {
		name, path string
		rule       Rule
		want       error
		detail     string
	}{
		{"fifo", p("fifo.map"), rule, ErrNotRegular, "a FIFO"},
		{"symlink to /dev/zero", p("zero.map"), rule, ErrSymlink, ""},
		{"symlink to /dev/zero followed", p("zero.map"), Rule{What: "perf map", FollowSymlink: true}, ErrNotRegular, "a character device"},
		{"/dev/zero itself", "/dev/zero", rule, ErrNotRegular, "a character device"},
		{"sparse 50 GB", p("sparse.map"), rule, ErrTooLarge, "53687091200 bytes"},
		{"symlink to a regular file", p("link.map"), rule, ErrSymlink, ""},
		{"directory", dir, rule, ErrNotRegular, "a directory"},
		{"writable by others", p("shared.map"), private, ErrWritable, "mode 666"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			done := make(chan error, 1)
			go func() {
				_, err := ReadFile(c.path, c.rule)
				done <- err
			}()
			var err error
			select {
			case err = <-done:
			case <-time.After(time.Minute):
				t.Fatal("ReadFile hangs") // a FIFO read would never return
			}
			if !errors.Is(err, c.want) {
				t.Fatalf("err = %v, want %v", err, c.want)
			}
			var e *Error
			if !errors.As(err, &e) || !strings.Contains(err.Error(), c.path) || !strings.Contains(err.Error(), "perf map") {
				t.Fatalf("message %q does not name the file and its kind", err)
			}
			if !strings.Contains(e.Detail, c.detail) {
				t.Fatalf("detail %q, want %q", e.Detail, c.detail)
			}
		})
	}
}

// TestOwner: a map owned by another user is refused unless that user is
// the process's, or --force.
func TestOwner(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("skipped: chown to another uid needs root")
	}
	path := filepath.Join(t.TempDir(), "perf-1.map")
	if err := os.WriteFile(path, []byte("1000 10 f\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(path, 4242, 4242); err != nil {
		t.Fatal(err)
	}
	_, err := ReadFile(path, Rule{What: "perf map", Owners: Trusted(-1)})
	if !errors.Is(err, ErrOwner) || !strings.Contains(err.Error(), "owner uid 4242") || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("another user's map: err = %v", err)
	}
	for _, r := range []Rule{{Owners: Trusted(4242)}, {Owners: Trusted(-1), Force: true}, {}} {
		if data, err := ReadFile(path, r); err != nil || string(data) != "1000 10 f\n" {
			t.Fatalf("rule %+v: %q, %v", r, data, err)
		}
	}
}

// TestRead reads regular files whole, and refuses one a byte over.
func TestRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	want := strings.Repeat("x", 10000)
	if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, max := range []int64{0, 10000, 1 << 20} {
		if got, err := ReadFile(path, Rule{Max: max}); err != nil || string(got) != want {
			t.Fatalf("Max %d: %d bytes, %v", max, len(got), err)
		}
	}
	if _, err := ReadFile(path, Rule{Max: 9999}); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("Max 9999: %v", err)
	}
	if _, err := ReadFile(filepath.Join(t.TempDir(), "none"), Rule{}); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing file: %v", err)
	}
	f, size, err := Open(path, Rule{})
	if err != nil || size != 10000 {
		t.Fatal(size, err)
	}
	f.Close()
}

// TestGrowing: a file that grows past the bound after fstat (a FIFO-like
// trick with /proc files, whose size stat says is 0) is cut at the bound.
func TestGrowing(t *testing.T) {
	// /proc/self/maps: a regular file to stat, of size 0, that reads
	// more than 0 bytes.
	if _, err := os.Stat("/proc/self/maps"); err != nil {
		t.Skip("skipped: no /proc")
	}
	_, err := ReadFile("/proc/self/maps", Rule{Max: 10})
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "grew past 10 bytes") {
		t.Fatalf("err = %v", err)
	}
}

// TestOpenInfo: the size and modification time are the file's, read by
// the open's own checks.
func TestOpenInfo(t *testing.T) {
	p := filepath.Join(t.TempDir(), "entry")
	if err := os.WriteFile(p, []byte("12345"), 0o600); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := os.Chtimes(p, at, at); err != nil {
		t.Fatal(err)
	}
	f, info, err := OpenInfo(p, Rule{What: "entry", Private: true})
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if info.Size != 5 || !info.ModTime.Equal(at) {
		t.Errorf("OpenInfo = %+v, want 5 bytes, %v", info, at)
	}
}
