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

// TestSumsOfOneStackUnderTwoHashes: a stack summed under two hashes (the
// hash of its frames differs from that of the same text cut in other
// frames) is written once, with the sum of both.
func TestSumsOfOneStackUnderTwoHashes(t *testing.T) {
	s := newSharedSums()
	s.add([]byte("a;b"), 1, 1)
	s.add([]byte("a;b"), 1+shards, 2) // the same shard, another hash
	s.add([]byte("a;b"), 2, 4)        // another shard
	s.add([]byte("a"), 3, 8)
	var out bytes.Buffer
	if err := writeMerged(&out, s.aggregators(), 1); err != nil {
		t.Fatal(err)
	}
	if want := "a 8\na;b 7\n"; out.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", out.String(), want)
	}
}
