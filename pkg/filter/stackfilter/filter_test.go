package stackfilter

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"flamekit/pkg/filter/selection"
	"flamekit/pkg/folded"
)

// comm returns options selecting the comms that match re.
func comm(re string) Options {
	return Options{Select: &selection.Selection{Comm: regexp.MustCompile(re)}}
}

// drop is TestStack's want for a dropped stack.
const drop = "<dropped>"

// TestStack checks each option, and their order, on small stacks.
func TestStack(t *testing.T) {
	tests := []struct {
		name  string
		opts  Options
		stack string
		want  string // drop when the stack is dropped
	}{
		{"nothing", Options{}, "a;b;c", "a;b;c"},
		{"focus keeps", Options{Focus: []string{"^b$"}}, "a;b;c", "a;b;c"},
		{"focus drops", Options{Focus: []string{"^x$"}}, "a;b;c", drop},
		{"focus is unanchored", Options{Focus: []string{"b"}}, "a;abc;c", "a;abc;c"},
		{"focus alternatives", Options{Focus: []string{"^x$", "^c$"}}, "a;b;c", "a;b;c"},
		{"focus matches the comm", Options{Focus: []string{"^a$"}}, "a;b;c", "a;b;c"},
		{"ignore drops", Options{Ignore: []string{"^b$"}}, "a;b;c", drop},
		{"ignore keeps", Options{Ignore: []string{"^x$"}}, "a;b;c", "a;b;c"},
		{"ignore wins over focus", Options{Focus: []string{"b"}, Ignore: []string{"c"}}, "a;b;c", drop},
		{"ignore on a frame that focus also matches", Options{Focus: []string{"b"}, Ignore: []string{"b"}}, "a;b;c", drop},
		{"focus on the stack before hide", Options{Focus: []string{"^b$"}, Hide: []string{"^b$"}}, "a;b;c", "a;c"},
		{"hide", Options{Hide: []string{"^b$"}}, "a;b;c;b", "a;c"},
		{"hide all", Options{Hide: []string{"."}}, "a;b", drop},
		{"show", Options{Show: []string{"^[ac]$"}}, "a;b;c", "a;c"},
		{"show none", Options{Show: []string{"^x$"}}, "a;b;c", drop},
		{"hide and show", Options{Hide: []string{"^a$"}, Show: []string{"^[ab]$"}}, "a;b;c", "b"},
		// pprof's ShowFrom examples: frames [A, B, C, B], A the root.
		{"show-from root", Options{ShowFrom: []string{"^A$"}}, "A;B;C;B", "A;B;C;B"},
		{"show-from rootmost", Options{ShowFrom: []string{"^B$"}}, "A;B;C;B", "B;C;B"},
		{"show-from C", Options{ShowFrom: []string{"^C$"}}, "A;B;C;B", "C;B"},
		{"show-from none", Options{ShowFrom: []string{"^D$"}}, "A;B;C;B", drop},
		{"show-from after hide", Options{Hide: []string{"^B$"}, ShowFrom: []string{"^B$"}}, "A;B;C;B", drop},
		{"root-at leafmost", Options{RootAt: []string{"^B$"}}, "A;B;C;B;D", "B;D"},
		{"root-at none", Options{RootAt: []string{"^X$"}}, "A;B", drop},
		{"root-at the root", Options{RootAt: []string{"^A$"}}, "A;B", "A;B"},
		// pprof's PruneFrom examples: [A, B, C, B, D] with A the root
		// here (root first).
		{"prune-from leafmost", Options{PruneFrom: []string{"^B$"}}, "A;B;C;B;D", "A;B;C;B"},
		{"prune-from leaf", Options{PruneFrom: []string{"^D$"}}, "A;B;C;B;D", "A;B;C;B;D"},
		{"prune-from none keeps", Options{PruneFrom: []string{"^X$"}}, "A;B;C", "A;B;C"},
		{"prune-from on the simplified name", Options{PruneFrom: []string{`^main\.$`}}, "p;main.(*T).run;x", "p;main.(*T).run"},
		{"prune-from misses the argument list", Options{PruneFrom: []string{`run`}}, "p;main.(*T).run;x", "p;main.(*T).run;x"},
		{"prune-from keeps (anonymous namespace)", Options{PruneFrom: []string{`::f$`}}, "p;(anonymous namespace)::f;x", "p;(anonymous namespace)::f"},
		{"prune-from never matches an empty frame", Options{PruneFrom: []string{`^$`}}, "p;;x", "p;;x"},
		{"cuts in order", Options{ShowFrom: []string{"^B$"}, PruneFrom: []string{"^C$"}}, "A;B;C;D", "B;C"},
		{"root-at then prune-from", Options{RootAt: []string{"^C$"}, PruneFrom: []string{"^B$"}}, "A;B;C;D", "C;D"},
		{"merge", Options{Merge: []string{`^runtime\.=runtime`}}, "p;runtime.a;runtime.b;main;runtime.c", "p;runtime;main;runtime"},
		{"merge without name", Options{Merge: []string{`^rt`}}, "p;rt1;rt2;x", "p;^rt;x"},
		{"merge first rule wins", Options{Merge: []string{"a=A", "ab=B"}}, "ab;abc", "A"},
		{"merge runs of different rules", Options{Merge: []string{"^a=X", "^b=X"}}, "a;b;c", "X;X;c"},
		{"merge then collapse", Options{Merge: []string{"^a=X", "^b=X"}, CollapseRecursion: true}, "a;b;c", "X;c"},
		{"collapse recursion", Options{CollapseRecursion: true}, "p;f;f;f;g;f;f", "p;f;g;f"},
		{"collapse after hide", Options{Hide: []string{"^g$"}, CollapseRecursion: true}, "p;f;g;f", "p;f"},
		{"comm", comm("^java$"), "java;f", "java;f"},
		{"comm as written", comm("^java$"), "java-123/124;f", drop},
		{"comm with pid", comm("^java(-|$)"), "java-123;f", "java-123;f"},
		{"comm is unanchored", comm("-123/"), "java-123/124;f", "java-123/124;f"},
		{"comm drops", comm("^java$"), "javac;f", drop},
		{"comm looks at the root only", comm("^f$"), "java;f", drop},
		{"comm before focus", Options{Select: &selection.Selection{Comm: regexp.MustCompile("^a$")}, Focus: []string{"b"}}, "a;b", "a;b"},
		{"empty stack", Options{Hide: []string{"x"}}, "", ""},
		{"empty stack hidden", Options{Hide: []string{"^$"}}, "", drop},
		{"empty frames", Options{Hide: []string{"^$"}}, ";a;", "a"},
		// pprof also matches the (empty) file names of a profile made from
		// folded stacks, so there ^$ matches every frame; here only empty
		// frames.
		{"^$ matches empty frames only", Options{Focus: []string{"^$"}}, "a;b", drop},
		{"^$ matches an empty frame", Options{Focus: []string{"^$"}}, "a;;b", "a;;b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := New(tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i < 2; i++ { // computed, then cached
				out, keep := f.Stack([]byte(tt.stack))
				got := drop
				if keep {
					got = string(out)
				}
				if got != tt.want {
					t.Fatalf("Stack(%q) = %q, %v; want %q", tt.stack, got, keep, tt.want)
				}
			}
		})
	}
}

func TestOptionErrors(t *testing.T) {
	for _, o := range []Options{
		{Focus: []string{"("}}, {Ignore: []string{"a", "[z-a]"}}, {ShowFrom: []string{"*"}},
		{Merge: []string{"=x"}}, {Merge: []string{"x="}}, {Merge: []string{"x=a;b"}}, {Merge: []string{"(=x"}},
	} {
		_, err := New(o)
		var oe *OptionError
		if !errors.As(err, &oe) {
			t.Errorf("New(%+v): error %v, want an *OptionError", o, err)
		}
	}
}

func TestSimplifyName(t *testing.T) {
	for in, want := range map[string]string{
		"main.(*Pool).run":              "main.",
		"net/http.(*Client).Do":         "net/http.",
		"foo(int, char)":                "foo",
		".foo":                          "foo",
		"(anonymous namespace)::f(int)": "(anonymous namespace)::f",
		"std::function<int (int)>::operator()(int)":   "std::function<int ",
		"A::operator()(int)":                          "A::operator()",
		"v8::internal::(anonymous namespace)::Invoke": "v8::internal::(anonymous namespace)::Invoke",
		"plain": "plain",
		"":      "",
	} {
		if got := simplifyName(in); got != want {
			t.Errorf("simplifyName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestUnmatched(t *testing.T) {
	f, err := New(Options{Focus: []string{"a", "zz"}, Hide: []string{"b"}, Merge: []string{"q=Q"}, Select: &selection.Selection{Comm: regexp.MustCompile("^(a|c)$")}})
	if err != nil {
		t.Fatal(err)
	}
	f.Stack([]byte("a;b"))
	got := strings.Join(f.Unmatched(), ", ")
	if want := `--focus "zz", --merge "q=Q"`; got != want {
		t.Errorf("Unmatched() = %s, want %s", got, want)
	}
	f, _ = New(comm("^c$"))
	f.Stack([]byte("a;b"))
	if got := strings.Join(f.Unmatched(), ", "); got != `--comm "^c$"` {
		t.Errorf("Unmatched() = %s, want the comm", got)
	}
}

// TestCacheLimit: a filter that empties its caches when they are full
// gives the same results, and stays within its bound.
func TestCacheLimit(t *testing.T) {
	f, _ := New(Options{Hide: []string{"^x"}})
	f.limit = 4096
	for round := 0; round < 2; round++ {
		for i := 0; i < 500; i++ {
			s := fmt.Sprintf("p%d;x1;z", i)
			out, keep := f.Stack([]byte(s))
			if want := fmt.Sprintf("p%d;z", i); !keep || string(out) != want {
				t.Fatalf("%q: got %q, %v; want %q", s, out, keep, want)
			}
			if f.cached > f.limit+200 {
				t.Fatalf("cache holds %d bytes, limit %d", f.cached, f.limit)
			}
		}
	}
}

// copyString runs Copy on input.
func copyString(t *testing.T, o Options, input string) (string, Stats) {
	t.Helper()
	f, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	w := bufio.NewWriter(&out)
	rd := folded.NewReader(strings.NewReader(input), "in")
	rd.Lenient = true
	st, err := f.Copy(w, rd)
	if err != nil {
		t.Fatal(err)
	}
	w.Flush()
	return out.String(), st
}

func TestCopy(t *testing.T) {
	in := `# flamekit v1 timed host="h" first="1.000000" last="3.000000"
a;b;c 10 @1.000000
a;x;c 20 @2.000000
malformed
a;b 5 @3.000000
# flamekit v1 timed first="1.000000" last="3.000000" samples="3"
`
	out, st := copyString(t, Options{Ignore: []string{"^x$"}, Hide: []string{"^b$"}}, in)
	want := `# flamekit v1 timed host="h" first="1.000000" last="3.000000"
a;c 10 @1.000000
a 5 @3.000000
# flamekit v1 timed first="1.000000" last="3.000000" samples="2"
`
	if out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	if st.Lines != 3 || st.Written != 2 || st.In != 35 || st.Out != 15 {
		t.Errorf("stats %+v", st)
	}

	// A samples= that does not count the lines before it is dropped.
	out, _ = copyString(t, Options{}, "# flamekit v1 timed samples=\"9\"\na 1 @1\n")
	if out != "# flamekit v1 timed\na 1 @1\n" {
		t.Errorf("leading samples=: got %q", out)
	}
	// Concatenated captures: each trailing line counts its own.
	cat := "a 1 @1\n# flamekit v1 timed samples=\"1\"\nb 1 @2\nc 1 @3\n# flamekit v1 timed samples=\"2\"\n"
	out, _ = copyString(t, Options{Focus: []string{"^[ac]$"}}, cat)
	if want := "a 1 @1\n# flamekit v1 timed samples=\"1\"\nc 1 @3\n# flamekit v1 timed samples=\"1\"\n"; out != want {
		t.Errorf("concatenated: got %q, want %q", out, want)
	}
}

// TestCopyLineKinds: each kind of line keeps everything after its stack.
func TestCopyLineKinds(t *testing.T) {
	in := "a;b 12\r\n" + // classic, CRLF
		"a;b 1.5 2.25\n" + // differential
		"a;b 10309278 @427.211693 cpu=1 pid=5120 tid=5121\n" + // timed with fields
		"a;b c;b 7\n" + // a frame with a blank
		" 3\n" // empty stack
	out, st := copyString(t, Options{Merge: []string{"^b$=B"}}, in)
	want := "a;B 12\na;B 1.5 2.25\na;B 10309278 @427.211693 cpu=1 pid=5120 tid=5121\na;b c;B 7\n 3\n"
	if out != want {
		t.Errorf("got %q\nwant %q", out, want)
	}
	if st.In != st.Out || st.InBefore != 1.5 || st.OutBefore != 1.5 {
		t.Errorf("stats %+v", st)
	}
	// Unchanged lines are copied byte for byte.
	if out, _ := copyString(t, Options{Focus: []string{"a"}}, "a;b 0012.50 @1.5\n"); out != "a;b 0012.50 @1.5\n" {
		t.Errorf("unchanged line rewritten: %q", out)
	}
}

// TestCopySelection: --cpu, --pid and --tid select on the fields of timed
// lines; lines without the field are dropped and counted.
func TestCopySelection(t *testing.T) {
	in := "a;x 1 @1 cpu=0 pid=10 tid=11\n" +
		"b;x 2 @2 cpu=1 pid=10 tid=12\n" +
		"c;x 4 @3 cpu=1 pid=20 tid=20\n" +
		"d;x 8 @4 cpu=0\n" +
		"e;x 16\n"
	list := func(s string) *selection.List {
		l, err := selection.ParseList(s)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	for _, tc := range []struct {
		sel     selection.Selection
		want    string
		unknown int64
	}{
		{selection.Selection{CPU: list("0")}, "a;x d;x", 1},
		{selection.Selection{CPU: list("1")}, "b;x c;x", 1},
		{selection.Selection{PID: list("10")}, "a;x b;x", 2},
		{selection.Selection{TID: list("12,20")}, "b;x c;x", 2},
		{selection.Selection{PID: list("0-100"), Comm: regexp.MustCompile("^[ac]$")}, "a;x c;x", 2},
		{selection.Selection{Comm: regexp.MustCompile("^[de]$")}, "d;x e;x", 0},
	} {
		sel := tc.sel
		out, st := copyString(t, Options{Select: &sel, Hide: []string{"^nothing$"}}, in)
		var got []string
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			got = append(got, strings.Fields(line)[0])
		}
		if strings.Join(got, " ") != tc.want || st.Unknown != tc.unknown {
			t.Errorf("%s: kept %v, %d unknown; want %s, %d", sel.Describe(), got, st.Unknown, tc.want, tc.unknown)
		}
	}
}
