package flamegraph_test

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"flamekit/internal/testkit/testcapture"
	"flamekit/pkg/folded"
	"flamekit/pkg/source"
	"flamekit/pkg/svg"
	"flamekit/pkg/view/flamegraph"
)

// realFolded returns the lines of the Perl-collapsed real captures, or
// skips the test when they are absent.
func realFolded(t testing.TB) []string {
	t.Helper()
	files, _ := filepath.Glob("../../../testdata/perf/perl/*.collapsed-pid.txt.gz")
	if len(files) == 0 {
		t.Skip("skipping: no real captures in testdata/perf/perl")
	}
	var lines []string
	for rec := range testcapture.Records(t, files...) {
		lines = append(lines, strings.TrimSuffix(string(folded.AppendRecord(nil, rec)), "\n"))
	}
	return lines
}

// files returns the records of the folded files at paths.
func readFile(t testing.TB, path string) *folded.Reader {
	t.Helper()
	in, err := source.Open(path, source.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rc, err := in.Open()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rc.Close() })
	rd := folded.NewReader(rc, path)
	rd.Lenient = true
	return rd
}

// TestReadOrders checks that the fast paths of Read (no hashing for
// sorted input, pruning while laying out) draw exactly what the plain
// path draws (folded.Profile, full layout, pruning at render time), for
// sorted, shuffled and duplicated input, with and without --reverse.
func TestReadOrders(t *testing.T) {
	lines := realFolded(t)
	slices.Sort(lines)
	shuffled := slices.Clone(lines)
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	inputs := map[string][]string{
		"sorted":   lines,
		"shuffled": shuffled,
		"twice":    append(slices.Clone(lines), lines...),
	}
	dir := t.TempDir()
	for name, in := range inputs {
		for _, rw := range []flamegraph.Rewrite{{}, {Reverse: true}} {
			path := filepath.Join(dir, name+".folded")
			if err := os.WriteFile(path, []byte(strings.Join(in, "\n")+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			o := svg.DefaultOptions()
			got := flamegraph.ReadRecords(readFile(t, path).All(), 0, false, rw, o.MinCount)
			var p folded.Profile
			rd := folded.NewReader(strings.NewReader(strings.Join(in, "\n")), path)
			for rd.Next() {
				p.Add(rd.Record())
			}
			want := flamegraph.LayoutProfile(&p, rw)
			if len(got.Layout.Nodes) >= len(want.Nodes) {
				t.Errorf("%s: pruned layout has %d frames, full one %d", name, len(got.Layout.Nodes), len(want.Nodes))
			}
			var a, b bytes.Buffer
			if err := svg.Render(&a, got.Layout, &o); err != nil {
				t.Fatal(err)
			}
			if err := svg.Render(&b, want, &o); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(a.Bytes(), b.Bytes()) {
				t.Errorf("%s (reverse %v): fast read draws a different SVG (%d bytes, want %d)", name, rw.Reverse, a.Len(), b.Len())
			}
		}
	}
}

// BenchmarkRead reads the real captures' folded lines (sorted, as
// stackcollapse writes them) with Read, merged and as a flame chart.
func BenchmarkRead(b *testing.B) {
	lines := realFolded(b)
	slices.Sort(lines)
	path := filepath.Join(b.TempDir(), "in.folded")
	data := []byte(strings.Join(lines, "\n") + "\n")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		b.Fatal(err)
	}
	for _, flamechart := range []bool{false, true} {
		name := "merged"
		if flamechart {
			name = "flamechart"
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			o := svg.DefaultOptions()
			for b.Loop() {
				rd := readFile(b, path)
				flamegraph.ReadRecords(rd.All(), int64(len(data)), flamechart, flamegraph.Rewrite{}, o.MinCount)
				if err := rd.Err(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
