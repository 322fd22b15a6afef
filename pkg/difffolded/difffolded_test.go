package difffolded

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"flamekit/internal/cli"
	"flamekit/pkg/folded"
)

var update = flag.Bool("update", false, "rewrite golden files")

// run runs the difffolded command line and returns stdout, stderr and the
// exit status.
func run(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := cli.Run("difffolded", Description, &Command{}, args, strings.NewReader(stdin), &out, &errb)
	return out.String(), errb.String(), code
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

func TestDiff(t *testing.T) {
	tests := []struct {
		name          string
		before, after string
		opt           Options
		want          string
	}{
		{"one side only", "a 1\n", "b 2\n", Options{}, "a 1 0\nb 0 2\n"},
		{"duplicates and unsorted input are summed", "b 1\na 1\nb 2\n", "a 5\n", Options{}, "a 1 5\nb 3 0\n"},
		{"timed input loses its time", "a 1 @1.0\na 1 @2.0\n", "a 3 @9.5\n", Options{}, "a 2 3\n"},
		{"fractions", "a 1.5\n", "a 2.25\n", Options{}, "a 1.5 2.25\n"},
		{"normalise truncates", "a 5\nb 10\n", "a 10\nb 20.5\n", Options{Normalize: true}, "a 10 10\nb 20 20.5\n"},
		{"normalise equal totals", "a 3\n", "a 3\n", Options{Normalize: true}, "a 3 3\n"},
		{"strip hex merges", "f;0xAB 1\nf;0x1 2\n", "f;0xcd 4\n", Options{StripHex: true}, "f;0x... 3 4\n"},
		{"bare 0x kept", "f;0x 1\n", "", Options{StripHex: true}, "f;0x 1 0\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			b, a := filepath.Join(dir, "b"), filepath.Join(dir, "a")
			os.WriteFile(b, []byte(tt.before), 0o644)
			os.WriteFile(a, []byte(tt.after), 0o644)
			args := []string{b, a}
			if tt.opt.Normalize {
				args = append(args, "-n")
			}
			if tt.opt.StripHex {
				args = append(args, "-s")
			}
			out, errs, code := run(t, "", args...)
			if code != 0 || out != tt.want {
				t.Errorf("got %q (exit %d, stderr %q), want %q", out, code, errs, tt.want)
			}
		})
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
	before, _, _, _ := Read("testdata/capture-before.folded", nil)
	after, _, _, _ := Read("testdata/capture-after.folded", nil)
	if rd.Err() != nil || p.TotalBefore() != before.Total() || p.Total() != after.Total() {
		t.Errorf("totals %v/%v, want %v/%v (err %v)", p.TotalBefore(), p.Total(), before.Total(), after.Total(), rd.Err())
	}
	golden := filepath.Join("testdata", "capture.diff.golden")
	if *update {
		os.WriteFile(golden, []byte(out), 0o644)
	}
	want, err := os.ReadFile(golden)
	if err != nil || string(want) != out {
		t.Errorf("output differs from %s (run go test -update to rewrite it): %v", golden, err)
	}
}

// FuzzStripHex checks that StripHex never panics, is idempotent and leaves
// no hex digits after "0x".
func FuzzStripHex(f *testing.F) {
	for _, s := range []string{"f;0xAB", "0x", "0x0x1", "a0xg", "x;0xdeadBEEF;y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		once := StripHex(s)
		if twice := StripHex(once); twice != once {
			t.Fatalf("StripHex not idempotent: %q -> %q -> %q", s, once, twice)
		}
		for i := strings.Index(once, "0x"); i >= 0; {
			if i+2 < len(once) && isHex(once[i+2]) {
				t.Fatalf("StripHex(%q) = %q leaves a hex digit after 0x", s, once)
			}
			j := strings.Index(once[i+2:], "0x")
			if j < 0 {
				break
			}
			i += 2 + j
		}
	})
}
