package golden

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteReadGzip(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"a.txt", "sub/b.txt.gz"} {
		p := filepath.Join(dir, name)
		if err := Write(p, []byte("x\ny\n")); err != nil {
			t.Fatal(err)
		}
		got, err := Read(p)
		if err != nil || string(got) != "x\ny\n" {
			t.Errorf("%s: read back %q, %v", name, got, err)
		}
	}
}

func TestDiff(t *testing.T) {
	d := Diff([]byte("a\nb\nc"), []byte("a\nB\nc\nd"))
	for _, want := range []string{"line 2:", `want "b"`, `got  "B"`, "line 4: want end of file", "want 3 lines, got 4"} {
		if !strings.Contains(d, want) {
			t.Errorf("Diff is missing %q:\n%s", want, d)
		}
	}
}

func TestMissingFails(t *testing.T) {
	ft := &fakeT{TB: t}
	Check(ft, filepath.Join(t.TempDir(), "missing.golden"), []byte("x"))
	if !ft.failed || !strings.Contains(ft.msg, "-update") {
		t.Errorf("a missing golden file did not fail with a hint: failed=%v %q", ft.failed, ft.msg)
	}
}

type fakeT struct {
	testing.TB
	failed bool
	msg    string
}

func (f *fakeT) Helper() {}
func (f *fakeT) Fatalf(format string, args ...any) {
	f.failed = true
	f.msg = format
}
func (f *fakeT) Errorf(format string, args ...any) { f.failed = true; f.msg = format }
