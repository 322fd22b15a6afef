package main

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	gold "flamekit/internal/testkit/golden"
)

// TestPerfDataDateOfCopies: a perf.data read from a copy (gzipped, or on
// standard input) is dated as the capture, never by the copy. A real
// capture (go.data: 1 s of a Go program, perf record -F 997 -g, no -k)
// is written as perf left it (its date, 02:15:50, the file's time), then
// gzipped keeping that date in the gzip header, and gzipped with -n (no
// date), and piped: the first two place a wall-clock window where the
// file does, the others refuse wall-clock windows (they used to cut a
// window at the time of reading, hours off, "about ±1 s").
func TestPerfDataDateOfCopies(t *testing.T) {
	utc(t)
	raw, err := gold.Read("../../pkg/perf/perfdata/testdata/go.data.gz")
	if err != nil {
		t.Fatal(err)
	}
	date := time.Date(2026, 11, 28, 2, 15, 50, 0, time.UTC)
	dir := t.TempDir()
	file := filepath.Join(dir, "go.data")
	if err := os.WriteFile(file, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(file, date, date); err != nil {
		t.Fatal(err)
	}
	gzipped := func(name string, mod time.Time) string {
		var b bytes.Buffer
		w := gzip.NewWriter(&b)
		w.ModTime = mod
		w.Write(raw)
		w.Close()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return p // its own time is now: not the capture's
	}
	dated := gzipped("dated.data.gz", date)
	undated := gzipped("undated.data.gz", time.Time{})
	window := []string{"--at", "2026-11-28T02:15:50Z±1"}

	code, want, stderr := run(t, "", append(window, file)...)
	if code != 0 || samples(t, stderr) == 0 {
		t.Fatalf("the file itself: exit %d, %s", code, stderr)
	}
	if code, got, stderr := run(t, "", append(window, dated)...); code != 0 || got != want {
		t.Errorf("gzip with the date in its header: exit %d, %s", code, stderr)
	}
	gz, _ := os.ReadFile(dated)
	if code, got, stderr := run(t, string(gz), append(window, "-")...); code != 0 || got != want {
		t.Errorf("the same on standard input: exit %d, %s", code, stderr)
	}
	for _, tc := range []struct{ name, stdin, arg string }{
		{"gzip -n", "", undated},
		{"standard input", string(raw), "-"},
	} {
		code, _, stderr := run(t, tc.stdin, append(window, tc.arg)...)
		if code == 0 || !strings.Contains(stderr, "cannot place wall-clock time") {
			t.Errorf("%s: exit %d, want a refusal: %s", tc.name, code, stderr)
		}
		// Windows on perf's clock or from the first sample still work.
		if code, _, stderr := run(t, tc.stdin, "--at", "0.5s±0.5", tc.arg); code != 0 || samples(t, stderr) == 0 {
			t.Errorf("%s: relative window: exit %d, %s", tc.name, code, stderr)
		}
	}
}
