package slicecmd

import (
	"strings"
	"testing"

	"flamekit/pkg/folded"
)

func TestRange(t *testing.T) {
	got := Range(folded.Time(427_200_000_000), folded.Time(429_220_000_000), " --no-idle x.folded")
	if want := "timeslice --from @427.200000 --to @429.220000 --no-idle x.folded"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestQuote(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"/tmp/a.folded", "/tmp/a.folded"},
		{"", "''"},
		{"a b", "'a b'"},
		{"it's", `'it'\''s'`},
		{"$HOME", "'$HOME'"},
	} {
		if got := Quote(c.in); got != c.want {
			t.Errorf("Quote(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestInput(t *testing.T) {
	if got := Input("-"); got != "-" {
		t.Errorf("stdin: %q", got)
	}
	if got := Input("/a b/c.folded"); got != "'/a b/c.folded'" {
		t.Errorf("absolute: %q", got)
	}
	if got := Input("c.folded"); !strings.HasPrefix(got, "/") || !strings.HasSuffix(got, "/c.folded") {
		t.Errorf("relative: %q", got)
	}
}
