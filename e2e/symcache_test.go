package e2e

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestSymbolTableCache: stackcollapse keeps the symbol tables it builds
// in $FLAMEKIT_CACHE/symbols; a second run reads them and prints the same
// lines, and writes nothing new.
func TestSymbolTableCache(t *testing.T) {
	need(t, "stackcollapse")
	dir := t.TempDir()
	cache := filepath.Join(dir, "cache")
	link(t, filepath.Join(root, "e2e", "testdata", "record", "window.data.gz"), filepath.Join(dir, "window.data.gz"))
	entries := func() []string {
		names, _ := filepath.Glob(filepath.Join(cache, "symbols", "*.fkst"))
		return names
	}
	first := ok(t, dir, "stackcollapse window.data.gz", "FLAMEKIT_CACHE="+cache)
	made := entries()
	second := ok(t, dir, "stackcollapse window.data.gz", "FLAMEKIT_CACHE="+cache)
	if !bytes.Equal(first.stdout, second.stdout) || len(first.stdout) == 0 {
		t.Fatalf("the run reading the cache printed other lines (%d bytes, first run %d)", len(second.stdout), len(first.stdout))
	}
	off := ok(t, dir, "stackcollapse window.data.gz", "FLAMEKIT_CACHE=off")
	if !bytes.Equal(off.stdout, first.stdout) {
		t.Fatal("with FLAMEKIT_CACHE=off the lines differ")
	}
	if len(made) == 0 {
		t.Skip("no object of the capture has a table worth keeping on this machine (its files are not here)")
	}
	if after := entries(); len(after) != len(made) {
		t.Fatalf("the second run wrote %d entries more; it should have read them", len(after)-len(made))
	}
	for _, e := range made {
		fi, err := os.Stat(e)
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Fatalf("%s: mode %v (%v), want 0600", e, fi.Mode(), err)
		}
	}
}
