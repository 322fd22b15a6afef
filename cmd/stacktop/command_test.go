package main

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"flamekit/internal/testkit/clitest"
	"flamekit/internal/testkit/golden"
)

// run runs the stacktop command line and returns stdout, stderr and the
// exit status.
func run(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	code, out, errs := clitest.Run(t, "stacktop", description, &command{}, stdin, args...)
	return out, errs, code
}

// capture is stackcollapse-perf.pl --all output of the burst capture
// (classic, gzipped, with _[k] on kernel frames).
const capture = "../../testdata/perf/perl/burst.collapsed-all.txt.gz"

// TestOutputs: the views of a real capture, against golden files
// (go test -update rewrites them).
func TestOutputs(t *testing.T) {
	for _, tc := range []struct {
		golden string
		args   []string
	}{
		{"top.txt", nil},
		{"top-cum-20.txt", []string{"--cum", "-n", "20"}},
		{"module.txt", []string{"--by", "module"}},
		{"comm.csv", []string{"--by", "comm", "-n", "0", "--format", "csv"}},
		{"top.json", []string{"-n", "3", "--format", "json"}},
		{"peek.txt", []string{"--callers", `^do_syscall_64_\[k\]$`, "--callees", `^do_syscall_64_\[k\]$`}},
		{"callers.txt", []string{"--callers", `^(run|main)$`}},
		{"callees.csv", []string{"--callees", `^burst_spin$`, "--format", "csv"}},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			out, errs, code := run(t, "", append(tc.args, capture)...)
			if code != 0 || errs != "" {
				t.Fatalf("exit %d, stderr %q", code, errs)
			}
			golden.Check(t, filepath.Join("testdata", tc.golden), []byte(out))
		})
	}
}

// TestFormatsAgree: text, CSV and JSON give the same rows.
func TestFormatsAgree(t *testing.T) {
	text, _, _ := run(t, "", "-n", "0", capture)
	c, _, _ := run(t, "", "-n", "0", "--format", "csv", capture)
	j, _, _ := run(t, "", "-n", "0", "--format", "json", capture)
	recs, err := csv.NewReader(strings.NewReader(c)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Total float64
		Count int
		Rows  []struct {
			Name      string
			Flat, Cum float64
		}
	}
	if err := json.Unmarshal([]byte(j), &doc); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(text), "\n")[2:]
	if len(recs)-1 != len(lines) || len(doc.Rows) != len(lines) || doc.Count != len(lines) {
		t.Fatalf("text %d rows, CSV %d, JSON %d (count %d)", len(lines), len(recs)-1, len(doc.Rows), doc.Count)
	}
	var flat float64
	for i, line := range lines {
		f := strings.Fields(line)
		r := doc.Rows[i]
		if recs[i+1][0] != r.Name || !strings.HasSuffix(line, "  "+r.Name) || recs[i+1][1] != f[0] || recs[i+1][4] != f[3] {
			t.Fatalf("row %d: text %q, CSV %q, JSON %+v", i, line, recs[i+1], r)
		}
		flat += r.Flat
	}
	if flat != doc.Total {
		t.Errorf("flat adds up to %v, total %v", flat, doc.Total)
	}
}

func TestDiffAndInputs(t *testing.T) {
	dir := t.TempDir()
	d := filepath.Join(dir, "diff.folded")
	os.WriteFile(d, []byte("p;a 10 4\np;b 0 6\np;a;b 5 5\nbad line\n"), 0o644)
	out, errs, code := run(t, "", "-n", "0", d)
	want := "Showing all 3 functions, accounting for 15 (100%) of 15 total (first profile: 15)\n" +
		"      flat  flat%   sum%        cum   cum%      Δflat       Δcum  name\n" +
		"        11 73.33% 73.33%         11 73.33%         +6         +6  b\n" +
		"         4 26.67%   100%          9 60.00%         -6         -6  a\n" +
		"         0     0%   100%         15   100%          0          0  p\n"
	if code != 0 || out != want {
		t.Errorf("diff: exit %d\n%s\nwant\n%s", code, out, want)
	}
	if !strings.Contains(errs, "skipped 1 malformed line") {
		t.Errorf("stderr %q", errs)
	}
	// Timed and classic lines, from a file and standard input, add up.
	f := filepath.Join(dir, "timed.folded")
	os.WriteFile(f, []byte("# flamekit v1 timed first=\"1.000000\"\np;a 2 @1\n"), 0o644)
	out, _, code = run(t, "p;b 3\n", "--by", "comm", "--format", "csv", f, "-")
	if code != 0 || out != "name,flat,flat_pct,sum_pct,cum,cum_pct\np,5,100,100,5,100\n" {
		t.Errorf("two inputs: %q, exit %d", out, code)
	}
	if _, errs, code := run(t, "", filepath.Join(dir, "empty-missing")); code != 1 || !strings.Contains(errs, "empty-missing") {
		t.Errorf("missing file: exit %d, %q", code, errs)
	}
	if _, errs, _ := run(t, "p;a 1\n", "--callers", "^zz$"); !strings.Contains(errs, "no function matches") {
		t.Errorf("no match: %q", errs)
	}
}

func TestCommandLine(t *testing.T) {
	for _, tc := range []struct {
		args []string
		err  string
	}{
		{[]string{"--by", "file"}, "--by"},
		{[]string{"-n", "-1"}, "-n"},
		{[]string{"--format", "xml"}, "--format"},
		{[]string{"--callers", "("}, "--callers"},
		{[]string{"--callees", "[z-a]"}, "--callees"},
		{[]string{"-", "-"}, "only once"},
	} {
		if _, errs, code := run(t, "", tc.args...); code != 2 || !strings.Contains(errs, tc.err) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, errs, tc.err)
		}
	}
	out, _, code := run(t, "", "--version")
	if code != 0 || !strings.HasPrefix(out, "stacktop (flamekit) ") {
		t.Errorf("--version: %q", out)
	}
	out, _, _ = run(t, "", "--help")
	for _, want := range []string{"Examples:", "--by=function|module|comm", "-n, --nodecount=N", "--cum", "--callers=RE", "--callees=RE", "--format=text|csv|json"} {
		if !strings.Contains(out, want) {
			t.Errorf("--help lacks %q:\n%s", want, out)
		}
	}
}

// TestEmptyJSONHasRows: an empty input gives JSON with an empty "rows",
// which a script can iterate, and says so on stderr.
func TestEmptyJSONHasRows(t *testing.T) {
	out, stderr, _ := run(t, "", "--format", "json")
	var doc struct {
		Rows *[]json.RawMessage `json:"rows"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || doc.Rows == nil || len(*doc.Rows) != 0 {
		t.Errorf("empty input: %v, rows %v:\n%s%s", err, doc.Rows, out, stderr)
	}
}
