package svg

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"flamekit/internal/testkit/golden"
	"flamekit/pkg/view/flamegraph"
)

// realCases are real captures (folded by stackcollapse-perf.pl, in
// testdata/perf/perl, or folded by a BPF tool, in testdata/bpf) drawn by
// flamegraph.pl, whose SVGs are kept gzipped in testdata/real. The chain
// palette is drawn with its rewrite, as flamegraph.pl --colors chain does.
var realCases = []struct {
	input, palette string
	dir            string // default ../../testdata/perf/perl
}{
	{"java.collapsed-pid", "java", ""},
	{"syswide.collapsed-pid", "hot", ""},
	// bcc offwaketime -f: target;stack;--;waker stack;waker, four lines
	// with no waker ("…;--; N"); the waker frames are aqua, "--" grey.
	{"bcc-offwaketime", "chain", "../../testdata/bpf"},
	// bcc profile -f -d: "-" between the user and kernel frames.
	{"bcc-profile", "hot", "../../testdata/bpf"},
	// async-profiler collapsed with _[j] _[i] _[k] _[0] _[1] annotations.
	{"async-profiler", "java", "../../testdata/bpf"},
}

// TestPerlRealCaptures compares our SVGs of real captures with
// flamegraph.pl's, frame for frame and label for label, as
// TestPerlFixtures does. With -update, the Perl SVGs (the oracle, not our
// output) are drawn again with the flamegraph.pl named by $FLAMEGRAPH_PL
// (default /work/perl-ref/flamegraph.pl).
func TestPerlRealCaptures(t *testing.T) {
	for _, tc := range realCases {
		t.Run(tc.input, func(t *testing.T) {
			dir := tc.dir
			if dir == "" {
				dir = "../../testdata/perf/perl"
			}
			in := filepath.Join(dir, tc.input+".txt.gz")
			folded := filepath.Join(t.TempDir(), tc.input+".folded")
			if err := os.WriteFile(folded, golden.Gunzip(t, mustRead(t, in)), 0o644); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata/real", tc.input+"."+tc.palette+".svg.gz")
			if golden.Updating() {
				perl := os.Getenv("FLAMEGRAPH_PL")
				if perl == "" {
					perl = "/work/perl-ref/flamegraph.pl"
				}
				out, err := exec.Command("perl", perl, "--colors="+tc.palette, folded).Output()
				if err != nil {
					t.Fatalf("%s: %v", perl, err)
				}
				if err := golden.Write(path, out); err != nil {
					t.Fatal(err)
				}
			}
			want := golden.Gunzip(t, mustRead(t, path))
			o := DefaultOptions()
			o.Colors = tc.palette
			got := draw(t, folded, o, flamegraph.Rewrite{Chain: tc.palette == "chain"}, false)
			if g, w := svgSizeRE.FindSubmatch(got), svgSizeRE.FindSubmatch(want); !bytes.Equal(g[0], w[0]) {
				t.Errorf("size: got %s, want %s", g[0], w[0])
			}
			fs := frameSet(want)
			if len(fs) < 30 {
				t.Fatalf("only %d frames in %s", len(fs), path)
			}
			// The root's total is the input's: sum the last field of
			// every line (all these inputs are classic folded lines).
			var total int64
			for _, line := range strings.Split(strings.TrimSpace(string(golden.Gunzip(t, mustRead(t, in)))), "\n") {
				n, err := strconv.ParseInt(line[strings.LastIndexByte(line, ' ')+1:], 10, 64)
				if err != nil {
					t.Fatalf("%s: %q: %v", in, line, err)
				}
				total += n
			}
			root := fmt.Sprintf("<title>all (%s samples, 100%%)</title>", commas(total))
			if !bytes.Contains(got, []byte(root)) {
				t.Errorf("no root %s", root)
			}
			compareSets(t, "frame", frameSet(got), fs)
			compareSets(t, "label", labelSet(got), labelSet(want))
		})
	}
}

// commas formats n with thousands separators, as flamegraph.pl does.
func commas(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
