package symbols

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
	t.n[n].parent, t.n[n].left, t.n[n].right, t.n[n].red = p, rbNil, rbNil, true
	*link = n

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
