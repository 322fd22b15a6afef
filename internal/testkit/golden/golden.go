// Package golden compares test output with golden files kept under
// testdata, and rewrites them when the tests run with -update:
//
//	go test ./pkg/folded -run TestX -update
//
// A golden file that is missing is a failure (run with -update to create
// it), never a skip: a test whose committed data is gone must not pass.
// Golden files whose name ends in ".gz" are stored gzipped.
package golden

import (
	"bytes"
	"compress/gzip"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata with the output of the tests")

// Updating reports whether the tests run with -update.
func Updating() bool { return *update }

// Check compares got with the golden file at path. With -update it writes
// got to path instead. On a mismatch it reports the first lines that
// differ, with line numbers.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := Write(path, got); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := Read(path)
	if err != nil {
		t.Fatalf("golden file: %v (run go test with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s (run go test with -update to accept it):\n%s", path, Diff(want, got))
	}
}

// Read returns the content of a golden (or any testdata) file, gunzipped
// when its name ends in ".gz".
func Read(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil || !strings.HasSuffix(path, ".gz") {
		return b, err
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}

// Write writes b to path (gzipped when the name ends in ".gz"), creating
// its directory.
func Write(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if strings.HasSuffix(path, ".gz") {
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		zw.Write(b)
		zw.Close()
		b = buf.Bytes()
	}
	return os.WriteFile(path, b, 0o644)
}

// Diff describes how got differs from want, line by line: up to ten
// differing lines, each with its number and both versions.
func Diff(want, got []byte) string {
	wl := strings.Split(string(want), "\n")
	gl := strings.Split(string(got), "\n")
	var b strings.Builder
	shown := 0
	for i := 0; i < max(len(wl), len(gl)); i++ {
		var w, g string
		hasW, hasG := i < len(wl), i < len(gl)
		if hasW {
			w = wl[i]
		}
		if hasG {
			g = gl[i]
		}
		if hasW && hasG && w == g {
			continue
		}
		if shown == 10 {
			fmt.Fprintf(&b, "... and more\n")
			break
		}
		shown++
		switch {
		case !hasG:
			fmt.Fprintf(&b, "line %d: want %q, got end of output\n", i+1, clip(w))
		case !hasW:
			fmt.Fprintf(&b, "line %d: want end of file, got %q\n", i+1, clip(g))
		default:
			fmt.Fprintf(&b, "line %d:\n  want %q\n  got  %q\n", i+1, clip(w), clip(g))
		}
	}
	fmt.Fprintf(&b, "(want %d lines, got %d)", len(wl), len(gl))
	return b.String()
}

func clip(s string) string {
	if len(s) > 200 {
		return s[:200] + "..."
	}
	return s
}

// MustRead is Read for a test: the file's bytes, gunzipped when it ends
// in .gz; the test fails if it cannot be read.
func MustRead(t testing.TB, path string) []byte {
	t.Helper()
	b, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Gunzip returns the decompressed bytes of gzip data; the test fails if
// they are not gzip.
func Gunzip(t testing.TB, data []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
