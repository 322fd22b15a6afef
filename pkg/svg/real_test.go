package svg

import (
	"bytes"
	"compress/gzip"
	"flamekit/internal/golden"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// realCases are real captures (folded by stackcollapse-perf.pl, in
// testdata/perf/perl) drawn by flamegraph.pl, whose SVGs are kept gzipped
// in testdata/real.
var realCases = []struct {
	input, palette string
}{
	{"java.collapsed-pid", "java"},
	{"syswide.collapsed-pid", "hot"},
}

// TestPerlRealCaptures compares our SVGs of real captures with
// flamegraph.pl's, frame for frame and label for label, as
// TestPerlFixtures does. With -update, the Perl SVGs (the oracle, not our
// output) are drawn again with the flamegraph.pl named by $FLAMEGRAPH_PL
// (default /work/perl-ref/flamegraph.pl).
func TestPerlRealCaptures(t *testing.T) {
	for _, tc := range realCases {
		t.Run(tc.input, func(t *testing.T) {
			in := filepath.Join("../../testdata/perf/perl", tc.input+".txt.gz")
			folded := filepath.Join(t.TempDir(), tc.input+".folded")
			if err := os.WriteFile(folded, gunzip(t, mustRead(t, in)), 0o644); err != nil {
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
			want := gunzip(t, mustRead(t, path))
			o := DefaultOptions()
			o.Colors = tc.palette
			got := draw(t, folded, o, Rewrite{}, false)
			if g, w := svgSizeRE.FindSubmatch(got), svgSizeRE.FindSubmatch(want); !bytes.Equal(g[0], w[0]) {
				t.Errorf("size: got %s, want %s", g[0], w[0])
			}
			fs := frameSet(want)
			if len(fs) < 500 {
				t.Fatalf("only %d frames in %s", len(fs), path)
			}
			compareSets(t, "frame", frameSet(got), fs)
			compareSets(t, "label", labelSet(got), labelSet(want))
		})
	}
}

func gunzip(t testing.TB, data []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
