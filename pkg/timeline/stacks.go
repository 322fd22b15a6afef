package timeline

import (
	"bytes"
	"encoding/binary"
	"hash/maphash"
	"slices"

	"flamekit/pkg/folded"
)

// stackTable interns the stacks of a Builder as they come. A new stack
// gets a provisional id (1, 2, ...; 0 is Root) and its frames' ids, root
// first, as varints; Build makes the prefix tree of all of them at once
// (Builder.tree), which costs no lookup of a node.
type stackTable struct {
	// idx finds a stack's id by two independent 64-bit hashes of its
	// text (as pkg/pprof's Builder did): 16 bytes a stack, whatever the
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
}

func newStackTable() stackTable {
	return stackTable{
		idx:   make(map[[2]uint64]StackID),
		seeds: [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()},
		off:   []int{0, 0},
		first: []FrameID{-1},
	}
}

// comm returns the first frame of stack p (a provisional id).
func (c *stackTable) comm(p StackID) FrameID { return c.first[p] }

// stack returns the provisional id of rec's stack, interning its frames
// the first time it is seen.
func (b *Builder) stack(rec *folded.Record) StackID {
	c := &b.stacks
	s := rec.Stack
	if c.last != nil && string(s) == string(c.last) {
		return c.id // the same stack again
	}
	k := [2]uint64{maphash.Bytes(c.seeds[0], s), maphash.Bytes(c.seeds[1], s)}
	id, ok := c.idx[k]
	if !ok {
		id = StackID(len(c.off) - 1)
		for start := 0; ; {
			end := len(s)
			if i := bytes.IndexByte(s[start:], ';'); i >= 0 {
				end = start + i
			}
			f := b.frame(s[start:end])
			if start == 0 {
				c.first = append(c.first, f)
			}
			c.seqs = binary.AppendUvarint(c.seqs, uint64(f))
			if end == len(s) {
				break
			}
			start = end + 1
		}
		c.off = append(c.off, len(c.seqs))
		c.idx[k] = id
	}
	c.last, c.id = append(c.last[:0], s...), id
	return id
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

// tree makes the prefix tree of the stacks and renames the entries'
// stacks to its nodes. Sorted by their frames' varints as bytes, the
// stacks that share their first frames are next to each other, and a
// stack comes right before those it is a prefix of: each stack shares
// its first frames with the one before, which are nodes already, and only
// the frames after them make new nodes. No node is looked up.
func (b *Builder) tree() {
	c := &b.stacks
	if c.idx == nil {
		return // done
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
	for i := range b.t.Entries {
		b.t.Entries[i].Stack = node[b.t.Entries[i].Stack]
	}
	b.stacks = stackTable{}
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
