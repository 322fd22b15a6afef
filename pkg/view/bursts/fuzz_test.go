package bursts

import (
	"encoding/binary"
	"math"
	"testing"

	"flamekit/pkg/folded"
)

// FuzzFind feeds a series samples decoded from the input (4 bytes each:
// a time step in ms, a process, a weight) in any order, and checks what
// Find returns: no panic, windows in order and within the capture's span,
// shares between 0 and 1, scores that are numbers, windows that do not
// overlap.
func FuzzFind(f *testing.F) {
	f.Add([]byte{0, 0, 1, 10, 100, 0, 1, 10, 200, 1, 1, 10, 10, 2, 5, 10}, uint8(1), false)
	f.Add([]byte{255, 255, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1}, uint8(10), true)
	f.Add(make([]byte, 4*300), uint8(3), false)
	f.Fuzz(func(t *testing.T, data []byte, bins uint8, weight bool) {
		s := NewSeries(origin, int(bins%20))
		stacks := [][]byte{[]byte("a;x"), []byte("b"), []byte("c;y;z"), []byte(""), []byte(";"), []byte("d;")}
		tm := origin
		lo, hi := origin, origin
		for len(data) >= 4 {
			step := int16(binary.LittleEndian.Uint16(data))
			tm += folded.Time(step) * 1e6 * 7 // up to ±230 s a step
			lo, hi = min(lo, tm), max(hi, tm)
			w := float64(data[3])
			if data[2]&0x80 != 0 {
				s.Cover(tm)
			} else {
				s.AddStack(tm, w, stacks[int(data[2])%len(stacks)])
			}
			data = data[4:]
		}
		m := Samples
		if weight {
			m = Weight
		}
		res := s.Find(Options{Measure: m, Max: -1})
		for i, b := range res.Bursts {
			if b.From >= b.To || b.From < lo-folded.Time(2e9) || b.To > hi+folded.Time(2e9) {
				t.Errorf("burst %d: %v to %v, the samples %v to %v", i, b.From, b.To, lo, hi)
			}
			if b.Kind == 0 || math.IsNaN(b.Score) || b.Share < 0 || b.Share > 1+1e-9 || b.Typical < 0 || b.Typical > 1+1e-9 || b.Divergence < 0 || b.Divergence > 1+1e-9 {
				t.Errorf("burst %d: %+v", i, b)
			}
			for _, o := range res.Bursts[:i] {
				if b.From < o.To && o.From < b.To {
					t.Errorf("bursts overlap: %v-%v and %v-%v", o.From, o.To, b.From, b.To)
				}
			}
		}
	})
}
