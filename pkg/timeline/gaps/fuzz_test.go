package gaps

import (
	"encoding/binary"
	"slices"
	"testing"

	"flamekit/pkg/folded"
)

// FuzzPeriodOf: any command line reads without a panic, and a period it
// gives is positive.
func FuzzPeriodOf(f *testing.F) {
	for _, s := range []string{
		"/usr/bin/perf record -a -g -F 97 -- sleep 30",
		"perf record -ag -F97 --freq=99 -c 5 --count",
		"perf record -F", "perf record -c 0 -a", "-", "--", "-a -F -1",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, cmdline string) {
		if p, ok := periodOf(cmdline); ok && p <= 0 {
			t.Fatalf("periodOf(%q) = %v, true", cmdline, p)
		}
	})
}

// FuzzFinder: whatever the times and their order, the gaps are sorted,
// disjoint, at least min long, hold no sample, and the bins either side of
// each hold one.
func FuzzFinder(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 200, 201, 7, 9}, uint16(5))
	f.Add(make([]byte, 64), uint16(1))
	f.Fuzz(func(t *testing.T, b []byte, minBins uint16) {
		fd := NewFinder()
		var ts []folded.Time
		for len(b) >= 4 {
			v := int64(int32(binary.LittleEndian.Uint32(b))) * 1e5 // ±214 s in 0.1 ms
			b = b[4:]
			ts = append(ts, folded.Time(v))
			fd.Add(folded.Time(v))
		}
		min := folded.Time(minBins%1000+1) * Bin / 2
		g := fd.Gaps(min)
		for i, s := range g {
			if s.Len() < min || s.Len() <= 0 || i > 0 && s.From < g[i-1].To {
				t.Fatalf("gaps %v (min %v)", g, min)
			}
			for _, x := range ts {
				if x >= s.From && x < s.To {
					t.Fatalf("sample %v in gap %v", x, s)
				}
			}
			if !slices.ContainsFunc(ts, func(x folded.Time) bool { return x < s.From && x >= s.From-Bin }) ||
				!slices.ContainsFunc(ts, func(x folded.Time) bool { return x >= s.To && x < s.To+Bin }) {
				t.Fatalf("gap %v not between samples %v", s, ts)
			}
		}
	})
}
