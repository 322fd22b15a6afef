package folded

import (
	"bytes"
	"testing"
)

// TestAppendStack: the stacks a reader would misread are escaped, each
// where needed only, and every line written reads back as written.
func TestAppendStack(t *testing.T) {
	for _, tc := range []struct {
		stack string
		kind  Kind
		want  string
	}{
		{"java;Evil 5", Classic, "java;Evil_5"}, // a perf-map symbol
		{"java;Evil 5", Timed, "java;Evil 5"},
		{"java;Evil 5", Diff, "java;Evil 5"},
		{"a;f 1.5", Classic, "a;f_1.5"},
		{"a;f 1.2.3", Classic, "a;f 1.2.3"}, // not a count: read as a frame
		{"a;f 1.", Classic, "a;f_1."},
		{"a;f5", Classic, "a;f5"},
		{"# flamekit v1 timed x;leaf", Classic, "#_flamekit v1 timed x;leaf"},
		{"# flamekit v1 timed", Timed, "#_flamekit v1 timed"},
		{"# flamekit v1 timedx;leaf", Classic, "# flamekit v1 timedx;leaf"},
		{"# flamekit v1 timed 5", Classic, "#_flamekit v1 timed_5"},
		{"#evil;main", Classic, "#evil;main"},
	} {
		got, escaped := AppendStack([]byte("x"), []byte(tc.stack), tc.kind)
		if string(got[1:]) != tc.want || escaped != (tc.want != tc.stack) || NeedsEscape([]byte(tc.stack), tc.kind) != escaped {
			t.Errorf("%q %v: %q %v, want %q", tc.stack, tc.kind, got[1:], escaped, tc.want)
		}
		rec := Record{Stack: []byte(tc.stack), Kind: tc.kind, Count: 7, Before: 3, Time: 1500000}
		checkRoundTrip(t, &rec)
	}
}

// checkRoundTrip checks that the line AppendRecord writes reads back as
// a record of the same kind, counts and time, with AppendStack's stack.
func checkRoundTrip(t *testing.T, rec *Record) {
	t.Helper()
	line := AppendRecord(nil, rec)
	if IsMeta(line) {
		t.Fatalf("%q reads as a metadata line", line)
	}
	var back Record
	if err := ParseLine(bytes.TrimSuffix(line, []byte("\n")), &back); err != nil {
		t.Fatalf("%q: %v", line, err)
	}
	want, _ := AppendStack(nil, rec.Stack, rec.Kind)
	if !bytes.Equal(back.Stack, want) || back.Kind != rec.Kind || back.Count != rec.Count ||
		rec.Kind == Diff && back.Before != rec.Before || rec.Kind == Timed && back.Time != rec.Time {
		t.Fatalf("%q read back as %q %v %v %v %v", line, back.Stack, back.Kind, back.Count, back.Before, back.Time)
	}
	if NeedsEscape(want, rec.Kind) {
		t.Fatalf("%q escaped as %q still needs an escape", rec.Stack, want)
	}
}

// FuzzAppendStack: any stack of one line, written as any kind, reads
// back as that kind with its counts.
func FuzzAppendStack(f *testing.F) {
	for _, s := range []string{"java;Evil 5", "# flamekit v1 timed x;leaf", "a;b 1.5", "a;;b", " 5", "a\t7"} {
		f.Add(s, uint8(0))
		f.Add(s, uint8(1))
		f.Add(s, uint8(2))
	}
	f.Fuzz(func(t *testing.T, stack string, k uint8) {
		if bytes.ContainsAny([]byte(stack), "\n\r") || stack == "" {
			return
		}
		kind := []Kind{Classic, Diff, Timed}[k%3]
		rec := Record{Stack: []byte(stack), Kind: kind, Count: 7, Before: 3, Time: 1500000}
		var probe Record
		// Only stacks that read as themselves in some line are asked of
		// a writer (a stack with a trailing blank, or only blanks, is
		// not one).
		if ParseLine([]byte(stack+" 7 @1.5"), &probe) != nil || string(probe.Stack) != stack {
			return
		}
		checkRoundTrip(t, &rec)
	})
}
