package explorer

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"flamekit/pkg/timeline"
)

// re2Cases is testdata/re2cases.json: expressions and inputs; Go's regexp
// is the oracle.
type re2Cases struct {
	Inputs      []string
	Expressions []string
}

func readRE2Cases(t *testing.T) re2Cases {
	t.Helper()
	b, err := os.ReadFile("testdata/re2cases.json")
	if err != nil {
		t.Fatal(err)
	}
	var c re2Cases
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	return c
}

// The page's regular expressions (re2.js) are Go's: each expression of
// the table is accepted by both or refused by both with Go's message, and
// matches the same inputs (issue 29: one meaning for every rule; issue
// 34.8: linear time).
func TestRE2SameAsGo(t *testing.T) {
	cases := readRE2Cases(t)
	// a page of two samples: the expressions are what is tested
	tl, _, err := readTimeline(strings.NewReader("# flamekit v1 timed\na;b 1 @100.000000 cpu=0\na;c 1 @100.500000 cpu=0\n"), "re2", timeline.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b := newBrowser(t, 800, 600)
	b.open(t, "file://"+pageFile(t, "re2.html", tl, Options{}))
	in, err := json.Marshal(cases.Inputs)
	if err != nil {
		t.Fatal(err)
	}
	exprs, err := json.Marshal(cases.Expressions)
	if err != nil {
		t.Fatal(err)
	}
	var results []struct {
		OK      bool
		Matches []bool
		Error   string
	}
	b.Eval(t, `(() => { const in_ = `+string(in)+`; return `+string(exprs)+`.map(re => flamekit.re2(re, in_)); })()`, &results)
	accepted := 0
	for k, src := range cases.Expressions {
		got := results[k]
		re, err := regexp.Compile(src)
		if err != nil {
			want := strings.TrimPrefix(err.Error(), "error parsing regexp: ")
			if got.OK {
				t.Errorf("%q: the page accepts it; Go says %s", src, want)
			} else if got.Error != want {
				t.Errorf("%q: the page says %q; Go says %q", src, got.Error, want)
			}
			continue
		}
		if !got.OK {
			t.Errorf("%q: the page refuses it (%s); Go accepts it", src, got.Error)
			continue
		}
		accepted++
		for i, s := range cases.Inputs {
			if want := re.MatchString(s); got.Matches[i] != want {
				t.Errorf("%q on %q: the page says %v, Go %v", src, s, got.Matches[i], want)
			}
		}
	}
	if accepted < len(cases.Expressions)/2 {
		t.Errorf("only %d of %d expressions compile: the table tests little", accepted, len(cases.Expressions))
	}
}

// A link whose filter or search backtracks in JavaScript's engine opens
// and filters (issue 34.8: #search=^(\w+)+!$ froze the tab for 40 s). No
// clock: a backtracking engine would not return within the browser test's
// own timeout.
func TestRE2LinkDoesNotFreeze(t *testing.T) {
	in := foldedFile(t, "burst")
	page := filepath.Join(shared, "re2link.html")
	shell(t, "timeslice -q --heatmap=html "+in+" > "+page)
	b := newBrowser(t, 1000, 800)
	long := strings.Repeat("a", 100000)
	b.open(t, "file://"+page+`#from=0s&to=30s&search=^(\w%2B)%2B!$&focus=^(\w%2B)%2B!$|burst_spin`)
	var got struct{ OK bool }
	start := time.Now()
	b.Eval(t, `flamekit.re2("^(\\w+)+!$", ["`+long+`", "`+long+`!"])`, &got)
	if !got.OK {
		t.Fatal("the expression was refused")
	}
	t.Logf("^(\\w+)+!$ on 2 × 100,000 characters: %v (with the page's opening)", time.Since(start))
	if tot := b.totals(t); tot.Samples == 0 {
		t.Errorf("focus=^(\\w+)+!$|burst_spin kept nothing: %v", tot)
	}
	// an expression Go refuses is refused with Go's reason
	b.open(t, "file://"+page+`#from=0s&to=30s&focus=(%3F<%3Dreset_)storm`)
	if e := b.text(t, "filter-error"); !strings.Contains(e, "invalid named capture") {
		t.Errorf("filter error %q", e)
	}
}
