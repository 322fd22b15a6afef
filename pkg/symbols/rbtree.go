package symbols

// rbTree reproduces the shape of perf's symbol tree (the kernel's
// lib/rbtree.c, keyed by symbol start, equal keys going right), because
// when symbols overlap the symbol perf finds for an address is the first
// one on the search path that contains it, so it depends on the shape.
// It is used only while a table is built; lookups use the flattened
// segments.
type rbTree struct {
	syms                []sym
	key                 []uint64 // syms' starts, dense for the descents
	left, right, parent []int32  // -1: none
	red                 []bool
	root                int32
}

const rbNil = int32(-1)

func newRBTree(syms []sym) *rbTree {
	n := len(syms)
	key := make([]uint64, n)
	for i := range syms {
		key[i] = syms[i].start
	}
	t := &rbTree{
		syms:   syms,
		key:    key,
		left:   make([]int32, n),
		right:  make([]int32, n),
		parent: make([]int32, n),
		red:    make([]bool, n),
		root:   rbNil,
	}
	return t
}

func (t *rbTree) isRed(n int32) bool { return n != rbNil && t.red[n] }

// changeChild makes nw take old's place under parent (or as the root).
func (t *rbTree) changeChild(old, nw, parent int32) {
	switch {
	case parent == rbNil:
		t.root = nw
	case t.left[parent] == old:
		t.left[parent] = nw
	default:
		t.right[parent] = nw
	}
}

// rotateSetParents gives nw old's parent and color, and makes old a child
// of nw with the given color.
func (t *rbTree) rotateSetParents(old, nw int32, red bool) {
	p := t.parent[old]
	t.parent[nw] = p
	t.red[nw] = t.red[old]
	t.parent[old] = nw
	t.red[old] = red
	t.changeChild(old, nw, p)
}

func (t *rbTree) insert(n int32) {
	key := t.key[n]
	p := rbNil
	link := &t.root
	for *link != rbNil {
		p = *link
		if key < t.key[p] {
			link = &t.left[p]
		} else {
			link = &t.right[p]
		}
	}
	t.parent[n], t.left[n], t.right[n], t.red[n] = p, rbNil, rbNil, true
	*link = n

	node, parent := n, p
	for {
		if parent == rbNil {
			t.parent[node], t.red[node] = rbNil, false
			return
		}
		if !t.red[parent] {
			return
		}
		gparent := t.parent[parent]
		if tmp := t.right[gparent]; parent != tmp {
			if t.isRed(tmp) {
				t.red[tmp], t.red[parent] = false, false
				node = gparent
				parent = t.parent[node]
				t.red[node] = true
				continue
			}
			tmp = t.right[parent]
			if node == tmp {
				tmp = t.left[node]
				t.right[parent] = tmp
				t.left[node] = parent
				if tmp != rbNil {
					t.parent[tmp], t.red[tmp] = parent, false
				}
				t.parent[parent], t.red[parent] = node, true
				parent = node
				tmp = t.right[node]
			}
			t.left[gparent] = tmp
			t.right[parent] = gparent
			if tmp != rbNil {
				t.parent[tmp], t.red[tmp] = gparent, false
			}
			t.rotateSetParents(gparent, parent, true)
			return
		} else {
			tmp = t.left[gparent]
			if t.isRed(tmp) {
				t.red[tmp], t.red[parent] = false, false
				node = gparent
				parent = t.parent[node]
				t.red[node] = true
				continue
			}
			tmp = t.left[parent]
			if node == tmp {
				tmp = t.right[node]
				t.left[parent] = tmp
				t.right[node] = parent
				if tmp != rbNil {
					t.parent[tmp], t.red[tmp] = parent, false
				}
				t.parent[parent], t.red[parent] = node, true
				parent = node
				tmp = t.left[node]
			}
			t.right[gparent] = tmp
			t.left[parent] = gparent
			if tmp != rbNil {
				t.parent[tmp], t.red[tmp] = gparent, false
			}
			t.rotateSetParents(gparent, parent, true)
			return
		}
	}
}

func (t *rbTree) erase(n int32) {
	child := t.right[n]
	tmp := t.left[n]
	rebalance := rbNil
	switch {
	case tmp == rbNil:
		parent, wasRed := t.parent[n], t.red[n]
		t.changeChild(n, child, parent)
		if child != rbNil {
			t.parent[child], t.red[child] = parent, wasRed
		} else if !wasRed {
			rebalance = parent
		}
	case child == rbNil:
		parent := t.parent[n]
		t.parent[tmp], t.red[tmp] = parent, t.red[n]
		t.changeChild(n, tmp, parent)
	default:
		successor, parent := child, rbNil
		var child2 int32
		tmp = t.left[child]
		if tmp == rbNil {
			parent = successor
			child2 = t.right[successor]
		} else {
			for tmp != rbNil {
				parent = successor
				successor = tmp
				tmp = t.left[tmp]
			}
			child2 = t.right[successor]
			t.left[parent] = child2
			t.right[successor] = child
			t.parent[child] = successor
		}
		tmp = t.left[n]
		t.left[successor] = tmp
		t.parent[tmp] = successor
		np, nred := t.parent[n], t.red[n]
		t.changeChild(n, successor, np)
		if child2 != rbNil {
			t.parent[child2], t.red[child2] = parent, false
		} else if !t.red[successor] {
			rebalance = parent
		}
		t.parent[successor], t.red[successor] = np, nred
	}
	if rebalance != rbNil {
		t.eraseColor(rebalance)
	}
}

func (t *rbTree) eraseColor(parent int32) {
	node := rbNil
	for {
		sibling := t.right[parent]
		if node != sibling {
			if t.isRed(sibling) {
				tmp1 := t.left[sibling]
				t.right[parent] = tmp1
				t.left[sibling] = parent
				t.parent[tmp1], t.red[tmp1] = parent, false
				t.rotateSetParents(parent, sibling, true)
				sibling = tmp1
			}
			tmp1 := t.right[sibling]
			if !t.isRed(tmp1) {
				tmp2 := t.left[sibling]
				if !t.isRed(tmp2) {
					t.red[sibling] = true
					if t.red[parent] {
						t.red[parent] = false
					} else {
						node = parent
						parent = t.parent[node]
						if parent != rbNil {
							continue
						}
					}
					return
				}
				tmp1 = t.right[tmp2]
				t.left[sibling] = tmp1
				t.right[tmp2] = sibling
				t.right[parent] = tmp2
				if tmp1 != rbNil {
					t.parent[tmp1], t.red[tmp1] = sibling, false
				}
				tmp1 = sibling
				sibling = tmp2
			}
			tmp2 := t.left[sibling]
			t.right[parent] = tmp2
			t.left[sibling] = parent
			t.parent[tmp1], t.red[tmp1] = sibling, false
			if tmp2 != rbNil {
				t.parent[tmp2] = parent
			}
			t.rotateSetParents(parent, sibling, false)
			return
		}
		sibling = t.left[parent]
		if t.isRed(sibling) {
			tmp1 := t.right[sibling]
			t.left[parent] = tmp1
			t.right[sibling] = parent
			t.parent[tmp1], t.red[tmp1] = parent, false
			t.rotateSetParents(parent, sibling, true)
			sibling = tmp1
		}
		tmp1 := t.left[sibling]
		if !t.isRed(tmp1) {
			tmp2 := t.right[sibling]
			if !t.isRed(tmp2) {
				t.red[sibling] = true
				if t.red[parent] {
					t.red[parent] = false
				} else {
					node = parent
					parent = t.parent[node]
					if parent != rbNil {
						continue
					}
				}
				return
			}
			tmp1 = t.left[tmp2]
			t.right[sibling] = tmp1
			t.left[tmp2] = sibling
			t.left[parent] = tmp2
			if tmp1 != rbNil {
				t.parent[tmp1], t.red[tmp1] = sibling, false
			}
			tmp1 = sibling
			sibling = tmp2
		}
		tmp2 := t.right[sibling]
		t.left[parent] = tmp2
		t.right[sibling] = parent
		t.parent[tmp1], t.red[tmp1] = sibling, false
		if tmp2 != rbNil {
			t.parent[tmp2] = parent
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
			n = t.left[n]
		case ip > s.end || (ip == s.end && ip != s.start):
			n = t.right[n]
		default:
			return n
		}
	}
	return rbNil
}
