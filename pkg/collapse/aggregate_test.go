package collapse

import (
	"bytes"
	"testing"
)

// TestAggregatorHashCollision gives two stacks the same hash: they must
// still be summed apart, the second through the spill index.
func TestAggregatorHashCollision(t *testing.T) {
	a := newAggregator()
	for _, add := range []struct {
		stack string
		n     int64
	}{{"a;b", 1}, {"c;d", 2}, {"a;b", 3}, {"c;d", 4}, {"e", 5}} {
		a.add([]byte(add.stack), 7, add.n)
	}
	a.sort()
	var out bytes.Buffer
	if err := writeMerged(&out, []*aggregator{a}, 1); err != nil {
		t.Fatal(err)
	}
	if want := "a;b 4\nc;d 6\ne 5\n"; out.String() != want {
		t.Errorf("sums of colliding stacks:\n%s\nwant:\n%s", out.String(), want)
	}
}
