package timeline

import (
	"math"
	"testing"

	"flamekit/pkg/folded"
)

func TestCounts(t *testing.T) {
	o := folded.Time(10e9)
	c := NewCounts(o, 10, true)
	c.Add(o+1_250_000_000, 1, 2.5) // second 1, bin 2
	c.Add(o+1_299_999_999, 2, 1)   // same bin
	c.Add(o-1, 1, 1)               // second -1, bin 9
	c.Cover(o + 5e9)
	if !c.Covered() || c.Lo() != -1 || c.Hi() != 5 {
		t.Fatalf("span %d..%d (%v)", c.Lo(), c.Hi(), c.Covered())
	}
	b, ok := c.Block(1)
	if !ok || c.N()[int(b)*10+2] != 3 || c.W()[int(b)*10+2] != 3.5 {
		t.Errorf("second 1: %v %v", c.N(), c.W())
	}
	b, ok = c.Block(-1)
	if !ok || c.N()[int(b)*10+9] != 1 {
		t.Errorf("second -1: %v", c.N())
	}
	if _, ok := c.Block(5); ok {
		t.Error("a covered second has no block")
	}
	if got := c.Secs(); len(got) != 2 || got[0] != 1 || got[1] != -1 {
		t.Errorf("secs %v", got)
	}
}

func TestSaturates(t *testing.T) {
	c := NewCounts(0, 1, false)
	if lost := c.Add(0, math.MaxUint32-1, 0); lost != 0 {
		t.Fatal(lost)
	}
	if lost := c.Add(0, 5, 0); lost != 4 || c.N()[0] != math.MaxUint32 {
		t.Errorf("lost %d, count %d", lost, c.N()[0])
	}
	if c.W() != nil {
		t.Error("weights without weights")
	}
}
