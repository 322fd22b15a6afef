package source

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"flamekit/pkg/source/decompress"

	"github.com/klauspost/compress/zstd"
)

// folded is a few timed lines, long enough to span many reads.
var foldedText = []byte("# flamekit v1 timed host=\"vm\"\n" + strings.Repeat("main;work;leaf 10309278 @413.417927\nswapper;do_idle 10309278 @413.428210\n", 5000))

func zst(t *testing.T, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw, err := zstd.NewWriter(&buf)
	if err != nil {
		t.Fatal(err)
	}
	zw.Write(b)
	zw.Close()
	return buf.Bytes()
}

func readAll(t *testing.T, in *Input) []byte {
	t.Helper()
	rc, err := in.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func write(t *testing.T, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestFiles: a regular file, plain, gzipped or zstd (the names lie on
// purpose), is read whole as often as wanted.
func TestFiles(t *testing.T) {
	for _, c := range []struct {
		name   string
		data   []byte
		method decompress.Method
	}{
		{"plain.gz", foldedText, decompress.None},
		{"gzipped.txt", gz(foldedText), decompress.Gzip},
		{"zstd.gz", zst(t, foldedText), decompress.Zstd},
		{"gzip of two members", append(gz(foldedText[:1000]), gz(foldedText[1000:])...), decompress.Gzip},
	} {
		t.Run(c.name, func(t *testing.T) {
			in, err := Open(write(t, c.name, c.data), Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer in.Close()
			if in.Kind != Folded || in.Stream || in.Method != c.method || len(in.Head) != KeptHead || !in.Text || in.Complete {
				t.Errorf("kind %v stream %v method %q head %d complete %v", in.Kind, in.Stream, in.Method, len(in.Head), in.Complete)
			}
			for i := range 2 {
				if got := readAll(t, in); !bytes.Equal(got, foldedText) {
					t.Fatalf("read %d: %d bytes, want %d", i, len(got), len(foldedText))
				}
			}
		})
	}
}

// TestStreamOnce: a stream is read once, from its start: what was sniffed
// is not lost, and a second read is an error that says why.
func TestStreamOnce(t *testing.T) {
	in, err := OpenReader("pipe", bytes.NewReader(gz(foldedText)), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !in.Stream || in.Kind != Folded || in.Method != decompress.Gzip {
		t.Errorf("stream %v kind %v method %v", in.Stream, in.Kind, in.Method)
	}
	if got := readAll(t, in); !bytes.Equal(got, foldedText) {
		t.Fatalf("%d bytes, want %d", len(got), len(foldedText))
	}
	if _, err := in.Open(); err == nil || !strings.Contains(err.Error(), "pipe can be read only once") {
		t.Errorf("second read: %v", err)
	}
}

// TestStreamKeep: a stream kept is copied (as it came: compressed) as it
// is read, read again from the copy, and the copy is removed by Close.
func TestStreamKeep(t *testing.T) {
	dir := t.TempDir()
	raw := gz(foldedText)
	in, err := Open("-", Options{Stdin: bytes.NewReader(raw), TempDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if in.Display != "<stdin>" {
		t.Errorf("display %q", in.Display)
	}
	in.Keep()
	for i := range 3 {
		if got := readAll(t, in); !bytes.Equal(got, foldedText) {
			t.Fatalf("read %d: %d bytes, want %d", i, len(got), len(foldedText))
		}
	}
	// The copy has no name in dir from the start (it is unlinked as
	// soon as it is made): a run killed now leaves nothing behind.
	if left, _ := filepath.Glob(filepath.Join(dir, "*")); len(left) != 0 {
		t.Errorf("copies with a name while open: %v", left)
	}
	if b, _ := os.ReadFile(in.spool.path); !bytes.Equal(b, raw) {
		t.Errorf("the copy holds %d bytes, want the %d of the stream", len(b), len(raw))
	}
	if err := in.Close(); err != nil {
		t.Fatal(err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*")); len(left) != 0 {
		t.Errorf("left after Close: %v", left)
	}
}

// TestStreamKeepStopped: a first read that stops early leaves a copy that
// is not read as if it were whole.
func TestStreamKeepStopped(t *testing.T) {
	in, err := OpenReader("pipe", bytes.NewReader(foldedText), Options{TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	in.Keep()
	rc, err := in.Open()
	if err != nil {
		t.Fatal(err)
	}
	io.ReadFull(rc, make([]byte, 100))
	rc.Close()
	if _, err := in.Open(); err == nil || !strings.Contains(err.Error(), "incomplete") {
		t.Errorf("second read: %v", err)
	}
}

// TestStreamSpool: a stream spooled is copied whole at once and reads
// as a file from then on: read again and again, its uncompressed copy
// the Path of a reader at offsets; one read before is an error.
func TestStreamSpool(t *testing.T) {
	for _, tc := range []struct {
		name string
		raw  []byte
	}{{"plain", foldedText}, {"gzip", gz(foldedText)}} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			src := bytes.NewReader(tc.raw)
			in, err := OpenReader("pipe", src, Options{TempDir: dir})
			if err != nil {
				t.Fatal(err)
			}
			defer in.Close()
			if in.Rereadable() {
				t.Fatal("a stream not copied says it can be read again")
			}
			if err := in.Spool(); err != nil {
				t.Fatal(err)
			}
			if !in.Rereadable() || src.Len() != 0 {
				t.Fatalf("spooled: rereadable %v, %d bytes of the stream left", in.Rereadable(), src.Len())
			}
			if err := in.Spool(); err != nil {
				t.Fatalf("a second Spool: %v", err)
			}
			for i := range 2 {
				if got := readAll(t, in); !bytes.Equal(got, foldedText) {
					t.Fatalf("read %d: %d bytes, want %d", i, len(got), len(foldedText))
				}
			}
			p, err := in.Path()
			if err != nil {
				t.Fatal(err)
			}
			if b, _ := os.ReadFile(p); !bytes.Equal(b, foldedText) {
				t.Errorf("Path holds %d bytes, want the %d of the content", len(b), len(foldedText))
			}
			if copies, _ := filepath.Glob(filepath.Join(dir, "*")); len(copies) != 0 {
				t.Errorf("copies with a name: %v, want none (unlinked when made)", copies)
			}
		})
	}
	in, err := OpenReader("pipe", bytes.NewReader(foldedText), Options{TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	readAll(t, in)
	if err := in.Spool(); err == nil || !strings.Contains(err.Error(), "read only once") {
		t.Errorf("Spool after a read: %v", err)
	}
}

// TestRemoveTemps: without /proc, the copies keep their names while
// open, and what a signal handler calls removes them all.
func TestRemoveTemps(t *testing.T) {
	defer func(p string) { procFD = p; temps.closing = false }(procFD)
	procFD = "/nonexistent/%d/%d"
	dir := t.TempDir()
	copied(t, dir)
	if n, _ := filepath.Glob(filepath.Join(dir, "*")); len(n) != 2 {
		t.Fatalf("temporary files: %v, want the copy and the decompressed copy", n)
	}
	RemoveTemps()
	if n, _ := filepath.Glob(filepath.Join(dir, "*")); len(n) != 0 {
		t.Errorf("left: %v", n)
	}
}

// copied opens a gzipped stream, kept, with its temporary files in dir:
// read whole, the copy of the stream, and by Path a decompressed copy.
func copied(t *testing.T, dir string) *Input {
	t.Helper()
	in, err := OpenReader("pipe", bytes.NewReader(gz(foldedText)), Options{TempDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	in.Keep()
	readAll(t, in)
	if _, err := in.Path(); err != nil {
		t.Fatal(err)
	}
	return in
}

// TestOnNamedTemp: the OnNamedTemp function runs once, before the first
// copy that keeps its name exists, and never where /proc unlinks them.
func TestOnNamedTemp(t *testing.T) {
	defer func(p string) { procFD = p; temps.closing = false; OnNamedTemp(nil) }(procFD)
	for _, proc := range []bool{true, false} {
		dir := t.TempDir()
		calls, before := 0, -1
		OnNamedTemp(func() {
			calls++
			n, _ := filepath.Glob(filepath.Join(dir, "*"))
			before = len(n)
		})
		if !proc {
			procFD = "/nonexistent/%d/%d"
		}
		copied(t, dir).Close()
		want := 1
		if proc {
			want = 0
		}
		if calls != want || (calls == 1 && before != 0) {
			t.Errorf("/proc %v: called %d times, with %d files made before, want %d times, before any", proc, calls, before, want)
		}
	}
}

// TestFIFO: a FIFO named by path is a stream: read once, nothing lost.
func TestFIFO(t *testing.T) {
	p := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	data := gz(foldedText)
	done := make(chan error, 1)
	go func() {
		f, err := os.OpenFile(p, os.O_WRONLY, 0)
		if err != nil {
			done <- err
			return
		}
		_, err = f.Write(data)
		f.Close()
		done <- err
	}()
	in, err := Open(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !in.Stream || in.Kind != Folded {
		t.Errorf("stream %v kind %v", in.Stream, in.Kind)
	}
	if got := readAll(t, in); !bytes.Equal(got, foldedText) {
		t.Errorf("%d bytes, want %d", len(got), len(foldedText))
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestPath: a reader at offsets gets a file: the input itself, or a
// decompressed copy, removed by Close.
func TestPath(t *testing.T) {
	plain := write(t, "x.data", []byte("PERFILE2\x68\x00\x00\x00\x00\x00\x00\x00"))
	in, err := Open(plain, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if p, err := in.Path(); p != plain || err != nil || in.Kind != PerfData {
		t.Errorf("plain: %q %v %v", p, err, in.Kind)
	}
	dir := t.TempDir()
	in, err = Open("testdata/perf.data.gz", Options{TempDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	p, err := in.Path()
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); !bytes.HasPrefix(b, []byte("PERFILE2")) {
		t.Errorf("copy %s does not hold the perf.data file", p)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*")); len(left) != 0 {
		t.Errorf("the copy has a name in TMPDIR while open: %v", left)
	}
	if p2, _ := in.Path(); p2 != p {
		t.Errorf("second copy %s", p2)
	}
	in.Close()
	if left, _ := filepath.Glob(filepath.Join(dir, "*")); len(left) != 0 {
		t.Errorf("copy left after Close: %v", left)
	}
}

func TestOpenErrors(t *testing.T) {
	if _, err := Open("-", Options{}); !errors.Is(err, ErrNoStdin) {
		t.Errorf(`Open("-"): %v`, err)
	}
	if _, err := Open("/nonexistent/x", Options{}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
	if _, err := Open(t.TempDir(), Options{}); err == nil || !strings.Contains(err.Error(), "directory") {
		t.Errorf("directory: %v", err)
	}
	if _, err := OpenAll([]string{"-", "a", "-"}, Options{Stdin: strings.NewReader("")}); !errors.Is(err, ErrStdinTwice) {
		t.Errorf("- twice: %v", err)
	}
	cut := gz(foldedText)
	cut = cut[:len(cut)/2]
	in, err := Open(write(t, "cut.gz", cut), Options{})
	if err != nil {
		t.Fatal(err)
	}
	rc, _ := in.Open()
	_, err = io.ReadAll(rc)
	if err == nil || !strings.Contains(err.Error(), "gzip data is truncated") {
		t.Errorf("truncated gzip: %v", err)
	}
	if _, err := OpenReader("bad", bytes.NewReader([]byte{0x1f, 0x8b, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9}), Options{}); err == nil || !strings.Contains(err.Error(), "bad: reading the gzip header") {
		t.Errorf("bad gzip header: %v", err)
	}
}

// TestFormatForced: --format wins, and what the content says is kept.
func TestFormatForced(t *testing.T) {
	in, err := Open("testdata/perf.data.gz", Options{Format: PerfScript})
	if err != nil {
		t.Fatal(err)
	}
	if in.Kind != PerfScript || in.Sniffed != PerfData {
		t.Errorf("kind %v sniffed %v", in.Kind, in.Sniffed)
	}
}

// TestModTime: the date of the content is a plain file's, a gzip
// header's (file or stream), and nothing else: not a compressed file's
// own, not a stream's.
func TestModTime(t *testing.T) {
	date := time.Date(2026, 11, 28, 2, 15, 50, 0, time.UTC)
	gzAt := func(mod time.Time) []byte {
		var b bytes.Buffer
		w := gzip.NewWriter(&b)
		w.ModTime = mod
		w.Write(foldedText)
		w.Close()
		return b.Bytes()
	}
	plain := write(t, "plain", foldedText)
	os.Chtimes(plain, date, date)
	undated := write(t, "undated.gz", gzAt(time.Time{}))
	os.Chtimes(undated, date, date) // gzip made it in place, maybe: not known
	for _, tc := range []struct {
		name string
		open func() (*Input, error)
		ok   bool
	}{
		{"plain file", func() (*Input, error) { return Open(plain, Options{}) }, true},
		{"gzip file", func() (*Input, error) { return Open(write(t, "dated.gz", gzAt(date)), Options{}) }, true},
		{"gzip stream", func() (*Input, error) { return Open("-", Options{Stdin: bytes.NewReader(gzAt(date))}) }, true},
		{"gzip -n file", func() (*Input, error) { return Open(undated, Options{}) }, false},
		{"stream", func() (*Input, error) { return Open("-", Options{Stdin: bytes.NewReader(foldedText)}) }, false},
	} {
		in, err := tc.open()
		if err != nil {
			t.Fatal(err)
		}
		got, ok := in.ModTime()
		if ok != tc.ok || ok && !got.Equal(date) {
			t.Errorf("%s: %v %v, want %v %v", tc.name, got, ok, date, tc.ok)
		}
		in.Close()
	}
}
