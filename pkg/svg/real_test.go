package svg

import (
	"bytes"
	"compress/gzip"
	"flag"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

var updateReal = flag.Bool("update", false, "rewrite the golden files (testdata/real: needs flamegraph.pl, see FLAMEGRAPH_PL)")

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
// TestPerlFixtures does. With -update, the Perl SVGs are drawn again with
// the flamegraph.pl named by $FLAMEGRAPH_PL (default
// /work/perl-ref/flamegraph.pl).
func TestPerlRealCaptures(t *testing.T) {
	for _, tc := range realCases {
		t.Run(tc.input, func(t *testing.T) {
			in := filepath.Join("../../testdata/perf/perl", tc.input+".txt.gz")
			if _, err := os.Stat(in); err != nil {
				t.Skipf("skipping: no real capture %s", in)
			}
			folded := filepath.Join(t.TempDir(), tc.input+".folded")
			if err := os.WriteFile(folded, gunzip(t, mustRead(t, in)), 0o644); err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata/real", tc.input+"."+tc.palette+".svg.gz")
			if *updateReal {
				perl := os.Getenv("FLAMEGRAPH_PL")
				if perl == "" {
					perl = "/work/perl-ref/flamegraph.pl"
				}
				out, err := exec.Command("perl", perl, "--colors="+tc.palette, folded).Output()
				if err != nil {
					t.Fatalf("%s: %v", perl, err)
				}
				var buf bytes.Buffer
				zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
				zw.Write(out)
				zw.Close()
				if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want := gunzip(t, mustRead(t, golden))
			o := DefaultOptions()
			o.Colors = tc.palette
			got := draw(t, folded, o, Rewrite{}, false)
			if g, w := svgSizeRE.FindSubmatch(got), svgSizeRE.FindSubmatch(want); !bytes.Equal(g[0], w[0]) {
				t.Errorf("size: got %s, want %s", g[0], w[0])
			}
			fs := frameSet(want)
			if len(fs) < 500 {
				t.Fatalf("only %d frames in %s", len(fs), golden)
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
