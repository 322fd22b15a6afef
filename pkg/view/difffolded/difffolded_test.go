package difffolded

import (
	"strings"
	"testing"

	"flamekit/pkg/folded"
)

// profile reads folded text into a Profile.
func profile(t *testing.T, text string) *folded.Profile {
	t.Helper()
	rd := folded.NewReader(strings.NewReader(text), "test")
	var p folded.Profile
	for rd.Next() {
		p.Add(rd.Record())
	}
	if err := rd.Err(); err != nil {
		t.Fatal(err)
	}
	return &p
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
			lines, err := Diff(profile(t, tt.before), profile(t, tt.after), tt.opt)
			if err != nil {
				t.Fatal(err)
			}
			var got []byte
			for _, l := range lines {
				rec := folded.Record{Stack: []byte(l.Stack), Before: l.Before, Count: l.After, Kind: folded.Diff}
				got = folded.AppendRecord(got, &rec)
			}
			if string(got) != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestDiffNormaliseEmpty(t *testing.T) {
	if _, err := Diff(profile(t, ""), profile(t, "a 1\n"), Options{Normalize: true}); err == nil || !strings.Contains(err.Error(), "no samples") {
		t.Errorf("normalising an empty first profile: err %v, want one saying it has no samples", err)
	}
}

// FuzzStripHex checks that stripHex never panics, is idempotent and leaves
// no hex digits after "0x".
func FuzzStripHex(f *testing.F) {
	for _, s := range []string{"f;0xAB", "0x", "0x0x1", "a0xg", "x;0xdeadBEEF;y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		once := stripHex(s)
		if twice := stripHex(once); twice != once {
			t.Fatalf("stripHex not idempotent: %q -> %q -> %q", s, once, twice)
		}
		for i := strings.Index(once, "0x"); i >= 0; {
			if i+2 < len(once) && isHex(once[i+2]) {
				t.Fatalf("stripHex(%q) = %q leaves a hex digit after 0x", s, once)
			}
			j := strings.Index(once[i+2:], "0x")
			if j < 0 {
				break
			}
			i += 2 + j
		}
	})
}
