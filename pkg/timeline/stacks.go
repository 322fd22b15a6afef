package timeline

import (
	"bytes"
	"encoding/binary"
	"hash/maphash"
	"slices"
)

// stackTable interns the stacks of a Builder as they come. Until a
// reader needs the prefix tree before Build (Snapshot,
// MergeFrames: materialize), a new stack gets a provisional id (1, 2, ...;
// 0 is Root) and its frames' ids, root first, as varints, and Build makes
// the prefix tree of all of them at once (Builder.tree), which costs no
// lookup of a node. Once materialized (eager), a new stack's frames are
// walked down the tree as they come.
type stackTable struct {
	// idx finds a stack's id by two independent 64-bit hashes of its
	// text (as pkg/interop/pprof's Builder did): 16 bytes a stack, whatever the
	// length of its text, and nothing for the garbage collector to scan.
	// Two distinct texts share both hashes with a probability of about
	// n²/2^129 (1e-26 for 2 million stacks), far below that of a memory
	// error.
	idx   map[[2]uint64]StackID
	seeds [2]maphash.Seed
	seqs  []byte    // the frame ids of every stack, root first, as varints
	off   []int     // stack p's are seqs[off[p]:off[p+1]]
	first []FrameID // stack p's first frame (its process); -1 for Root
	last  []byte    // the text of the stack before
	id    StackID   // and its id

	eager bool               // ids are the tree's nodes
	child map[uint64]StackID // eager: parent<<32 | frame -> node
}

func newStackTable() stackTable {
	return stackTable{
		idx:   make(map[[2]uint64]StackID),
		seeds: [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()},
		off:   []int{0, 0},
		first: []FrameID{-1},
	}
}

// comm returns the first frame (the process) of a stack as put names it.
func (b *Builder) comm(s StackID) FrameID {
	if b.stacks.eager || s == Root {
		return b.t.comm[s]
	}
	return b.stacks.first[s]
}

// stack returns the id of a stack (provisional until Build, or a node),
// interning its frames the first time it is seen.
func (b *Builder) stack(s []byte) StackID {
	c := &b.stacks
	if c.last != nil && string(s) == string(c.last) {
		return c.id // the same stack again
	}
	k := [2]uint64{maphash.Bytes(c.seeds[0], s), maphash.Bytes(c.seeds[1], s)}
	id, ok := c.idx[k]
	if !ok {
		if c.eager {
			id = Root
		} else {
			id = StackID(len(c.off) - 1)
		}
		for start := 0; ; {
			end := len(s)
			if i := bytes.IndexByte(s[start:], ';'); i >= 0 {
				end = start + i
			}
			f := b.frame(s[start:end])
			switch {
			case c.eager:
				id = b.childOf(id, f)
			case start == 0:
				c.first = append(c.first, f)
			}
			if !c.eager {
				c.seqs = binary.AppendUvarint(c.seqs, uint64(f))
			}
			if end == len(s) {
				break
			}
			start = end + 1
		}
		if !c.eager {
			c.off = append(c.off, len(c.seqs))
		}
		c.idx[k] = id
	}
	c.last, c.id = append(c.last[:0], s...), id
	return id
}

// childOf returns the node of frame f under parent, made if need be
// (eager).
func (b *Builder) childOf(parent StackID, f FrameID) StackID {
	k := uint64(uint32(parent))<<32 | uint64(uint32(f))
	if id, ok := b.stacks.child[k]; ok {
		return id
	}
	id := b.newNode(parent, f)
	b.stacks.child[k] = id
	return id
}

// materialize makes the prefix tree of the stacks so far, and interns the
// stacks that come next into it as they come: what Snapshot and MergeFrames
// need.
func (b *Builder) materialize() {
	c := &b.stacks
	if c.eager {
		return
	}
	node := b.tree()
	c.child = make(map[uint64]StackID, len(b.t.Nodes))
	for n := 1; n < len(b.t.Nodes); n++ {
		c.child[uint64(uint32(b.t.Nodes[n].Parent))<<32|uint64(uint32(b.t.Nodes[n].Frame))] = StackID(n)
	}
	for k, p := range c.idx {
		c.idx[k] = node[p]
	}
	c.id = node[c.id]
	if b.byStack != nil {
		by := make([]int32, len(b.t.Nodes))
		for i := range by {
			by[i] = -1
		}
		for p, e := range b.byStack {
			if e >= 0 {
				by[node[p]] = e
			}
		}
		b.byStack = by
	}
	clear(b.open) // keyed by provisional ids
	b.lastIdx = -1
	c.seqs, c.off, c.first, c.eager = nil, nil, nil, true
}

func (b *Builder) frame(name []byte) FrameID {
	if id, ok := b.frameIdx[string(name)]; ok {
		return id
	}
	id := FrameID(len(b.t.Frames))
	b.t.Frames = append(b.t.Frames, string(name))
	b.frameIdx[b.t.Frames[id]] = id
	return id
}

// tree makes the prefix tree of the provisional stacks and renames the
// entries' stacks to its nodes; it returns the node of every provisional
// id (nil when the tree is made already). Sorted by their frames' varints
// as bytes, the stacks that share their first frames are next to each
// other, and a stack comes right before those it is a prefix of: each
// stack shares its first frames with the one before, which are nodes
// already, and only the frames after them make new nodes. No node is
// looked up.
func (b *Builder) tree() []StackID {
	c := &b.stacks
	if c.eager || c.off == nil {
		return nil
	}
	n := len(c.off) - 1
	seq := func(p StackID) []byte { return c.seqs[c.off[p]:c.off[p+1]] }
	order := make([]StackID, 0, n)
	for p := 1; p < n; p++ {
		order = append(order, StackID(p))
	}
	slices.SortFunc(order, func(x, y StackID) int { return bytes.Compare(seq(x), seq(y)) })
	// shared returns the bytes and frames cur shares with prev.
	shared := func(cur, prev []byte) (i, d int) {
		for i < len(cur) && i < len(prev) {
			f, w := binary.Uvarint(cur[i:])
			g, _ := binary.Uvarint(prev[i:])
			if f != g {
				break
			}
			i += w
			d++
		}
		return i, d
	}
	// The nodes to make, counted first: the tree is allocated once.
	var prev []byte
	count := 0
	for _, p := range order {
		cur := seq(p)
		_, d := shared(cur, prev)
		for i := 0; i < len(cur); i++ {
			if cur[i] < 0x80 { // the last byte of a varint: one frame
				count++
			}
		}
		count -= d
		prev = cur
	}
	b.t.Nodes = slices.Grow(b.t.Nodes, count)
	b.t.comm = slices.Grow(b.t.comm, count)
	node := make([]StackID, n) // provisional id -> node; Root stays Root
	path := []StackID{Root}
	prev = nil
	for _, p := range order {
		cur := seq(p)
		i, d := shared(cur, prev)
		path = path[:d+1]
		for i < len(cur) {
			f, w := binary.Uvarint(cur[i:])
			i += w
			path = append(path, b.newNode(path[len(path)-1], FrameID(f)))
		}
		node[p] = path[len(path)-1]
		prev = cur
	}
	b.flatten()
	for i := range b.t.Entries {
		b.t.Entries[i].Stack = node[b.t.Entries[i].Stack]
	}
	c.seqs, c.off, c.first = nil, nil, nil
	return node
}

// newNode adds the node of frame f under parent.
func (b *Builder) newNode(parent StackID, f FrameID) StackID {
	id := StackID(len(b.t.Nodes))
	b.t.Nodes = append(b.t.Nodes, Node{Parent: parent, Frame: f, Depth: b.t.Nodes[parent].Depth + 1})
	comm := b.t.comm[parent]
	if parent == Root {
		comm = f
	}
	b.t.comm = append(b.t.comm, comm)
	return id
}
