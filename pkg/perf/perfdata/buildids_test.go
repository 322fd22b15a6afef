package perfdata

import (
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// TestBuildIDs: the build-id table of a real capture, read from its
// header, as perf wrote it.
func TestBuildIDs(t *testing.T) {
	in, err := os.Open("testdata/go.data.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	zr, err := gzip.NewReader(in)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "go.data")
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, zr); err != nil {
		t.Fatal(err)
	}
	out.Close()
	ids, err := BuildIDs(path)
	if err != nil {
		t.Fatal(err)
	}
	hex := regexp.MustCompile(`^[0-9a-f]{16,40}$`)
	kernel := false
	for _, b := range ids {
		if !hex.MatchString(b.ID) || b.File == "" {
			t.Errorf("entry %+v", b)
		}
		kernel = kernel || b.Kernel && b.File == "[kernel.kallsyms]"
	}
	if len(ids) < 2 || !kernel {
		t.Errorf("%d entries, kernel %v: %+v", len(ids), kernel, ids)
	}
	if _, err := BuildIDs("testdata/go.data.gz"); err == nil {
		t.Errorf("a gzipped file read as perf.data")
	}
}
