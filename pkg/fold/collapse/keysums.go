package collapse

import (
	"cmp"
	"slices"
	"sort"
	"strings"
	"sync"
	"unsafe"

	"flamekit/pkg/filter/idle"
)

// This file holds the classic sums of samples given as chains of frame
// numbers (Sink.AddChain): they are summed by what their stacks are made
// of, not by their text, and the text of each distinct stack is made once,
// at the end.
//
// Every distinct piece of text a frame gives the folded stack (";name",
// ";a;b_[i]" for a frame with "->" pieces) and every distinct root frame
// has a number, shared by the workers (pieceTable); a stack is the list of
// the numbers of its root and of the pieces of its frames that are not
// empty, outermost first (its key). Many frame numbers (addresses) give
// one piece (a function), so a worker turns each frame number into a piece
// number once, and a sample costs a slice of numbers and its hash, not a
// stack of several hundred bytes copied, hashed and compared. Two keys can
// still give one text (the pieces ";a;b" then ";c", or ";a" then ";b;c"):
// the sums of equal texts are added when they are written (writeLists).

// Piece numbers 0 and 1 mean no piece: pieceUnknown is a frame number
// whose piece is not known yet, pieceEmpty a frame that gives the stack
// nothing (dropped by the naming rules). Interned pieces start at
// firstPiece.
const (
	pieceUnknown = 0
	pieceEmpty   = 1
	firstPiece   = 2
)

// pieceTable numbers the distinct pieces of text of the stacks summed by
// key, and the distinct root frames: equal texts, equal numbers. It is
// shared by the workers of a stage, and safe for concurrent use; a worker
// asks it once per frame number and per root it meets (see folder.pieceOf),
// so its lock is rarely taken. Its memory grows with the distinct pieces.
type pieceTable struct {
	mu    sync.Mutex
	ids   map[string]uint32
	texts []string // by number; the first firstPiece are unused
	// order and ends are made by rank once no intern runs (for
	// compareKeys and sortKeys): order[id] is the rank of texts[id]
	// followed by ';' (see tokenRank), shifted by orderShift, and its
	// flags (orderRoot, orderPiece); ends[id] the rank of texts[id]
	// followed by nothing.
	order []uint32
	ends  []uint32
}

func newPieceTable() *pieceTable {
	return &pieceTable{ids: make(map[string]uint32), texts: make([]string, firstPiece)}
}

// intern returns the number of text (which may be empty, for a root).
func (p *pieceTable) intern(text []byte) uint32 {
	p.mu.Lock()
	defer p.mu.Unlock()
	if id, ok := p.ids[string(text)]; ok {
		return id
	}
	id := uint32(len(p.texts))
	s := string(text)
	p.ids[s] = id
	p.texts = append(p.texts, s)
	return id
}

// appendText appends the text of key, the numbers of a root and of
// pieces.
func (p *pieceTable) appendText(dst []byte, key []uint32) []byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.appendTextLocked(dst, key)
}

// appendTextLocked is appendText with p's lock held, or no intern running.
func (p *pieceTable) appendTextLocked(dst []byte, key []uint32) []byte {
	for _, id := range key {
		dst = append(dst, p.texts[id]...)
	}
	return dst
}

// keySums is the classic sums of the stacks given as keys (see the top of
// this file) by all the workers of a stage, sharded by the keys' hash as
// sharedSums is by text, each shard behind its own lock.
type keySums struct {
	pieces *pieceTable
	noIdle bool // keys whose text idle.Is are dropped (Options.NoIdle)
	shards [shards]keyShard
}

// keyShard is one shard of a keySums: an open-addressed table of its
// keys, whose numbers are kept in ids, with their sums.
type keyShard struct {
	mu    sync.Mutex
	slots []keySlot // a power of two of them, at most half used
	used  int
	ids   []uint32
	_     [64]byte // keep shards' locks on separate cache lines
}

// keySlot is one slot of a keyShard: a key, ids[start:start+n] (n 0 for
// a free slot), its hash, its sum, and whether its text is an idle CPU's
// stack. A sample reads one slot and its key.
type keySlot struct {
	h     uint64
	start uint32
	n     uint32
	sum   int64
	idle  bool
}

func newKeySums(pieces *pieceTable, noIdle bool) *keySums {
	return &keySums{pieces: pieces, noIdle: noIdle}
}

// keySeed starts the hash of a key (see keyHash).
const keySeed uint64 = 0x243f6a8885a308d3

// keyHash adds the number id to the hash h of the key before it.
func keyHash(h uint64, id uint32) uint64 {
	return (h<<17 | h>>47 ^ uint64(id)) * 0x9e3779b97f4a7c15
}

// add adds n to the sum of key, whose hash is h (keyHash over its
// numbers), and reports whether it did: not when the text of key is an
// idle CPU's stack and idle stacks are dropped. Whether it is is decided
// once per key, when it is first added.
func (k *keySums) add(key []uint32, h uint64, n int64) bool {
	sh := &k.shards[h>>58%shards] // the top bits: the multiply mixed them most
	sh.mu.Lock()
	e := sh.find(key, h)
	if e.n == 0 {
		e = sh.insert(e, key, h, k.noIdle && k.isIdle(key))
	}
	ok := !e.idle
	if ok {
		e.sum = addSat(e.sum, n)
	}
	sh.mu.Unlock()
	return ok
}

// len returns the number of distinct keys added (idle ones too).
func (k *keySums) len() int {
	n := 0
	for i := range k.shards {
		n += k.shards[i].used
	}
	return n
}

// isIdle reports whether the text of key is an idle CPU's stack.
func (k *keySums) isIdle(key []uint32) bool {
	var buf [512]byte
	return idle.Is(k.pieces.appendText(buf[:0], key))
}

// slotOf returns where the search for hash h starts in a table of size
// slots (a power of two).
func slotOf(h uint64, size int) int {
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	return int(h & uint64(size-1))
}

// find returns the slot of key, whose hash is h, or the free slot where
// it goes.
func (sh *keyShard) find(key []uint32, h uint64) *keySlot {
	if sh.used >= len(sh.slots)/2 {
		sh.grow()
	}
	mask := len(sh.slots) - 1
	for i := slotOf(h, len(sh.slots)); ; i = (i + 1) & mask {
		e := &sh.slots[i]
		if e.n == 0 || e.h == h && slices.Equal(sh.ids[e.start:e.start+e.n], key) {
			return e
		}
	}
}

// insert fills the free slot e with key, whose hash is h, and a sum of 0,
// and returns it.
func (sh *keyShard) insert(e *keySlot, key []uint32, h uint64, idle bool) *keySlot {
	*e = keySlot{h: h, start: uint32(len(sh.ids)), n: uint32(len(key)), idle: idle}
	sh.ids = append(sh.ids, key...)
	sh.used++
	return e
}

// grow doubles the table (or makes it).
func (sh *keyShard) grow() {
	old := sh.slots
	sh.slots = make([]keySlot, max(64, 2*len(old)))
	mask := len(sh.slots) - 1
	for _, e := range old {
		if e.n == 0 {
			continue
		}
		i := slotOf(e.h, len(sh.slots))
		for sh.slots[i].n != 0 {
			i = (i + 1) & mask
		}
		sh.slots[i] = e
	}
}

// The flags of pieceTable.order: a text that is not a simple root
// (orderRoot: it holds a ';'), or not a simple piece (orderPiece: it
// holds a ';' past its first byte, or does not start with one).
const (
	orderRoot = 1 << iota
	orderPiece
	orderShift = iota
)

// Why ranks order keys: the text of a key is its root then pieces that
// each start with ';' (frameRules). Cut before each of those ';', it is
// a sequence of words, each followed by ';' but the last, followed by
// nothing. When no word holds a ';' (simple roots and pieces), no word
// so followed is the start of another: two texts compare as their first
// words that differ, each with what follows it. rank ranks every text
// both ways (";f" ending a key comes before ";f.isra", ";f;" after
// ";f.isra;"), and a key's number at a position and whether the key
// ends there compare as that rank (tokenRank).

// rank makes p.order and p.ends. No intern may run after.
func (p *pieceTable) rank() {
	ids := make([]uint32, 0, len(p.texts))
	for id := firstPiece; id < len(p.texts); id++ {
		ids = append(ids, uint32(id))
	}
	slices.SortFunc(ids, func(a, b uint32) int { return compareWords(p.texts[a], p.texts[b]) })
	// A text followed by nothing comes just before the first text
	// that starts with it, in this order, and after the shorter texts
	// that come there too: the texts that start with t, each followed
	// by ';', are next to each other, t among them.
	type end struct {
		at, n int // before ids[at]; the text's length
		id    uint32
	}
	ends := make([]end, len(ids))
	for r, id := range ids {
		t := p.texts[id]
		at := r
		if r > 0 && strings.HasPrefix(p.texts[ids[r-1]], t) {
			at = sort.Search(r, func(i int) bool { return strings.HasPrefix(p.texts[ids[i]], t) })
		}
		ends[r] = end{at, len(t), id}
	}
	slices.SortFunc(ends, func(a, b end) int { return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.n, b.n)) })
	p.order = make([]uint32, len(p.texts))
	p.ends = make([]uint32, len(p.texts))
	rank := uint32(0)
	e := 0
	for r, id := range ids {
		for ; e < len(ends) && ends[e].at == r; e++ {
			p.ends[ends[e].id] = rank
			rank++
		}
		t := p.texts[id]
		o := rank << orderShift
		rank++
		if strings.IndexByte(t, ';') >= 0 {
			o |= orderRoot
		}
		if len(t) == 0 || t[0] != ';' || strings.IndexByte(t[1:], ';') >= 0 {
			o |= orderPiece
		}
		p.order[id] = o
	}
}

// tokenRank returns the rank of number id of a key at position i, the
// key's last when end, and whether the rank orders it among the others
// (see rank): not where its text is not simple.
func (p *pieceTable) tokenRank(id uint32, i int, end bool) (uint32, bool) {
	o := p.order[id]
	bad := uint32(orderPiece)
	if i == 0 {
		bad = orderRoot
	}
	if end {
		return p.ends[id], o&bad == 0
	}
	return o >> orderShift, o&bad == 0
}

// compareWords compares s and t as bytes.Compare compares them each
// followed by ';'.
func compareWords(s, t string) int {
	n := min(len(s), len(t))
	if c := strings.Compare(s[:n], t[:n]); c != 0 {
		return c
	}
	switch {
	case len(s) < len(t): // s;  against  s + t[n:] + ;
		return cmp.Or(cmp.Compare(';', int(t[n])), -1)
	case len(s) > len(t):
		return cmp.Or(cmp.Compare(int(s[n]), ';'), 1)
	}
	return 0
}

// compareKeys compares the texts of the keys a and b as bytes.Compare
// would, without making them: equal numbers are equal texts, so the
// comparison starts at the first number that differs. Once the texts
// are ranked (rank), two simple pieces compare as their ranks (see
// tokenRank); else the texts are compared from there. No intern
// may run.
func (p *pieceTable) compareKeys(a, b []uint32) int {
	return p.compareFrom(a, b, 0)
}

// compareFrom is compareKeys of keys that start with the same d numbers.
func (p *pieceTable) compareFrom(a, b []uint32, d int) int {
	c, _ := p.compareAt(a, b, d)
	return c
}

// compareAt is compareFrom, and also returns the number of numbers a and
// b start with alike.
func (p *pieceTable) compareAt(a, b []uint32, d int) (int, int) {
	i := d + commonPrefix(a[d:], b[d:])
	if i < len(a) && i < len(b) && p.order != nil {
		x, okx := p.tokenRank(a[i], i, i+1 == len(a))
		y, oky := p.tokenRank(b[i], i, i+1 == len(b))
		if okx && oky {
			return cmp.Compare(x, y), i
		}
	}
	return p.compareTexts(a[i:], b[i:]), i
}

// compareTexts compares the texts of the keys a and b as bytes.Compare
// would.
func (p *pieceTable) compareTexts(a, b []uint32) int {
	var ta, tb string // the rest of the piece being compared
	for {
		for len(ta) == 0 && len(a) > 0 {
			ta, a = p.texts[a[0]], a[1:]
		}
		for len(tb) == 0 && len(b) > 0 {
			tb, b = p.texts[b[0]], b[1:]
		}
		switch {
		case len(ta) == 0 && len(tb) == 0:
			return 0
		case len(ta) == 0:
			return -1
		case len(tb) == 0:
			return 1
		}
		n := min(len(ta), len(tb))
		if c := strings.Compare(ta[:n], tb[:n]); c != 0 {
			return c
		}
		ta, tb = ta[n:], tb[n:]
	}
}

// commonPrefix returns the number of numbers a and b start with alike.
// Keys share long prefixes (their outer frames): two numbers are
// compared at once.
func commonPrefix(a, b []uint32) int {
	n := min(len(a), len(b))
	pa, pb := unsafe.Pointer(unsafe.SliceData(a)), unsafe.Pointer(unsafe.SliceData(b))
	i := 0
	// Both hold n numbers: the words read are theirs.
	for i+2 <= n && *(*uint64)(unsafe.Add(pa, 4*i)) == *(*uint64)(unsafe.Add(pb, 4*i)) {
		i += 2
	}
	if i < n && a[i] == b[i] {
		i++
	}
	return i
}

// keyList is a sumList of sorted keys: it makes the text of each as it
// is read. Sorted keys share long starts: the text of the start a key
// shares with the key before is kept, and only the rest is made.
type keyList struct {
	p     *pieceTable
	arena []uint32 // the keys' numbers
	refs  []sortRef
	prev  []uint32 // the key read before
	buf   []byte   // its text
	ends  []int    // where the text of each of its numbers ends in buf
}

func (l *keyList) next() ([]byte, int64, bool) {
	if len(l.refs) == 0 {
		return nil, 0, false
	}
	r := l.refs[0]
	l.refs = l.refs[1:]
	ids := r.ids(l.arena)
	n := commonPrefix(l.prev, ids)
	l.buf = l.buf[:0]
	if n > 0 {
		l.buf = l.buf[:l.ends[n-1]]
	}
	l.ends = l.ends[:n]
	for _, id := range ids[n:] {
		l.buf = append(l.buf, l.p.texts[id]...)
		l.ends = append(l.ends, len(l.buf))
	}
	l.prev = ids
	return l.buf, r.sum, true
}

// keyCache is a worker's combiner in front of the shared keySums, as
// sumCache is in front of sharedSums: keys met lately, by hash, with
// their pending weights. A sample whose key is there costs a comparison
// of numbers in the worker's own memory, not the shared table's lock and
// slot (which the other workers write too); the weights go there once,
// when the key leaves the cache or the worker ends (flush). A key's first
// sample goes to the shared table, which says whether the key is summed
// (not an idle CPU's stack dropped with --no-idle): the keys written, and
// their sums, are those without the cache.
type keyCache struct {
	slots []keyCached // keyCacheSlots of them, made at the first add
}

// keyCached is a key of a keyCache, its hash, its pending weight and
// whether the shared table sums it (key nil: a free slot).
type keyCached struct {
	key []uint32
	h   uint64
	n   int64
	ok  bool
}

const keyCacheSlots = 1024

// add is keySums.add through the cache.
func (c *keyCache) add(k *keySums, key []uint32, h uint64, n int64) bool {
	if c.slots == nil {
		c.slots = make([]keyCached, keyCacheSlots)
	}
	e := &c.slots[h>>40%keyCacheSlots] // the bits below the shard's
	if e.key != nil && e.h == h && slices.Equal(e.key, key) {
		if e.ok {
			e.n = addSat(e.n, n)
		}
		return e.ok
	}
	if e.n != 0 {
		k.add(e.key, e.h, e.n)
	}
	ok := k.add(key, h, n)
	e.key = append(e.key[:0], key...)
	e.h, e.n, e.ok = h, 0, ok
	return ok
}

// flush gives the pending weights to k.
func (c *keyCache) flush(k *keySums) {
	for i := range c.slots {
		if e := &c.slots[i]; e.n != 0 {
			k.add(e.key, e.h, e.n)
			e.n = 0
		}
	}
}
