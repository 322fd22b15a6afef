package perfscript

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"reflect"
	"strings"
	"testing"

	"flamekit/internal/testkit/golden"
	"flamekit/pkg/folded"
	"flamekit/pkg/source/decompress"
)

// flagSets are the stackcollapse-perf.pl flag combinations of the Perl
// fixtures and oracle outputs.
var flagSets = []struct {
	name string
	opt  Options
}{
	{"none", Options{}},
	{"pid", Options{PID: true}},
	{"tid", Options{TID: true}},
	{"kernel", Options{Kernel: true}},
	{"jit", Options{JIT: true}},
	{"all", Options{Kernel: true, JIT: true}},
	{"addrs", Options{Addrs: true}},
}

type result struct {
	out    string
	sum    Summary
	stderr string
	err    error
}

// collapse runs a Collapser over data. chunk 0 and workers 1 with a huge
// chunk give the sequential path.
func collapseText(t testing.TB, data []byte, opt Options, workers, chunk int) result {
	t.Helper()
	var out, stderr bytes.Buffer
	c := &Collapser{
		Options: opt, Workers: workers, ChunkSize: chunk,
		Warnf: func(f string, a ...any) { fmt.Fprintf(&stderr, "stackcollapse: "+f+"\n", a...) },
	}
	in := Input{Name: "input", Open: func() (io.ReadCloser, error) {
		rc, _, err := decompress.NewReader(bytes.NewReader(data))
		return rc, err
	}}
	sum, err := c.Run(&out, []Input{in})
	return result{out.String(), sum, stderr.String(), err}
}

func sequential(t testing.TB, data []byte, opt Options) result {
	return collapseText(t, data, opt, 1, 1<<40)
}

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.HasPrefix(b, []byte{0x1f, 0x8b}) {
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if b, err = io.ReadAll(zr); err != nil {
			t.Fatal(err)
		}
	}
	return b
}

// checkGolden compares got with a golden file (gzipped when the name ends
// in .gz); go test -update rewrites it.
func checkGolden(t *testing.T, path, got string) {
	t.Helper()
	golden.Check(t, path, []byte(got))
}

// sameSummary compares two summaries, the first skipped line by its text.
func sameSummary(a, b Summary) bool {
	return reflect.DeepEqual(a.Summary, b.Summary) && a.Skipped.String() == b.Skipped.String()
}

// lineDiff returns the lines only in a and the lines only in b (as
// multisets of lines).
func lineDiff(a, b string) (onlyA, onlyB []string) {
	count := map[string]int{}
	for _, l := range strings.Split(a, "\n") {
		count[l]++
	}
	for _, l := range strings.Split(b, "\n") {
		count[l]--
	}
	for _, l := range strings.Split(a, "\n") {
		if count[l] > 0 {
			onlyA = append(onlyA, l)
			count[l]--
		}
	}
	for l, n := range count {
		for ; n < 0; n++ {
			onlyB = append(onlyB, l)
		}
	}
	return onlyA, onlyB
}

// total sums the counts of folded output (classic or timed lines).
func total(t testing.TB, out string) float64 {
	t.Helper()
	var sum float64
	rd := folded.NewReader(strings.NewReader(out), "output")
	for rd.Next() {
		sum += rd.Record().Count
	}
	if err := rd.Err(); err != nil {
		t.Fatalf("output is not valid folded text: %v", err)
	}
	return sum
}
