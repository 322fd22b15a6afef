package symbols

import "math/bits"

// rbTree reproduces the shape of perf's symbol tree (the kernel's
// lib/rbtree.c, keyed by symbol start, equal keys going right), because
// when symbols overlap the symbol perf finds for an address is the first
// one on the search path that contains it, so it depends on the shape.
// It is used only while a table is built; lookups use the flattened
// segments.
type rbTree struct {
	syms []sym
	n    []rbNode // by symbol index
	root int32
}

// rbNode is a node of the tree: the links and color of a symbol, with its
// start, together so that a descent reads one cache line per node.
type rbNode struct {
	key                 uint64 // the symbol's start
	left, right, parent int32  // -1: none
	red                 bool
}

const rbNil = int32(-1)

func newRBTree(syms []sym) *rbTree {
	t := &rbTree{syms: syms, n: make([]rbNode, len(syms)), root: rbNil}
	for i := range syms {
		t.n[i].key = syms[i].start
	}
	return t
}

func (t *rbTree) isRed(n int32) bool { return n != rbNil && t.n[n].red }

// changeChild makes nw take old's place under parent (or as the root).
func (t *rbTree) changeChild(old, nw, parent int32) {
	switch {
	case parent == rbNil:
		t.root = nw
	case t.n[parent].left == old:
		t.n[parent].left = nw
	default:
		t.n[parent].right = nw
	}
}

// rotateSetParents gives nw old's parent and color, and makes old a child
// of nw with the given color.
func (t *rbTree) rotateSetParents(old, nw int32, red bool) {
	p := t.n[old].parent
	t.n[nw].parent = p
	t.n[nw].red = t.n[old].red
	t.n[old].parent = nw
	t.n[old].red = red
	t.changeChild(old, nw, p)
}

func (t *rbTree) insert(n int32) {
	key := t.n[n].key
	p := rbNil
	link := &t.root
	for *link != rbNil {
		p = *link
		if key < t.n[p].key {
			link = &t.n[p].left
		} else {
			link = &t.n[p].right
		}
	}
	*link = n
	t.rebalance(n, p)
}

// insertBetween inserts n, given its neighbours in the tree's order
// among the nodes already in (rbNil for none): pred, the last before
// it, and succ, the first after it. It makes the tree insert makes,
// without the descent: the new leaf hangs where the descent ends, under
// pred if pred has no right child, else under succ, whose left child is
// then empty (of two neighbours, one is in the other's subtree: succ in
// pred's right one, or pred in succ's left one).
func (t *rbTree) insertBetween(n, pred, succ int32) {
	switch {
	case pred != rbNil && t.n[pred].right == rbNil:
		t.n[pred].right = n
		t.rebalance(n, pred)
	case succ != rbNil:
		t.n[succ].left = n
		t.rebalance(n, succ)
	default:
		t.root = n
		t.rebalance(n, rbNil)
	}
}

// rebalance makes n, just linked under p, a red leaf and restores the
// red-black rules as lib/rbtree.c's __rb_insert does.
func (t *rbTree) rebalance(n, p int32) {
	t.n[n].parent, t.n[n].left, t.n[n].right, t.n[n].red = p, rbNil, rbNil, true
	node, parent := n, p
	for {
		if parent == rbNil {
			t.n[node].parent, t.n[node].red = rbNil, false
			return
		}
		if !t.n[parent].red {
			return
		}
		gparent := t.n[parent].parent
		if tmp := t.n[gparent].right; parent != tmp {
			if t.isRed(tmp) {
				t.n[tmp].red, t.n[parent].red = false, false
				node = gparent
				parent = t.n[node].parent
				t.n[node].red = true
				continue
			}
			tmp = t.n[parent].right
			if node == tmp {
				tmp = t.n[node].left
				t.n[parent].right = tmp
				t.n[node].left = parent
				if tmp != rbNil {
					t.n[tmp].parent, t.n[tmp].red = parent, false
				}
				t.n[parent].parent, t.n[parent].red = node, true
				parent = node
				tmp = t.n[node].right
			}
			t.n[gparent].left = tmp
			t.n[parent].right = gparent
			if tmp != rbNil {
				t.n[tmp].parent, t.n[tmp].red = gparent, false
			}
			t.rotateSetParents(gparent, parent, true)
			return
		} else {
			tmp = t.n[gparent].left
			if t.isRed(tmp) {
				t.n[tmp].red, t.n[parent].red = false, false
				node = gparent
				parent = t.n[node].parent
				t.n[node].red = true
				continue
			}
			tmp = t.n[parent].left
			if node == tmp {
				tmp = t.n[node].right
				t.n[parent].left = tmp
				t.n[node].right = parent
				if tmp != rbNil {
					t.n[tmp].parent, t.n[tmp].red = parent, false
				}
				t.n[parent].parent, t.n[parent].red = node, true
				parent = node
				tmp = t.n[node].left
			}
			t.n[gparent].right = tmp
			t.n[parent].left = gparent
			if tmp != rbNil {
				t.n[tmp].parent, t.n[tmp].red = gparent, false
			}
			t.rotateSetParents(gparent, parent, true)
			return
		}
	}
}

func (t *rbTree) erase(n int32) {
	child := t.n[n].right
	tmp := t.n[n].left
	rebalance := rbNil
	switch {
	case tmp == rbNil:
		parent, wasRed := t.n[n].parent, t.n[n].red
		t.changeChild(n, child, parent)
		if child != rbNil {
			t.n[child].parent, t.n[child].red = parent, wasRed
		} else if !wasRed {
			rebalance = parent
		}
	case child == rbNil:
		parent := t.n[n].parent
		t.n[tmp].parent, t.n[tmp].red = parent, t.n[n].red
		t.changeChild(n, tmp, parent)
	default:
		successor, parent := child, rbNil
		var child2 int32
		tmp = t.n[child].left
		if tmp == rbNil {
			parent = successor
			child2 = t.n[successor].right
		} else {
			for tmp != rbNil {
				parent = successor
				successor = tmp
				tmp = t.n[tmp].left
			}
			child2 = t.n[successor].right
			t.n[parent].left = child2
			t.n[successor].right = child
			t.n[child].parent = successor
		}
		tmp = t.n[n].left
		t.n[successor].left = tmp
		t.n[tmp].parent = successor
		np, nred := t.n[n].parent, t.n[n].red
		t.changeChild(n, successor, np)
		if child2 != rbNil {
			t.n[child2].parent, t.n[child2].red = parent, false
		} else if !t.n[successor].red {
			rebalance = parent
		}
		t.n[successor].parent, t.n[successor].red = np, nred
	}
	if rebalance != rbNil {
		t.eraseColor(rebalance)
	}
}

func (t *rbTree) eraseColor(parent int32) {
	node := rbNil
	for {
		sibling := t.n[parent].right
		if node != sibling {
			if t.isRed(sibling) {
				tmp1 := t.n[sibling].left
				t.n[parent].right = tmp1
				t.n[sibling].left = parent
				t.n[tmp1].parent, t.n[tmp1].red = parent, false
				t.rotateSetParents(parent, sibling, true)
				sibling = tmp1
			}
			tmp1 := t.n[sibling].right
			if !t.isRed(tmp1) {
				tmp2 := t.n[sibling].left
				if !t.isRed(tmp2) {
					t.n[sibling].red = true
					if t.n[parent].red {
						t.n[parent].red = false
					} else {
						node = parent
						parent = t.n[node].parent
						if parent != rbNil {
							continue
						}
					}
					return
				}
				tmp1 = t.n[tmp2].right
				t.n[sibling].left = tmp1
				t.n[tmp2].right = sibling
				t.n[parent].right = tmp2
				if tmp1 != rbNil {
					t.n[tmp1].parent, t.n[tmp1].red = sibling, false
				}
				tmp1 = sibling
				sibling = tmp2
			}
			tmp2 := t.n[sibling].left
			t.n[parent].right = tmp2
			t.n[sibling].left = parent
			t.n[tmp1].parent, t.n[tmp1].red = sibling, false
			if tmp2 != rbNil {
				t.n[tmp2].parent = parent
			}
			t.rotateSetParents(parent, sibling, false)
			return
		}
		sibling = t.n[parent].left
		if t.isRed(sibling) {
			tmp1 := t.n[sibling].right
			t.n[parent].left = tmp1
			t.n[sibling].right = parent
			t.n[tmp1].parent, t.n[tmp1].red = parent, false
			t.rotateSetParents(parent, sibling, true)
			sibling = tmp1
		}
		tmp1 := t.n[sibling].left
		if !t.isRed(tmp1) {
			tmp2 := t.n[sibling].right
			if !t.isRed(tmp2) {
				t.n[sibling].red = true
				if t.n[parent].red {
					t.n[parent].red = false
				} else {
					node = parent
					parent = t.n[node].parent
					if parent != rbNil {
						continue
					}
				}
				return
			}
			tmp1 = t.n[tmp2].left
			t.n[sibling].right = tmp1
			t.n[tmp2].left = sibling
			t.n[parent].left = tmp2
			if tmp1 != rbNil {
				t.n[tmp1].parent, t.n[tmp1].red = sibling, false
			}
			tmp1 = sibling
			sibling = tmp2
		}
		tmp2 := t.n[sibling].right
		t.n[parent].left = tmp2
		t.n[sibling].right = parent
		t.n[tmp1].parent, t.n[tmp1].red = sibling, false
		if tmp2 != rbNil {
			t.n[tmp2].parent = parent
		}
		t.rotateSetParents(parent, sibling, false)
		return
	}
}

// find returns the symbol perf's symbols__find returns for ip, -1 for
// none: the first node on the search path with start <= ip < end, or
// ip == start == end.
func (t *rbTree) find(ip uint64) int32 {
	n := t.root
	for n != rbNil {
		s := &t.syms[n]
		switch {
		case ip < s.start:
			n = t.n[n].left
		case ip > s.end || (ip == s.end && ip != s.start):
			n = t.n[n].right
		default:
			return n
		}
	}
	return rbNil
}

// nodeSet is a set of node indices with a summary bit per word, to find
// the members nearest to an index quickly.
type nodeSet struct {
	words []uint64 // bit i%64 of words[i/64]: i is in
	sum   []uint64 // bit w%64 of sum[w/64]: words[w] != 0
}

func newNodeSet(n int) nodeSet {
	nw := (n + 63) / 64
	return nodeSet{words: make([]uint64, nw), sum: make([]uint64, (nw+63)/64)}
}

func (s *nodeSet) add(i int32) {
	w := i >> 6
	s.words[w] |= 1 << (i & 63)
	s.sum[w>>6] |= 1 << (w & 63)
}

// next returns the least member above i, rbNil if none.
func (s *nodeSet) next(i int32) int32 {
	w := (i + 1) >> 6
	if int(w) >= len(s.words) {
		return rbNil
	}
	if m := s.words[w] &^ (1<<((i+1)&63) - 1); m != 0 {
		return w<<6 + int32(bits.TrailingZeros64(m))
	}
	// The first non-empty word after w.
	w++
	for k := w >> 6; int(k) < len(s.sum); k++ {
		m := s.sum[k]
		if k == w>>6 {
			m &^= 1<<(w&63) - 1
		}
		if m != 0 {
			w = k<<6 + int32(bits.TrailingZeros64(m))
			return w<<6 + int32(bits.TrailingZeros64(s.words[w]))
		}
	}
	return rbNil
}

// prev returns the greatest member below i, rbNil if none.
func (s *nodeSet) prev(i int32) int32 {
	if i <= 0 {
		return rbNil
	}
	w := (i - 1) >> 6
	if m := s.words[w] & (2<<((i-1)&63) - 1); m != 0 {
		return w<<6 + 63 - int32(bits.LeadingZeros64(m))
	}
	// The last non-empty word before w.
	if w == 0 {
		return rbNil
	}
	w--
	for k := w >> 6; k >= 0; k-- {
		m := s.sum[k]
		if k == w>>6 {
			m &= 2<<(w&63) - 1
		}
		if m != 0 {
			w = k<<6 + 63 - int32(bits.LeadingZeros64(m))
			return w<<6 + 63 - int32(bits.LeadingZeros64(s.words[w]))
		}
	}
	return rbNil
}
