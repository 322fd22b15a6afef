package folded

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
)

func TestParseLine(t *testing.T) {
	tests := []struct {
		line   string
		want   Record
		err    error
		stack  string
		format string // how AppendRecord writes it back ("" = line itself)
	}{
		// Classic lines, flamegraph.pl's B.2 rules.
		{line: "a;b;c 12", want: Record{Count: 12, Kind: Classic}, stack: "a;b;c"},
		{line: "a;b 12.5", want: Record{Count: 12.5, Kind: Classic}, stack: "a;b"},
		{line: "a;b 12.", want: Record{Count: 12, Kind: Classic}, stack: "a;b", format: "a;b 12\n"},
		{line: "a\t7", want: Record{Count: 7, Kind: Classic}, stack: "a", format: "a 7\n"},
		{line: "d  3", want: Record{Count: 3, Kind: Classic}, stack: "d "},           // extra blank stays in the stack
		{line: " 5", want: Record{Count: 5, Kind: Classic}, stack: ""},               // empty stack: root only
		{line: "a b;c d 4", want: Record{Count: 4, Kind: Classic}, stack: "a b;c d"}, // frames with blanks
		{line: "a;b 1\r", want: Record{Count: 1, Kind: Classic}, stack: "a;b", format: "a;b 1\n"},
		// Differential lines.
		{line: "a;b 10 20", want: Record{Before: 10, Count: 20, Kind: Diff}, stack: "a;b"},
		{line: "a;b 0 2.5", want: Record{Before: 0, Count: 2.5, Kind: Diff}, stack: "a;b"},
		// Timed lines.
		{line: "swapper;do_idle 52631578 @696.885404", want: Record{Count: 52631578, Time: 696885404000, Kind: Timed}, stack: "swapper;do_idle"},
		{line: "a 1 @1.000000001", want: Record{Count: 1, Time: 1000000001, Kind: Timed}, stack: "a"},
		{line: "a 1 @12", want: Record{Count: 1, Time: 12e9, Kind: Timed}, stack: "a", format: "a 1 @12.000000\n"},
		{line: "a;@1.5 2 @3.5", want: Record{Count: 2, Time: 3.5e9, Kind: Timed}, stack: "a;@1.5", format: "a;@1.5 2 @3.500000\n"}, // '@' inside a frame is a frame
		{line: "@7 3", want: Record{Count: 3, Kind: Classic}, stack: "@7"},                                                         // a frame named "@7" is classic
		// Timed lines with the sample's CPU and thread.
		{line: "swapper;do_idle 10309278 @413.417927 cpu=1 tid=0", want: Record{Count: 10309278, Time: 413417927000, Kind: Timed, CPU: 1, Has: HasCPU | HasTID}, stack: "swapper;do_idle"},
		{line: "b;run 1 @2.5 cpu=0 pid=5120 tid=5121", want: Record{Count: 1, Time: 2.5e9, Kind: Timed, PID: 5120, TID: 5121, Has: HasCPU | HasPID | HasTID}, stack: "b;run", format: "b;run 1 @2.500000 cpu=0 pid=5120 tid=5121\n"},
		{line: "a 1 @1.000000 tid=7 cpu=3", want: Record{Count: 1, Time: 1e9, Kind: Timed, CPU: 3, TID: 7, Has: HasCPU | HasTID}, stack: "a", format: "a 1 @1.000000 cpu=3 tid=7\n"}, // any order in, one order out
		{line: "a 1 @1.000000 pid=-1", want: Record{Count: 1, Time: 1e9, Kind: Timed, PID: -1, Has: HasPID}, stack: "a"},                                                             // perf's unknown thread
		{line: "a b=c 1 @1.000000", want: Record{Count: 1, Time: 1e9, Kind: Timed}, stack: "a b=c"},                                                                                  // '=' inside a frame is a frame
		// Errors.
		{line: "a 1 @1.0 cpu=x", err: ErrField},
		{line: "a 1 @1.0 cpu=-1", err: ErrField},
		{line: "a 1 @1.0 cpu=1 cpu=2", err: ErrField},
		{line: "a 1 @1.0 gpu=1", err: ErrField},
		{line: "a 1 cpu=1", err: ErrField},
		{line: "cpu=1", err: ErrNoCount},
		{line: "a 1 @1.0 pid=99999999999", err: ErrField},
		{line: "", err: ErrBlank},
		{line: "\r", err: ErrBlank},
		{line: "nocount", err: ErrNoCount},
		{line: "a -1", err: ErrNoCount},
		{line: "a .5", err: ErrNoCount},
		{line: "a 1e3", err: ErrNoCount},
		{line: "a +1", err: ErrNoCount},
		{line: "12", err: ErrNoCount},
		{line: "a 1 @x", err: ErrTime},
		{line: "a 1 @", err: ErrTime},
		{line: "a x @1.0", err: ErrNoCount},
		{line: "@1.0", err: ErrNoCount},
	}
	for _, tt := range tests {
		var rec Record
		err := ParseLine([]byte(tt.line), &rec)
		if !errors.Is(err, tt.err) {
			t.Errorf("ParseLine(%q) error = %v, want %v", tt.line, err, tt.err)
			continue
		}
		if err != nil {
			continue
		}
		if string(rec.Stack) != tt.stack {
			t.Errorf("ParseLine(%q) stack = %q, want %q", tt.line, rec.Stack, tt.stack)
		}
		if rec.Count != tt.want.Count || rec.Before != tt.want.Before || rec.Time != tt.want.Time || rec.Kind != tt.want.Kind ||
			rec.CPU != tt.want.CPU || rec.PID != tt.want.PID || rec.TID != tt.want.TID || rec.Has != tt.want.Has {
			t.Errorf("ParseLine(%q) = %+v, want %+v", tt.line, rec, tt.want)
		}
		rec.Stack = []byte(tt.stack)
		want := tt.format
		if want == "" {
			want = tt.line + "\n"
		}
		if got := string(AppendRecord(nil, &rec)); got != want {
			t.Errorf("AppendRecord(ParseLine(%q)) = %q, want %q", tt.line, got, want)
		}
	}
}

func TestTimeFormat(t *testing.T) {
	tests := []struct {
		t    Time
		want string
	}{
		{0, "0.000000"},
		{696885404000, "696.885404"},
		{696885404123, "696.885404123"},
		{1795312864284867000, "1795312864.284867"},
		{-1500000000, "-1.500000"},
		{math.MinInt64, "-9223372036.854775808"},
	}
	for _, tt := range tests {
		if got := tt.t.String(); got != tt.want {
			t.Errorf("Time(%d).String() = %q, want %q", int64(tt.t), got, tt.want)
		}
		if tt.t == math.MinInt64 {
			continue
		}
		back, err := ParseTime([]byte(tt.want))
		if err != nil || back != tt.t {
			t.Errorf("ParseTime(%q) = %d, %v; want %d", tt.want, back, err, tt.t)
		}
	}
	for _, bad := range []string{"", "-", ".5", "1.2.3", "1x", "99999999999999999999"} {
		if _, err := ParseTime([]byte(bad)); err == nil {
			t.Errorf("ParseTime(%q) succeeded, want error", bad)
		}
	}
}

func TestCountFormat(t *testing.T) {
	tests := []struct {
		in   string
		v    float64
		back string
	}{
		{"0", 0, "0"},
		{"12", 12, "12"},
		{"12.", 12, "12"},
		{"1.5", 1.5, "1.5"},
		{"0.30000000000000004", 0.30000000000000004, "0.3"},        // Perl prints %.15g
		{"9007199254740992", 9007199254740992, "9007199254740992"}, // 2^53, the largest
		{"9007199254740991.000", 9007199254740991, "9007199254740991"},
		{"1000000000000000", 1e15, "1000000000000000"},
		{"0.000001", 1e-6, "0.000001"},
	}
	for _, tt := range tests {
		v, ok := ParseCount([]byte(tt.in))
		if !ok || v != tt.v {
			t.Errorf("ParseCount(%q) = %v, %v; want %v", tt.in, v, ok, tt.v)
		}
		if got := FormatCount(v); got != tt.back {
			t.Errorf("FormatCount(%v) = %q, want %q", v, got, tt.back)
		}
	}
}

// TestCountBeyond2e53: a count no float64 holds exactly is refused with a
// message that says so, as the count of any line form; what is no count
// at all stays ErrNoCount.
func TestCountBeyond2e53(t *testing.T) {
	tests := []struct {
		line string
		err  error
		msg  string
	}{
		{"a;b 9007199254740993", ErrCountRange, "count 9007199254740993 is beyond 2^53 and cannot be summed exactly"},
		{"a;b 99999999999999999999999", ErrCountRange, "count 99999999999999999999999 is beyond 2^53 and cannot be summed exactly"},
		{"a;b 18446744073709551615 @1.5", ErrCountRange, "count 18446744073709551615 is beyond 2^53"},
		{"a;b 18446744073709551616 5", ErrCountRange, "count 18446744073709551616 is beyond 2^53"},
		{"a;b 5 9007199254740993", ErrCountRange, "count 9007199254740993 is beyond 2^53"},
		{"a;b 9007199254740992.5", ErrCountRange, "count 9007199254740992.5 is beyond 2^53"},
		{"a " + strings.Repeat("9", 400), ErrCountRange, "count " + strings.Repeat("9", 40) + "... is beyond 2^53"},
		{"a;b 1e99", ErrNoCount, ""},
		{"a;b 12x", ErrNoCount, ""},
	}
	for _, tt := range tests {
		var rec Record
		err := ParseLine([]byte(tt.line), &rec)
		if !errors.Is(err, tt.err) || !strings.Contains(fmt.Sprint(err), tt.msg) {
			t.Errorf("ParseLine(%.60q) = %v, want %v (%q)", tt.line, err, tt.err, tt.msg)
		}
	}
	for _, ok := range []string{"a;b 9007199254740992", "a;b 9007199254740992 @1", "a 9007199254740992 9007199254740992", "a;b 0.5", "comm 1.2.3 5"} {
		var rec Record
		if err := ParseLine([]byte(ok), &rec); err != nil {
			t.Errorf("ParseLine(%q): %v", ok, err)
		}
	}
	// A reader names the file and line of the refused line and counts
	// it in its skips.
	rd := NewReader(strings.NewReader("a;c 5\na;b 99999999999999999999999\n"), "in.folded")
	rd.Lenient = true
	var n int
	for rd.Next() {
		n++
	}
	sk := rd.Skips()
	if n != 1 || sk.Count != 1 || !strings.HasPrefix(sk.String(), "skipped 1 malformed line (first: in.folded:2: count 99999999999999999999999 is beyond 2^53 and cannot be summed exactly") {
		t.Errorf("%d records; %v", n, sk)
	}
}

func TestMeta(t *testing.T) {
	var m Meta
	m.Set(KeyHost, "web 7")
	m.Set(KeyFirst, "696.885404")
	m.Set(KeyLast, "702.832795")
	m.Set(KeyCapturedOn, `Sun Nov 22 02:01:14 2026`)
	m.Set(KeyCmdline, "perf record -e 'x\"y' -- sleep 1\n")
	m.Set(KeyRefWall, "2026-11-22T02:01:04.284867Z")
	m.Set(KeyRefPerf, "692.619527301")
	line := AppendMeta(nil, &m)
	if line[len(line)-2] != '"' {
		t.Fatalf("metadata line must end in a quote so flamegraph.pl ignores it: %q", line)
	}
	var rec Record
	if err := ParseLine(line[:len(line)-1], &rec); err == nil {
		t.Fatalf("metadata line %q parses as a folded line", line)
	}
	got, err := ParseMeta(line[:len(line)-1])
	if err != nil {
		t.Fatalf("ParseMeta(%q): %v", line, err)
	}
	if string(AppendMeta(nil, &got)) != string(line) {
		t.Errorf("round trip changed the line:\n%s%s", line, AppendMeta(nil, &got))
	}
	first, last, ok := got.Span()
	if !ok || first != 696885404000 || last != 702832795000 {
		t.Errorf("Span() = %v, %v, %v", first, last, ok)
	}
	wall, perf, ok := got.Reference()
	if !ok || wall.UnixNano() != 1795312864284867000 || perf != 692619527301 {
		t.Errorf("Reference() = %v, %v, %v", wall, perf, ok)
	}
	m.Set(KeyHost, "")
	if _, ok := m.Get(KeyHost); ok {
		t.Error("Set(key, \"\") did not remove the key")
	}
	for _, bad := range []string{
		`# flamekit v1 timed host=vm`,
		`# flamekit v1 timed host="vm`,
		`# flamekit v1 timed ="vm"`,
		`# flamekit v1 timed Host="vm"`,
		`# flamekit v1 timed host="a"x="b"`,
		`# flamekit v1 timed host='vm'`,
	} {
		if _, err := ParseMeta([]byte(bad)); err == nil {
			t.Errorf("ParseMeta(%q) succeeded, want error", bad)
		}
	}
}

// TestProfileExactSums: integer counts are summed exactly, in any order,
// up to 2^53, the range every reader accepts; a fraction falls back to
// float64; a sum beyond 2^53 is a *SumError, never a rounded line.
func TestProfileExactSums(t *testing.T) {
	big := float64(1 << 53)
	tests := []struct {
		name   string
		counts []float64
		want   string // "" for a *SumError
	}{
		{"up to 2^53", []float64{big - 2, 1, 1}, "a 9007199254740992\n"},
		{"other order", []float64{1, 1, big - 2}, "a 9007199254740992\n"},
		{"fraction", []float64{1.5, 2}, "a 3.5\n"},
		{"beyond 2^53", []float64{big, 1, 1}, ""},
		{"beyond int64", []float64{9e15, 9e15}, ""},
		{"fraction beyond 2^53", []float64{big, 1.5}, ""},
	}
	for _, tc := range tests {
		var p Profile
		for _, c := range tc.counts {
			p.Add(&Record{Stack: []byte("a"), Count: c, Kind: Classic})
		}
		var b strings.Builder
		_, err := p.WriteTo(&b)
		var se *SumError
		if tc.want == "" && (!errors.As(err, &se) || se.Stack != "a" || b.Len() != 0) || tc.want != "" && (err != nil || b.String() != tc.want) {
			t.Errorf("%s: %q %v, want %q", tc.name, b.String(), err, tc.want)
		}
	}
}

// TestProfileInOrder: sorted input builds no map and needs no sort; the
// first stack out of order moves it to a map, with the same result.
func TestProfileInOrder(t *testing.T) {
	var sorted, unsorted Profile
	for _, s := range []string{"a", "a;b", "b", "c"} {
		sorted.Add(&Record{Stack: []byte(s), Count: 1, Kind: Classic})
	}
	for _, s := range []string{"b", "a;b", "c", "a", "b"} {
		unsorted.Add(&Record{Stack: []byte(s), Count: 1, Kind: Classic})
	}
	if !sorted.InOrder() || unsorted.InOrder() {
		t.Errorf("InOrder: sorted %v, unsorted %v", sorted.InOrder(), unsorted.InOrder())
	}
	var got []string
	for _, e := range unsorted.Sorted() {
		got = append(got, fmt.Sprintf("%s=%v", e.Stack, e.Count))
	}
	if want := "a=1 a;b=1 b=2 c=1"; strings.Join(got, " ") != want {
		t.Errorf("Sorted: %v, want %s", got, want)
	}
}

// TestParseLineIn: the kind of the stream decides whether two counts make
// a differential line.
func TestParseLineIn(t *testing.T) {
	tests := []struct {
		line   string
		stream Kind
		stack  string
		kind   Kind
		before float64
	}{
		{"a;Evil 5 7", 0, "a;Evil", Diff, 5},
		{"a;Evil 5 7", Diff, "a;Evil", Diff, 5},
		{"a;Evil 5 7", Classic, "a;Evil 5", Classic, 0},
		{"a;Evil 5 7", Timed, "a;Evil 5", Classic, 0},
		{"a;Evil 5 7 @1", Classic, "a;Evil 5", Timed, 0},
		{"a;Evil 5", Classic, "a;Evil", Classic, 0},
	}
	for _, tt := range tests {
		var rec Record
		if err := ParseLineIn([]byte(tt.line), &rec, tt.stream); err != nil {
			t.Errorf("ParseLineIn(%q, %v): %v", tt.line, tt.stream, err)
			continue
		}
		if string(rec.Stack) != tt.stack || rec.Kind != tt.kind || rec.Before != tt.before || rec.Count != 7 && tt.line != "a;Evil 5" {
			t.Errorf("ParseLineIn(%q, %v) = %q %v before %v count %v", tt.line, tt.stream, rec.Stack, rec.Kind, rec.Before, rec.Count)
		}
	}
}

// TestClassicMeta: a classic stream's metadata line reads and writes back
// as one; a frame that starts as one is escaped as the timed one is.
func TestClassicMeta(t *testing.T) {
	line := `# flamekit v1 classic source="a.folded"`
	m, err := ParseMeta([]byte(line))
	if err != nil || !m.Classic || len(m.Fields) != 1 {
		t.Fatalf("ParseMeta(%q) = %+v, %v", line, m, err)
	}
	if got := string(AppendMeta(nil, &m)); got != line+"\n" {
		t.Errorf("AppendMeta = %q", got)
	}
	for _, bad := range []string{"# flamekit v1 classicx", "# flamekit v1 classic x", "# flamekit v2 classic"} {
		if _, err := ParseMeta([]byte(bad)); err == nil {
			t.Errorf("ParseMeta(%q) accepted", bad)
		}
	}
	if got, _ := AppendStack(nil, []byte("# flamekit v1 classic x;leaf"), Timed); string(got) != "#_flamekit v1 classic x;leaf" {
		t.Errorf("AppendStack = %q", got)
	}
}
