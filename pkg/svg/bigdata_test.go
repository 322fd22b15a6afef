package svg

import (
	"flamekit/internal/testkit/testcapture"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// realStacks returns the distinct stacks (without their root comm frame)
// that stackcollapse-perf.pl folded from the real captures in
// testdata/perf, with every flag, or skips the test when they are absent.
func realStacks(t testing.TB) []string {
	t.Helper()
	files, _ := filepath.Glob("../../testdata/perf/perl/*.collapsed-*.txt.gz")
	if len(files) == 0 {
		t.Skip("skipping: no real captures in testdata/perf/perl")
	}
	seen := map[string]bool{}
	for rec := range testcapture.Records(t, files...) {
		if _, rest, ok := strings.Cut(string(rec.Stack), ";"); ok {
			seen[rest] = true
		}
	}
	out := make([]string, 0, len(seen))
	for s := range seen {
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

// bigFolded builds a folded profile of at least minStacks distinct stacks
// from real stacks: every real stack is run by many processes ("comm-PID"
// root frames, as stackcollapse --pid writes them), with deterministic,
// uneven counts. It returns the folded text and the number of stacks.
func bigFolded(t testing.TB, minStacks int) (string, int) {
	stacks := realStacks(t)
	var sb strings.Builder
	n := 0
	seed := uint64(42)
	for pid := 1000; n < minStacks; pid++ {
		comm := [...]string{"java", "node", "templates", "goprog", "dd", "ls"}[pid%6]
		for i, s := range stacks {
			// a cheap LCG: a long-tailed count per stack
			seed = seed*6364136223846793005 + 1442695040888963407
			c := 1 + (seed>>33)%7
			if (seed>>40)%16 == 0 {
				c *= 50
			}
			if i%3 == pid%3 { // not every process runs every stack
				continue
			}
			fmt.Fprintf(&sb, "%s-%d;%s %d\n", comm, pid, s, c*1003009)
			n++
		}
	}
	return sb.String(), n
}

// writeBig writes bigFolded to a file in dir.
func writeBig(t testing.TB, dir string, minStacks int) (string, int) {
	text, n := bigFolded(t, minStacks)
	path := filepath.Join(dir, fmt.Sprintf("big-%d.folded", n))
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, n
}
