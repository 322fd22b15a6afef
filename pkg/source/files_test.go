package source

import (
	"os"
	"strings"
	"testing"

	"flamekit/pkg/folded"
)

// TestFilesOrderAndSkips: Files reads its inputs in order as one stream,
// whatever their compression (told by magic bytes: the names lie on
// purpose), and a malformed line is counted with its own file and line.
func TestFilesOrderAndSkips(t *testing.T) {
	a := write(t, "a.txt", gz([]byte("a 1\n")))
	b := write(t, "b.gz", []byte("b 2\nbad\n"))
	c := write(t, "c", gz(foldedText))
	ins, err := OpenAll([]string{a, b, c}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ins.Close()
	fs := NewFiles(ins, true)
	var got []string
	var p folded.Profile
	for fs.Next() {
		if len(got) < 3 {
			got = append(got, fs.Name()+":"+string(fs.Record().Stack))
		}
		p.Add(fs.Record())
	}
	if err := fs.Err(); err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0] != a+":a" || got[1] != b+":b" || got[2] != c+":main;work;leaf" {
		t.Errorf("records out of order or missing: %q", got)
	}
	if s := fs.Skips(); s.Count != 1 || s.First.File != b || s.First.Line != 2 {
		t.Errorf("skips = %v, want one at %s:2", s, b)
	}
	if p.Total() != 3+10000*10309278 || p.Len() != 4 {
		t.Errorf("total %v over %d stacks", p.Total(), p.Len())
	}
}

// TestFilesTruncatedGzip: a cut gzip file is an error naming the file.
func TestFilesTruncatedGzip(t *testing.T) {
	data := gz([]byte(strings.Repeat("a;b;c 1\n", 10000)))
	p := write(t, "cut.folded.gz", data[:len(data)/2])
	ins, err := OpenAll([]string{p}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ins.Close()
	fs := NewFiles(ins, true)
	for fs.Next() {
	}
	err = fs.Err()
	if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "truncated") {
		t.Errorf("error = %v, want one naming %s and saying it is truncated", err, p)
	}
}

// BenchmarkFilesPlain reads an uncompressed folded file through Files, as
// the commands do; MB/s is input bytes.
func BenchmarkFilesPlain(b *testing.B) {
	path := b.TempDir() + "/in.folded"
	data := []byte(strings.Repeat(string(foldedText), 4))
	if err := os.WriteFile(path, data, 0o644); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		ins, err := OpenAll([]string{path}, Options{})
		if err != nil {
			b.Fatal(err)
		}
		fs := NewFiles(ins, true)
		for fs.Next() {
		}
		if fs.Err() != nil {
			b.Fatal(fs.Err())
		}
		ins.Close()
	}
}
