package main

import (
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"flamekit/internal/cli"
	"flamekit/internal/testkit/clitest"
	"flamekit/pkg/svg"
)

func run(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return runStdin(t, "", args...)
}

// runStdin runs the command line with stdin as its standard input.
func runStdin(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return clitest.Run(t, "flamegraph", description, &command{}, stdin, args...)
}

func write(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestCommand(t *testing.T) {
	compat := "../../pkg/svg/testdata/compat/"
	tests := []struct {
		name       string
		args       []string
		code       int
		stderr     []string // substrings, in order
		stdoutHas  string
		stdoutNone string
	}{
		{"tiny", []string{compat + "tiny.folded"}, 0,
			[]string{"Stack count is low (4). Did something go wrong?"}, `<title>a (3 samples, 75.00%)</title>`, ""},
		{"parse ignored lines", []string{compat + "parse.folded"}, 0,
			[]string{"Stack count is low (14.5)", "Ignored 3 lines with invalid format (first: " + compat + "parse.folded:8: "},
			`<title>g (2 samples, 13.79%)</title>`, ""},
		{"empty", []string{write(t, "empty.folded", "# flamekit v1 timed host=\"x\"\n")}, 2,
			[]string{"ERROR: No stack counts found"}, "ERROR: No valid input provided", "<g id=\"frames\">"},
		{"total ignored", []string{"--total", "3", compat + "tiny.folded"}, 0,
			[]string{"Specified --total 3 is less than actual total 4, so ignored"}, `<title>all (4 samples, 100%)</title>`, ""},
		{"total", []string{"-total=100", "--countname=bytes", compat + "tiny.folded"}, 0,
			nil, `<title>all (100 bytes, 100%)</title>`, ""},
		{"factor", []string{"--factor=2.5", "--countname=bytes", compat + "tiny.folded"}, 0,
			nil, `<title>a (8 bytes, 80.00%)</title>`, ""},
		{"minwidth percent", []string{"--minwidth=30%", compat + "tiny.folded"}, 0,
			nil, `<title>a (3 samples`, `<title>d (`},
		{"inverted title", []string{"--inverted", compat + "tiny.folded"}, 0, nil, ">Icicle Graph</text>", ""},
		{"bad minwidth", []string{"--minwidth=x", compat + "tiny.folded"}, 2, []string{"invalid for minwidth"}, "", ""},
		{"bad bgcolor", []string{"--bgcolors=pink", compat + "tiny.folded"}, 2, []string{"Unrecognized bgcolor"}, "", ""},
		// Palette names in any case; an unknown one is a usage error
		// naming the valid ones (flamegraph.pl drew every frame black).
		{"palette in another case", []string{"--colors", "Java", compat + "tiny.folded"}, 0, nil, `fill="rgb(`, `fill="rgb(0,0,0)"`},
		{"palette in capitals", []string{"--colors=MEM", "--bgcolors=grey", compat + "tiny.folded"}, 0, nil, `fill="rgb(0,`, `fill="rgb(0,0,0)"`},
		{"unknown palette", []string{"--colors", "rainbow", compat + "tiny.folded"}, 2,
			[]string{`unknown palette "rainbow" for --colors: want one of hot mem io wakeup chain java js perl red green blue aqua yellow purple orange`}, "", "<svg"},
		{"missing file", []string{"/nonexistent/x.folded"}, 1, []string{"/nonexistent/x.folded"}, "", ""},
		{"timed flamechart", []string{"--flamechart", write(t, "timed.folded", "a;b 1 @3.0\na;c 1 @1.0\na;b 1 @2.0\n")}, 0,
			nil, `<title>c (1,000,000,000 ns, 33.33%)</title><rect x="10.0"`, ""},
		// its time axis under the lane, in seconds after the first sample
		{"timed flamechart's axis", []string{"--flamechart", write(t, "timed.folded", "a;b 1 @3.0\na;c 1 @1.0\na;b 1 @2.0\n")}, 0,
			nil, `<text x="13.00" y="111">0.0 s</text>`, ""},
		{"untimed flamechart: no axis", []string{"--flamechart", compat + "tiny.folded"}, 0, nil, "Flame Chart", `id="axis"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := run(t, tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, tt.code, errs)
			}
			rest := errs
			for _, s := range tt.stderr {
				i := strings.Index(rest, s)
				if i < 0 {
					t.Errorf("stderr lacks %q:\n%s", s, errs)
					break
				}
				rest = rest[i+len(s):]
			}
			if tt.stdoutHas != "" && !strings.Contains(out, tt.stdoutHas) {
				t.Errorf("stdout lacks %q", tt.stdoutHas)
			}
			if tt.stdoutNone != "" && strings.Contains(out, tt.stdoutNone) {
				t.Errorf("stdout has %q", tt.stdoutNone)
			}
		})
	}
}

func TestPaletteMap(t *testing.T) {
	dir := t.TempDir()
	wd, _ := os.Getwd()
	in, _ := filepath.Abs("../../pkg/svg/testdata/compat/tiny.folded")
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	os.WriteFile(svg.PaletteFile, []byte("a->rgb(1,2,3)\n"), 0o644)
	code, out, _ := run(t, "--cp", in)
	if code != 0 || !strings.Contains(out, `fill="rgb(1,2,3)"`) {
		t.Fatalf("exit %d; palette colour not used", code)
	}
	b, _ := os.ReadFile(svg.PaletteFile)
	if !strings.HasPrefix(string(b), "->rgb(213,39,9)\na->rgb(1,2,3)\nb->") {
		t.Errorf("palette.map:\n%s", b)
	}
}

func TestNameAttrSafe(t *testing.T) {
	na := write(t, "attrs.txt", "a\thref=javascript:alert(1)\tg_extra=onclick=\"alert(1)\" data-x=\"1\"\ttitle=<b>\n"+
		"c\thref=https://example.com/c\tclass=hot\n")
	code, out, errs := run(t, "--nameattr", na, "../../pkg/svg/testdata/compat/tiny.folded")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if strings.Contains(out, "javascript:") || strings.Contains(out, "onclick") || !strings.Contains(out, `data-x="1"`) ||
		!strings.Contains(out, `<title>&lt;b&gt;</title>`) || !strings.Contains(out, `<a xlink:href="https://example.com/c" target="_top" class="hot">`) {
		t.Errorf("nameattr output wrong:\n%s", out)
	}
	if !strings.Contains(errs, "dropped href") || !strings.Contains(errs, "dropped attribute") {
		t.Errorf("no warnings: %s", errs)
	}
}

// TestStdin checks that the command reads the standard input it is given
// (cli.Run's stdin), not the process's own.
func TestStdin(t *testing.T) {
	for _, args := range [][]string{nil, {"-"}} {
		code, out, errs := runStdin(t, "a;b 5\n", args...)
		if code != 0 || !strings.Contains(out, "<title>b (5 samples, 100.00%)</title>") {
			t.Errorf("args %q: exit %d, stderr %q; the SVG does not draw the stdin stack a;b", args, code, errs)
		}
	}
}

// TestNoFlagsGivesDefaults checks that the flag defaults are
// svg.DefaultOptions, the one place they are written.
func TestNoFlagsGivesDefaults(t *testing.T) {
	var c command
	// A missing input: the flags are parsed, then Run fails (exit 1).
	if code := cli.Run("flamegraph", description, &c, []string{"/nonexistent"}, strings.NewReader(""), io.Discard, io.Discard); code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	cfg, err := c.Config()
	if err != nil {
		t.Fatal(err)
	}
	if want := svg.DefaultOptions(); !reflect.DeepEqual(cfg.Options, want) {
		t.Errorf("no flags gives\n%+v\nwant svg.DefaultOptions\n%+v", cfg.Options, want)
	}
}

// TestPaletteCase: a palette named in another case draws the same SVG.
func TestPaletteCase(t *testing.T) {
	in := "../../pkg/svg/testdata/compat/tiny.folded"
	for _, pair := range [][2]string{{"java", "Java"}, {"chain", "CHAIN"}, {"io", "Io"}} {
		_, want, _ := run(t, "--colors", pair[0], in)
		code, got, errs := run(t, "--colors", pair[1], in)
		if code != 0 || got != want || !strings.Contains(want, "<svg") {
			t.Errorf("--colors %s: exit %d (%s), SVG differs from --colors %s's", pair[1], code, errs, pair[0])
		}
	}
}
