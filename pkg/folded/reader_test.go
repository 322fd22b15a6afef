package folded

import (
	"bytes"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
)

// timedSample is a small timed stream as stackcollapse writes it.
const timedSample = `# flamekit v1 timed host="vm" event="cpu-clock:pppH" first="696.885404" last="702.832795"
swapper;do_idle;pv_native_safe_halt 52631578 @696.885404
bash;main;work 52631578 @697.000001
flamekit_burst;main;spin 52631578 @700.900000
flamekit_burst;main;spin 52631578 @700.952631
swapper;do_idle;pv_native_safe_halt 52631578 @701.000000
# flamekit v1 timed first="696.885404" last="701.000000" samples="5"
`

// readAll reads every record of r as (kind, stack, count, before, time)
// strings, and the metadata lines.
func readAll(t *testing.T, r io.Reader, lenient bool) ([]string, []Meta, Skips, error) {
	t.Helper()
	rd := NewReader(r, "test")
	rd.Lenient = lenient
	var out []string
	for rd.Next() {
		rec := rd.Record()
		out = append(out, string(AppendRecord(nil, rec)))
	}
	return out, rd.Meta(), rd.Skips(), rd.Err()
}

func TestReaderTimed(t *testing.T) {
	recs, meta, skips, err := readAll(t, strings.NewReader(timedSample), false)
	if err != nil || skips.Count != 0 {
		t.Fatalf("err %v, skips %v", err, skips)
	}
	if len(recs) != 5 || len(meta) != 2 {
		t.Fatalf("got %d records and %d metadata lines, want 5 and 2", len(recs), len(meta))
	}
	if meta[0].Line != 1 || meta[1].Line != 7 {
		t.Errorf("metadata lines at %d and %d, want 1 and 7", meta[0].Line, meta[1].Line)
	}
	if h, _ := meta[0].Get(KeyHost); h != "vm" {
		t.Errorf("host = %q", h)
	}
}

// TestUnixTools checks that the line-oriented tools users apply to folded
// files keep timed streams readable: cat of two streams, grep and grep -v,
// and sort.
func TestUnixTools(t *testing.T) {
	classic := "a;b 3\nc 4\n"
	lines := strings.SplitAfter(timedSample, "\n")
	tests := []struct {
		name  string
		input string
		total float64
		n     int
	}{
		{"cat timed classic", timedSample + classic, 5*52631578 + 7, 7},
		{"cat classic timed", classic + timedSample, 5*52631578 + 7, 7},
		{"grep -v do_idle", filter(lines, func(l string) bool { return !strings.Contains(l, "do_idle") }), 3 * 52631578, 3},
		{"grep spin", filter(lines, func(l string) bool { return strings.Contains(l, "spin") }), 2 * 52631578, 2},
		{"sort", sorted(lines), 5 * 52631578, 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recs, _, skips, err := readAll(t, strings.NewReader(tt.input), false)
			if err != nil || skips.Count != 0 {
				t.Fatalf("err %v, skips %v", err, skips)
			}
			var p Profile
			rd := NewReader(strings.NewReader(tt.input), "x")
			for rd.Next() {
				p.Add(rd.Record())
			}
			if len(recs) != tt.n || p.Total() != tt.total {
				t.Errorf("got %d records totalling %v, want %d totalling %v", len(recs), p.Total(), tt.n, tt.total)
			}
		})
	}
}

func filter(lines []string, keep func(string) bool) string {
	var b strings.Builder
	for _, l := range lines {
		if keep(l) {
			b.WriteString(l)
		}
	}
	return b.String()
}

func sorted(lines []string) string {
	s := slices.Clone(lines)
	slices.Sort(s)
	return strings.Join(s, "")
}

func TestReaderLongLine(t *testing.T) {
	frame := strings.Repeat("x", 1<<20) // a 1 MiB frame name
	input := "a;" + frame + " 3\nb 4\n" + "c;" + frame + " 5 @1.5"
	recs, _, _, err := readAll(t, strings.NewReader(input), false)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 3 || recs[0] != "a;"+frame+" 3\n" || recs[1] != "b 4\n" || recs[2] != "c;"+frame+" 5 @1.500000\n" {
		t.Errorf("long lines not read back intact (%d records)", len(recs))
	}
}

func TestReaderErrors(t *testing.T) {
	input := "a 1\n\nbad line\n# a comment 12x\nb 2\n"
	_, _, _, err := readAll(t, strings.NewReader(input), false)
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Line != 2 || pe.File != "test" || !errors.Is(err, ErrBlank) {
		t.Fatalf("strict reader error = %v, want a *ParseError for test:2 blank", err)
	}
	recs, _, skips, err := readAll(t, strings.NewReader(input), true)
	if err != nil || len(recs) != 2 {
		t.Fatalf("lenient: err %v, %d records", err, len(recs))
	}
	if skips.Count != 3 || skips.First.Line != 2 {
		t.Errorf("lenient skips = %v, want 3 from line 2", skips)
	}
	if msg := skips.String(); !strings.Contains(msg, "skipped 3 malformed lines") || !strings.Contains(msg, "test:2") {
		t.Errorf("skips message %q does not give the count and the place", msg)
	}
}

func TestProfileSortedOutput(t *testing.T) {
	var p Profile
	for _, l := range []string{"b 1", "a;b 2", "a 3", "b 4", "a;b 1.5", "x 1 2", "a b 1 @5"} {
		var rec Record
		if err := ParseLine([]byte(l), &rec); err != nil {
			t.Fatal(err)
		}
		p.Add(&rec)
	}
	var out bytes.Buffer
	p.WriteTo(&out)
	want := "a 3\na b 1\na;b 3.5\nb 5\nx 1 2\n"
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
	if !p.HasDiff() || p.TotalBefore() != 1 || p.Total() != 14.5 {
		t.Errorf("HasDiff %v, TotalBefore %v, Total %v", p.HasDiff(), p.TotalBefore(), p.Total())
	}
}

// TestReaderKind: a metadata line says the kind of the lines after it,
// which wins over guessing from the last fields (issue 34 item 6): after
// one, a classic line whose stack ends in a blank and a number (the
// perf-map symbol "Evil 5") is classic; before any, it is differential,
// as flamegraph.pl reads it and difffolded writes it.
func TestReaderKind(t *testing.T) {
	tests := []struct {
		name  string
		input string
		want  []string // the records, as AppendRecord writes them
		kinds []Kind   // the Reader's Kind after each record
	}{
		{"no header: differential", "java;Evil 5 7\n", []string{"java;Evil 5 7\n"}, []Kind{0}},
		{"classic header", "# flamekit v1 classic\njava;Evil 5 7\n", []string{"java;Evil_5 7\n"}, []Kind{Classic}},
		{"timed header", "# flamekit v1 timed event=\"cpu-clock\"\njava;Evil 5 7\njava;Evil 5 7 @1.5\n",
			[]string{"java;Evil_5 7\n", "java;Evil 5 7 @1.500000\n"}, []Kind{Timed, Timed}},
		{"header after a line", "java;Evil 5 7\n# flamekit v1 classic\njava;Evil 5 7\n",
			[]string{"java;Evil 5 7\n", "java;Evil_5 7\n"}, []Kind{0, Classic}},
		{"classic then timed header", "# flamekit v1 classic\na 1\n# flamekit v1 timed\nb 2 3\n",
			[]string{"a 1\n", "b_2 3\n"}, []Kind{Classic, Timed}},
		{"count beyond 2^53 in a frame", "# flamekit v1 classic\na 99999999999999999999 7\n", []string{"a_99999999999999999999 7\n"}, []Kind{Classic}},
		{"difffolded's output", "main;parse 960 731\nmain;Evil 5 7 9\n", []string{"main;parse 960 731\n", "main;Evil 5 7 9\n"}, []Kind{0, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rd := NewReader(strings.NewReader(tt.input), "test")
			var got []string
			var kinds []Kind
			for rd.Next() {
				got = append(got, string(AppendRecord(nil, rd.Record())))
				kinds = append(kinds, rd.Kind())
			}
			if err := rd.Err(); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tt.want) || !slices.Equal(kinds, tt.kinds) {
				t.Errorf("got %q, kinds %v\nwant %q, kinds %v", got, kinds, tt.want, tt.kinds)
			}
		})
	}
}
