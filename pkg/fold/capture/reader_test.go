package capture

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"flamekit/pkg/folded"
	"flamekit/pkg/source"
)

// TestReaderOrderAndSkips: a Reader reads its inputs in order as one stream,
// whatever their compression (told by magic bytes: the names lie on
// purpose), and a malformed line is counted with its own file and line.
func TestReaderOrderAndSkips(t *testing.T) {
	a := write(t, "a.txt", gz([]byte("a 1\n")))
	b := write(t, "b.gz", []byte("b 2\nbad\n"))
	c := write(t, "c", gz(foldedText))
	ins, err := source.OpenAll([]string{a, b, c}, source.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ins.Close()
	fs := NewReader(ins, Options{})
	var got []string
	var p folded.Profile
	for rec := range fs.All() {
		if len(got) < 3 {
			got = append(got, fs.Input().Name+":"+string(rec.Stack))
		}
		p.Add(rec)
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

// TestReaderTruncatedGzip: a cut gzip file is an error naming the file.
func TestReaderTruncatedGzip(t *testing.T) {
	data := gz([]byte(strings.Repeat("a;b;c 1\n", 10000)))
	p := write(t, "cut.folded.gz", data[:len(data)/2])
	ins, err := source.OpenAll([]string{p}, source.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ins.Close()
	fs := NewReader(ins, Options{})
	for range fs.All() {
	}
	err = fs.Err()
	if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "truncated") {
		t.Errorf("error = %v, want one naming %s and saying it is truncated", err, p)
	}
}

// BenchmarkReaderPlain reads an uncompressed folded file through a Reader, as
// the commands do; MB/s is input bytes.
func BenchmarkReaderPlain(b *testing.B) {
	path := b.TempDir() + "/in.folded"
	data := []byte(strings.Repeat(string(foldedText), 4))
	if err := os.WriteFile(path, data, 0o644); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		ins, err := source.OpenAll([]string{path}, source.Options{})
		if err != nil {
			b.Fatal(err)
		}
		fs := NewReader(ins, Options{})
		for range fs.All() {
		}
		if fs.Err() != nil {
			b.Fatal(fs.Err())
		}
		ins.Close()
	}
}

// foldedText is a timed folded capture of two stacks.
var foldedText = []byte("# flamekit v1 timed host=\"vm\"\n" + strings.Repeat("main;work;leaf 10309278 @413.417927\nswapper;do_idle 10309278 @413.428210\n", 5000))

func write(t *testing.T, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func gz(b []byte) []byte {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write(b)
	w.Close()
	return buf.Bytes()
}
