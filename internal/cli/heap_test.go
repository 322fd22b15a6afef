package cli

import (
	"os"
	"path/filepath"
	"testing"
)

// TestHeapAhead: huge pages are asked for by the size of the files the
// arguments name (sparse files here), standard input when it is a file,
// not for small inputs, flags or missing files, at least minHeapAhead
// and at most maxHeapAhead.
func TestHeapAhead(t *testing.T) {
	dir := t.TempDir()
	file := func(name string, size int64) string {
		p := filepath.Join(dir, name)
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Truncate(size); err != nil {
			t.Fatal(err)
		}
		f.Close()
		return p
	}
	small := file("small.folded", 1<<20)
	mid := file("mid.data", 10<<20)
	big := file("big.data", 100<<20)
	huge := file("huge.data", 1<<30)
	open := func(p string) *os.File {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	tests := []struct {
		name  string
		args  []string
		stdin *os.File
		want  int
	}{
		{"no input", nil, nil, 0},
		{"small file", []string{small}, nil, 0},
		{"flags and a missing file", []string{"--at", "70s", "-", filepath.Join(dir, "none")}, nil, 0},
		{"big file", []string{"--no-time", big}, nil, 200 << 20},
		{"a 10 MB capture", []string{mid}, nil, minHeapAhead},
		{"small files add up", []string{small, small, small, small, small, small, small, small, small, small, small, small, small, small, small, small, small, small, small, small, small, small, small, small, small, small, small, small, small, small, small, small, small, small, small, small}, nil, 72 << 20},
		{"a directory", []string{dir}, nil, 0},
		{"big standard input", []string{"-"}, open(big), 200 << 20},
		{"small standard input", nil, open(small), 0},
		{"capped", []string{huge}, nil, maxHeapAhead},
	}
	for _, tc := range tests {
		if got := heapAhead(tc.args, tc.stdin); got != tc.want {
			t.Errorf("%s: heapAhead = %d MB, want %d MB", tc.name, got>>20, tc.want>>20)
		}
	}
}
