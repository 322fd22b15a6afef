package svg

import (
	"bytes"
	"io"
	"os"
	"testing"

	"flamekit/pkg/folded"
	"flamekit/pkg/source/decompress"
	"flamekit/pkg/view/flamegraph"
)

// BenchmarkFlamegraph60k reads, lays out and renders a folded file of
// about 60,000 distinct stacks made from the real captures' stacks (see
// bigFolded): the whole work of the flamegraph command.
func BenchmarkFlamegraph60k(b *testing.B) {
	path, n := writeBig(b, b.TempDir(), 60000)
	st, _ := os.Stat(path)
	b.SetBytes(st.Size())
	b.ReportMetric(float64(n), "stacks")
	o := DefaultOptions()
	var size int
	for b.Loop() {
		f, err := decompress.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		rd := folded.NewReader(f, path)
		var p folded.Profile
		for rd.Next() {
			p.Add(rd.Record())
		}
		f.Close()
		l := flamegraph.LayoutProfilePruned(&p, flamegraph.Rewrite{}, o.MinCount(p.Total()))
		cw := &countingWriter{}
		if err := Render(cw, l, &o); err != nil {
			b.Fatal(err)
		}
		size = cw.n
	}
	b.ReportMetric(float64(size), "svg-bytes")
}

// BenchmarkRender renders a laid-out 60,000-stack profile (no input).
func BenchmarkRender(b *testing.B) {
	path, _ := writeBig(b, b.TempDir(), 60000)
	data := mustRead(b, path)
	var p folded.Profile
	rd := folded.NewReader(bytes.NewReader(data), path)
	for rd.Next() {
		p.Add(rd.Record())
	}
	l := flamegraph.LayoutProfile(&p, flamegraph.Rewrite{})
	o := DefaultOptions()
	b.ReportMetric(float64(len(l.Nodes)), "nodes")
	for b.Loop() {
		if err := Render(io.Discard, l, &o); err != nil {
			b.Fatal(err)
		}
	}
}

type countingWriter struct{ n int }

func (c *countingWriter) Write(p []byte) (int, error) { c.n += len(p); return len(p), nil }
