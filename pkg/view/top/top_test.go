package top

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"flamekit/internal/testkit/golden"
	"flamekit/pkg/folded"
)

// count reads folded text into a Counter.
func counter(t testing.TB, text string) *Counter {
	t.Helper()
	var c Counter
	rd := folded.NewReader(strings.NewReader(text), "test")
	for rd.Next() {
		c.Add(rd.Record())
	}
	if err := rd.Err(); err != nil {
		t.Fatal(err)
	}
	return &c
}

func TestTable(t *testing.T) {
	c := counter(t, "p;a;b 3\np;a;a;a 2 @1\np;b;a;b 1\np;a;b 4\n")
	tab := c.Table(ByFunction, false)
	want := []Row{
		{Name: "b", Flat: 8, Cum: 8},
		{Name: "a", Flat: 2, Cum: 10},
		{Name: "p", Flat: 0, Cum: 10},
	}
	if !equalRows(tab.Rows, want) || tab.Total != 10 || tab.Diff {
		t.Errorf("table %+v (total %v)", tab.Rows, tab.Total)
	}
	// -cum: by cum, then name.
	tab = c.Table(ByFunction, true)
	if names(tab.Rows) != "a p b" {
		t.Errorf("--cum order %s", names(tab.Rows))
	}
	// Ties in flat go by name.
	tab = counter(t, "z 1\ny 1\nx;w 1\n").Table(ByFunction, false)
	if names(tab.Rows) != "w y z x" {
		t.Errorf("tie order %s", names(tab.Rows))
	}
}

// TestEmptyFrames: trailing empty frames are no frames (folded.TrimStack,
// as flamegraph draws the stack); an empty frame inside a stack is a
// function with an empty name.
func TestEmptyFrames(t *testing.T) {
	tab := counter(t, "a;b;; 2\na;;b 3\n").Table(ByFunction, false)
	want := []Row{
		{Name: "b", Flat: 5, Cum: 5},
		{Name: "", Flat: 0, Cum: 3},
		{Name: "a", Flat: 0, Cum: 5},
	}
	if !equalRows(tab.Rows, want) {
		t.Errorf("table %+v", tab.Rows)
	}
}

func TestByModuleAndComm(t *testing.T) {
	c := counter(t, "dd;read;ksys_read_[k];vfs_read_[k] 5\n"+
		"dd;[libc.so.6];[unknown] 2\n"+
		"java-1/2;Interpreter_[j];[libjvm.so <7f00ab>] 3\n")
	tab := c.Table(ByModule, false)
	want := []Row{
		{Name: "[kernel.kallsyms]", Flat: 5, Cum: 5},
		{Name: "libjvm.so", Flat: 3, Cum: 3},
		{Name: "unknown", Flat: 2, Cum: 2},
		{Name: "(no module)", Flat: 0, Cum: 5},
		{Name: "[JIT]", Flat: 0, Cum: 3},
		{Name: "libc.so.6", Flat: 0, Cum: 2},
	}
	if !equalRows(tab.Rows, want) {
		t.Errorf("by module %+v", tab.Rows)
	}
	tab = c.Table(ByComm, false)
	want = []Row{{Name: "dd", Flat: 7, Cum: 7}, {Name: "java-1/2", Flat: 3, Cum: 3}}
	if !equalRows(tab.Rows, want) {
		t.Errorf("by comm %+v", tab.Rows)
	}
}

func TestModuleOf(t *testing.T) {
	for in, want := range map[string]string{
		"vfs_read_[k]": "[kernel.kallsyms]", "Busy.run_[j]": "[JIT]", "[libc.so.6]": "libc.so.6",
		"[dd <5599aa>]": "dd", "[unknown]": "unknown", "main": noModule, "[]": noModule,
		"f_[i]": noModule, "[memfd:sealed-9 (deleted)]": "memfd:sealed-9 (deleted)",
	} {
		if got := ModuleOf(in); got != want {
			t.Errorf("ModuleOf(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestDiff(t *testing.T) {
	c := counter(t, "p;a 10 4\np;b 0 6\np;a;b 5 5\n")
	tab := c.Table(ByFunction, false)
	want := []Row{
		{Name: "b", Flat: 11, Cum: 11, FlatBefore: 5, CumBefore: 5},
		{Name: "a", Flat: 4, Cum: 9, FlatBefore: 10, CumBefore: 15},
		{Name: "p", Flat: 0, Cum: 15, FlatBefore: 0, CumBefore: 15},
	}
	if !equalRows(tab.Rows, want) || !tab.Diff || tab.Total != 15 || tab.TotalBefore != 15 {
		t.Errorf("diff table %+v", tab)
	}
}

func TestPeek(t *testing.T) {
	// a calls itself (not a call), b twice in one stack (once).
	c := counter(t, "p;a;a;b 3\np;b;a;b 2\np;a 1\n")
	got := c.Peek(ByFunction, regexp.MustCompile("^[ab]$"))
	if len(got) != 2 {
		t.Fatalf("%d entries", len(got))
	}
	b, a := got[0], got[1]
	if b.Name != "b" || b.Flat != 5 || b.Cum != 5 || a.Name != "a" || a.Flat != 1 || a.Cum != 6 {
		t.Fatalf("rows %+v %+v", b.Row, a.Row)
	}
	wantEdges := func(what string, got []Edge, want string) {
		var s []string
		for _, e := range got {
			s = append(s, e.Name+"="+folded.FormatCount(e.Count))
		}
		if strings.Join(s, " ") != want {
			t.Errorf("%s: %s, want %s", what, strings.Join(s, " "), want)
		}
	}
	wantEdges("a callers", a.Callers, "p=4 b=2")
	wantEdges("a callees", a.Callees, "b=5")
	wantEdges("b callers", b.Callers, "a=5 p=2")
	wantEdges("b callees", b.Callees, "a=2")
}

func equalRows(got, want []Row) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if got[i] != want[i] {
			return false
		}
	}
	return true
}

func names(rows []Row) string {
	var s []string
	for _, r := range rows {
		s = append(s, r.Name)
	}
	return strings.Join(s, " ")
}

// TestFormats: the text, CSV and JSON of a real capture's table and of a
// peek, against golden files (go test -update rewrites them).
func TestFormats(t *testing.T) {
	text, err := golden.Read(filepath.Join(perfDir, "perl", "burst.collapsed-all.txt.gz"))
	if err != nil {
		t.Fatal(err)
	}
	c := counter(t, string(text))
	diff := counter(t, "p;a 10 4\np;b 0 6\np;a;b 5 5.5\n")
	for _, tc := range []struct {
		name  string
		c     *Counter
		by    By
		write func(*bytes.Buffer, *Table) error
	}{
		{"function.txt", c, ByFunction, func(b *bytes.Buffer, t *Table) error { return WriteText(b, t, 10) }},
		{"module.txt", c, ByModule, func(b *bytes.Buffer, t *Table) error { return WriteText(b, t, 0) }},
		{"comm.csv", c, ByComm, func(b *bytes.Buffer, t *Table) error { return WriteCSV(b, t, 0) }},
		{"function.json", c, ByFunction, func(b *bytes.Buffer, t *Table) error { return WriteJSON(b, t, 5) }},
		{"diff.txt", diff, ByFunction, func(b *bytes.Buffer, t *Table) error { return WriteText(b, t, 0) }},
		{"diff.csv", diff, ByFunction, func(b *bytes.Buffer, t *Table) error { return WriteCSV(b, t, 0) }},
		{"diff.json", diff, ByFunction, func(b *bytes.Buffer, t *Table) error { return WriteJSON(b, t, 0) }},
		{"peek.txt", c, ByFunction, func(b *bytes.Buffer, t *Table) error {
			return WritePeekText(b, t, c.Peek(ByFunction, regexp.MustCompile(`^do_syscall_64_\[k\]$`)))
		}},
		{"peek.csv", c, ByFunction, func(b *bytes.Buffer, t *Table) error {
			return WritePeekCSV(b, t, c.Peek(ByFunction, regexp.MustCompile(`^burst_spin$`)))
		}},
		{"peek.json", c, ByFunction, func(b *bytes.Buffer, t *Table) error {
			e := c.Peek(ByFunction, regexp.MustCompile(`^burst_spin$`))
			e[0].Callees = nil // callers only
			return WritePeekJSON(b, t, e)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := tc.write(&b, tc.c.Table(tc.by, false)); err != nil {
				t.Fatal(err)
			}
			if strings.HasSuffix(tc.name, ".json") && !json.Valid(b.Bytes()) {
				t.Fatalf("invalid JSON:\n%s", b.String())
			}
			golden.Check(t, filepath.Join("testdata", "golden", tc.name), b.Bytes())
		})
	}
}
