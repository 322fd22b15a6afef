package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"flamekit/internal/testkit/clitest"
	"flamekit/internal/testkit/golden"
	"flamekit/pkg/fold/capture"
	"flamekit/pkg/folded"
	"flamekit/pkg/source"
	"flamekit/pkg/view/difffolded"
)

// run runs the difffolded command line and returns stdout, stderr and the
// exit status.
func run(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	code, out, errs := clitest.Run(t, "difffolded", description, &command{}, stdin, args...)
	return out, errs, code
}

// perlOutput reads a difffolded.pl output (sorted) and drops the " 0 0"
// line Perl writes for blank and malformed lines: flamekit reports and
// skips them instead (a deliberate difference).
func perlOutput(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Replace(string(b), " 0 0\n", "", 1)
}

// TestMatchesPerl compares with difffolded.pl's output, sorted, on the
// FlameGraph fixtures and on two real captures, with every option.
func TestMatchesPerl(t *testing.T) {
	for _, set := range []struct{ prefix, before, after string }{
		{"perl-fixture", "f1.folded", "f2.folded"},
		{"perl-capture", "capture-before.folded", "capture-after.folded"},
	} {
		for _, opt := range []string{"", "-n", "-s", "-ns"} {
			t.Run(set.prefix+opt, func(t *testing.T) {
				args := []string{filepath.Join("testdata", set.before), filepath.Join("testdata", set.after)}
				if opt != "" {
					args = append([]string{opt}, args...)
				}
				out, _, code := run(t, "", args...)
				if code != 0 {
					t.Fatalf("exit status %d", code)
				}
				if want := perlOutput(t, set.prefix+opt+".sorted.txt"); out != want {
					t.Errorf("output differs from difffolded.pl\ngot:\n%s\nwant:\n%s", out, want)
				}
			})
		}
	}
}

func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good")
	bad := filepath.Join(dir, "bad")
	empty := filepath.Join(dir, "empty")
	os.WriteFile(good, []byte("a 1\n"), 0o644)
	os.WriteFile(bad, []byte("a 2\n\ngarbage\nb 1 2\n"), 0o644)
	os.WriteFile(empty, nil, 0o644)

	out, errs, code := run(t, "", good, bad)
	if code != 0 || out != "a 1 2\nb 0 2\n" {
		t.Errorf("got %q, exit %d", out, code)
	}
	for _, want := range []string{"skipped 2 malformed lines", bad + ":2", "already differential"} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr %q does not contain %q", errs, want)
		}
	}

	if _, errs, code := run(t, "", "-n", empty, good); code != 1 || !strings.Contains(errs, "no samples") {
		t.Errorf("-n with an empty first profile: exit %d, stderr %q; want 1 and a message", code, errs)
	}
	if _, errs, code := run(t, "", good, filepath.Join(dir, "missing")); code != 1 || !strings.Contains(errs, "missing") {
		t.Errorf("missing file: exit %d, stderr %q; want 1 naming the file", code, errs)
	}
	if _, _, code := run(t, "", good); code != 2 {
		t.Errorf("one argument: exit %d, want 2", code)
	}
	if _, _, code := run(t, "", "-", "-"); code != 2 {
		t.Errorf("stdin twice: exit %d, want 2", code)
	}
	if out, _, code := run(t, "a 4\n", good, "-"); code != 0 || out != "a 1 4\n" {
		t.Errorf("stdin as second profile: %q, exit %d", out, code)
	}
}

// TestFlamegraphReadsOutput checks that the output reads back as
// differential folded lines with the same totals.
func TestFlamegraphReadsOutput(t *testing.T) {
	out, _, _ := run(t, "", "testdata/capture-before.folded", "testdata/capture-after.folded")
	rd := folded.NewReader(strings.NewReader(out), "out")
	var p folded.Profile
	for rd.Next() {
		if rd.Record().Kind != folded.Diff {
			t.Fatalf("line %d is not differential", rd.Line())
		}
		p.Add(rd.Record())
	}
	read := func(path string) *folded.Profile {
		ins, err := source.OpenAll([]string{path}, source.Options{})
		if err != nil {
			t.Fatal(err)
		}
		rd := capture.NewReader(ins, capture.Options{})
		p, _ := difffolded.Read(rd.All())
		if err := rd.Err(); err != nil {
			t.Fatal(err)
		}
		return p
	}
	before, after := read("testdata/capture-before.folded"), read("testdata/capture-after.folded")
	if rd.Err() != nil || p.TotalBefore() != before.Total() || p.Total() != after.Total() {
		t.Errorf("totals %v/%v, want %v/%v (err %v)", p.TotalBefore(), p.Total(), before.Total(), after.Total(), rd.Err())
	}
	golden.Check(t, filepath.Join("testdata", "capture.diff.golden"), []byte(out))
}

// TestOptions checks the command line reaches Diff: -n, -s and -ns.
func TestOptions(t *testing.T) {
	dir := t.TempDir()
	b, a := filepath.Join(dir, "b"), filepath.Join(dir, "a")
	os.WriteFile(b, []byte("f;0xAB 5\nf;0x1 5\n"), 0o644)
	os.WriteFile(a, []byte("f;0xcd 20\n"), 0o644)
	for _, tc := range []struct{ flag, want string }{
		{"-n", "f;0x1 10 0\nf;0xAB 10 0\nf;0xcd 0 20\n"},
		{"-s", "f;0x... 10 20\n"},
		{"-ns", "f;0x... 20 20\n"},
	} {
		if out, errs, code := run(t, "", tc.flag, b, a); code != 0 || out != tc.want {
			t.Errorf("%s: got %q (exit %d, %q), want %q", tc.flag, out, code, errs, tc.want)
		}
	}
}
