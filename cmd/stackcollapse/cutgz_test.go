package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCutGzipReadsAsCutFile: a perf.data.gz cut off (a copy interrupted)
// gives every complete record of what it holds, as the same cut of the
// uncompressed file does, and says it is cut; it used to give 0 samples
// and exit status 1. A real capture (go.data) gzipped, cut at 8 places.
func TestCutGzipReadsAsCutFile(t *testing.T) {
	raw, err := os.ReadFile("../../pkg/perf/perfdata/testdata/go.data.gz")
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.NoCompression) // cuts land anywhere in the content
	zw.Write(data)
	zw.Close()
	dir := t.TempDir()
	for i := 1; i <= 8; i++ {
		cut := gz.Bytes()[:gz.Len()*i/9]
		gzName := filepath.Join(dir, "cut.data.gz")
		os.WriteFile(gzName, cut, 0o644)
		// What gzip gives of the cut, uncompressed and cut the same.
		zr, err := gzip.NewReader(bytes.NewReader(cut))
		if err != nil {
			t.Fatal(err)
		}
		held, _ := io.ReadAll(zr)
		plainName := filepath.Join(dir, "cut.data")
		os.WriteFile(plainName, held, 0o644)

		code, fromGz, stderr := run(t, nil, "--no-time", gzName)
		_, fromPlain, _ := run(t, nil, "--no-time", plainName)
		if code != 0 || fromGz != fromPlain || fromPlain == "" || !strings.Contains(stderr, "gzip data is truncated") {
			t.Errorf("cut at %d of %d bytes: exit %d, %d bytes of output, want the %d of the same cut uncompressed:\n%s",
				len(cut), gz.Len(), code, len(fromGz), len(fromPlain), stderr)
		}
	}
}
