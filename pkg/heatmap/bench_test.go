package heatmap

import (
	"testing"

	"flamekit/pkg/folded"
)

// One sample per 100 µs over 100 s, in time order as perf prints them.
func BenchmarkAdd(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		m := New(DefaultRows)
		for t := folded.Time(400e9); t < 500e9; t += 100e3 {
			m.Add(t)
		}
	}
}

func TestAddOutOfOrder(t *testing.T) {
	m := New(10)
	for _, t := range []folded.Time{5.05e9, 6.15e9, 5.06e9, 4.95e9, 6.16e9} {
		m.Add(t)
	}
	g := m.Grid()
	if g.Base != 4 || len(g.Counts) != 3 || g.Counts[0][9] != 1 || g.Counts[1][0] != 2 || g.Counts[2][1] != 2 || g.Total != 5 || g.Max != 2 {
		t.Errorf("grid %+v: want base 4, cells 4.9 s: 1, 5.0 s: 2, 6.1 s: 2", g)
	}
}
