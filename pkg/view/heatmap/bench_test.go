package heatmap

import (
	"io"
	"testing"

	"flamekit/pkg/folded"
)

// One sample per 100 µs over 100 s, in time order as perf prints them.
func BenchmarkAdd(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		m := New(DefaultRows, 400e9)
		for t := folded.Time(400e9); t < 500e9; t += 100e3 {
			m.Add(t)
		}
	}
}

// A twelve-hour map, about 5 busy samples a second, written as SVG.
func BenchmarkWriteSVGNight(b *testing.B) {
	m := New(DefaultRows, 400e9)
	for t := folded.Time(400e9); t < 400e9+43200e9; t += 199e6 {
		m.Add(t)
	}
	g := m.Grid()
	b.ReportAllocs()
	for b.Loop() {
		var n countWriter
		if err := g.WriteSVG(&n, Info{Title: "night"}); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(n), "bytes")
	}
}

type countWriter int64

func (c *countWriter) Write(p []byte) (int, error) { *c += countWriter(len(p)); return len(p), nil }

var _ io.Writer = (*countWriter)(nil)
