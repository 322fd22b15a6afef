package symbols

import (
	"debug/elf"
	"math/rand/v2"
	"slices"
	"testing"
)

// nodeSet's prev and next give the nearest members a scan of every
// index gives, over random sets of sizes around its word and summary
// boundaries.
func TestNodeSet(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for _, n := range []int{1, 2, 63, 64, 65, 130, 4095, 4096, 4097, 9000} {
		for _, density := range []int{1, 20, 500, n + 1} {
			s := newNodeSet(n)
			in := make([]bool, n)
			for i := range n {
				if rng.IntN(density) == 0 {
					s.add(int32(i))
					in[i] = true
				}
			}
			for i := range int32(n) {
				want := rbNil
				for k := i + 1; k < int32(n); k++ {
					if in[k] {
						want = k
						break
					}
				}
				if got := s.next(i); got != want {
					t.Fatalf("n %d density %d: next(%d) = %d, want %d", n, density, i, got, want)
				}
				want = rbNil
				for k := i - 1; k >= 0; k-- {
					if in[k] {
						want = k
						break
					}
				}
				if got := s.prev(i); got != want {
					t.Fatalf("n %d density %d: prev(%d) = %d, want %d", n, density, i, got, want)
				}
			}
		}
	}
}

// insertBetween, given a node's neighbours, makes the tree insert's
// descent makes, link for link and colour for colour, over symbols in
// the tree's order inserted in random orders (equal starts in index
// order, as perf's tree orders them).
func TestInsertBetween(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	for round := 0; round < 300; round++ {
		n := 1 + rng.IntN(2000)
		syms := make([]sym, n)
		var start uint64
		for i := range syms {
			start += uint64(rng.IntN(3)) // many equal starts
			syms[i].start = start
		}
		order := rng.Perm(n)
		// Equal starts are inserted in index order.
		for i := 0; i < n; {
			j := i
			var pos []int
			for j < n && syms[j].start == syms[i].start {
				pos = append(pos, order[j])
				j++
			}
			slices.Sort(pos)
			copy(order[i:j], pos)
			i = j
		}
		bySeq := make([]int32, n)
		for i, s := range order {
			bySeq[s] = int32(i)
		}
		want, got := newRBTree(syms), newRBTree(syms)
		in := newNodeSet(n)
		for _, i := range bySeq {
			want.insert(i)
			got.insertBetween(i, in.prev(i), in.next(i))
			in.add(i)
		}
		if got.root != want.root || !slices.Equal(got.n, want.n) {
			t.Fatalf("round %d: trees differ", round)
		}
		checkRB(t, got)
	}
}

// A table's symbols sorted by sortByStart (the tree built without
// descents) or left in file order (built with them) give the same
// answers everywhere, over random tables with overlaps, aliases,
// symbols of size zero and late inserts.
func TestSortedReplay(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	for round := 0; round < 2000; round++ {
		type in struct {
			start, size uint64
			late        bool
		}
		var ins []in
		n := 1 + rng.IntN(60)
		for range n {
			e := in{start: uint64(rng.IntN(4 * n))}
			if rng.IntN(4) > 0 {
				e.size = uint64(1 + rng.IntN(12))
			}
			e.late = rng.IntN(10) == 0
			ins = append(ins, e)
		}
		build := func(sorted bool) *Table {
			var b builder
			for i, e := range ins {
				if !e.late {
					b.add(e.start, e.start+e.size, string(rune('a'+i%26)), elf.STB_GLOBAL)
				}
			}
			if sorted {
				b.sortByStart()
				if !b.sortedBySeq() {
					t.Fatalf("round %d: not sorted after sortByStart", round)
				}
			}
			if round%2 == 0 {
				order := b.inOrder()
				b.fixupEnds(order, false)
				b.removeDuplicates(order)
			}
			for i, e := range ins {
				if e.late {
					b.addLate(e.start, e.start+e.size, string(rune('A'+i%26)), elf.STB_GLOBAL)
				}
			}
			return b.build()
		}
		fast, slow := build(true), build(false)
		for _, a := range probeAddrs(slow, 0) {
			if got, want := oracleText(fast.Lookup(a)), oracleText(slow.Lookup(a)); got != want {
				t.Fatalf("round %d: %#x: %q, want %q\n%+v", round, a, got, want, ins)
			}
		}
	}
}
