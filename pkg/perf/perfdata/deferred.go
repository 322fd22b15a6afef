package perfdata

import (
	"encoding/binary"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"flamekit/internal/base/hugepage"
	"flamekit/pkg/perf/sample"
)

// This file resolves the frames of samples on other goroutines than the
// Reader's (Reader.DeferFrames): the reader keeps each sample's call chain
// as recorded, with the maps of its time, and FrameCaches, one per
// goroutine, turn the addresses into frames. The maps can be kept because
// their lists are copied on write (see maps, machine.changeDSO): a list or
// a DSO that a sample holds never changes.

// world is what the frames of a sample need of the reader's state besides
// its process's maps, as it was at the sample's time. The reader makes a
// new one when it changes (machine.gen).
type world struct {
	kmaps    []mapping
	kernelID string // the kernel's build-id, in hexadecimal (for modules)
	kdelta   uint64
}

// deferred is what a kept sample needs to resolve its frames later.
type deferred struct {
	user []mapping // the process's maps
	w    *world
	// w2 is the world from the frame loadAt on (the sample whose lookup
	// loaded the kernel's map); loadAt is -1 for the other samples.
	w2     *world
	loadAt int32
	thread int32 // the sample's thread id
	// ipMode, when not 0, says that the sample has no call chain: its
	// one frame is its ip, looked up in the maps of cpumode ipMode&7.
	ipMode uint8
}

// DeferFrames makes the Reader leave the frames of its samples to
// FrameCaches, on other goroutines: Keep keeps each sample's call chain as
// recorded, with the maps of its time, and Sample, Head and the Chain and
// Frame of a Samples batch then give no frames. Call it before the first
// Next. What the frames are does not change, only where they are found:
// the reader's goroutine no longer looks up every address.
//
// The user stacks of --call-graph dwarf samples are then unwound by the
// FrameCaches too, each sample's stack dump kept in its Samples; the
// Stats count where they stopped once every batch kept went through a
// FrameCache's Chain or Addrs.
func (r *Reader) DeferFrames() {
	r.deferred = true
	r.cfiTables() // made before FrameCaches share it
}

// curWorld returns the world of the reader's current state.
func (r *Reader) curWorld() *world {
	if r.world == nil || r.worldGen != r.m.gen {
		m := r.m
		r.world = &world{kmaps: m.kmaps.share(), kernelID: m.kernel.hexID, kdelta: m.kdelta}
		r.worldGen = m.gen
	}
	return r.world
}

// scanFrames does what resolving the current sample's frames does to the
// reader's state, without resolving them: it counts a chain dropped for a
// bad context marker, and loads the kernel's map at the first lookup that
// finds it, as chainFrames and ipFrame do.
func (r *Reader) scanFrames(rec *sampleRec) {
	r.dropped = false
	r.loadAt = -1
	r.loadFrom = nil
	if !r.printsFrames {
		return
	}
	w := r.curWorld()
	load := func(i int, ip uint64) {
		if m := r.m.kmaps.find(ip); m != nil && m.dso == r.m.kernel {
			r.loadKernel()
			r.loadAt, r.loadFrom = int32(i), w
		}
	}
	if rec.attr.sampleType&sampleCallchain == 0 {
		if !r.m.kloaded && rec.cpumode == cpumodeKernel {
			load(0, rec.ip)
		}
		return
	}
	// The whole chain, for keepDeferred.
	r.ips = slices.Grow(r.ips[:0], rec.nchain)[:rec.nchain]
	decodeU64s(r.ips, rec.callchain)
	if r.m.kloaded {
		// Only the markers to check, up to maxStack frames.
		n := 0
		for _, ip := range r.ips {
			if ip >= contextMax {
				if _, ok := markerMode(ip); !ok {
					r.stats.DroppedChains++
					r.dropped = true
					return
				}
				continue
			}
			if n++; n >= maxStack {
				break
			}
		}
		return
	}
	cpumode := uint16(cpumodeUser)
	n := 0
	kloaded := r.m.kloaded
	for i, ip := range r.ips {
		if n >= maxStack {
			break
		}
		if ip >= contextMax {
			m, ok := markerMode(ip)
			if !ok {
				r.stats.DroppedChains++
				r.dropped = true
				return
			}
			cpumode = m
			continue
		}
		n++
		if !kloaded && cpumode == cpumodeKernel {
			load(i, ip)
			kloaded = r.m.kloaded
		}
	}
}

// keepDeferred appends the current sample's call chain to b.ips and sets
// what resolving it needs in h.
func (r *Reader) keepDeferred(b *Samples, h *keptHead) {
	if !r.printsFrames || r.dropped {
		return
	}
	rec := &r.rec
	h.user = r.th.maps.share()
	h.thread = rec.tid
	h.w = r.curWorld()
	h.loadAt = -1
	if r.loadAt >= 0 {
		h.w, h.w2, h.loadAt = r.loadFrom, r.curWorld(), r.loadAt
	}
	if rec.attr.sampleType&sampleCallchain == 0 {
		h.ipMode = 8 | uint8(rec.cpumode)
		b.ips = append(b.ips, rec.ip)
		return
	}
	b.ips = append(b.ips, r.ips...)
}

// nativeLE reports whether this machine stores numbers as perf.data files
// do (little-endian).
var nativeLE = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// decodeU64s decodes the little-endian numbers of src into dst, which
// holds len(src)/8: a copy where the machine is little-endian.
func decodeU64s(dst []uint64, src []byte) {
	src = src[:8*len(dst)]
	if nativeLE && len(dst) > 0 {
		copy(unsafe.Slice((*byte)(unsafe.Pointer(&dst[0])), len(src)), src)
		return
	}
	for i := range dst {
		dst[i] = le64(src[8*i:])
	}
}

// FrameCache resolves the deferred frames of a Reader's samples (see
// DeferFrames) on one goroutine. The FrameCaches of a Reader share their
// frames: each distinct frame is found, and its symbol looked up, once
// for all of them, and they give it one number.
type FrameCache struct {
	sh    *sharedLocs
	chain []uint32
	spare []uint32 // a spare buffer for a lastRun
	reqs  []locReq // lookupRun's
	slab  byteSlab // the bytes of the locations it makes
	// The last run of addresses resolved in the kernel's maps, and per
	// thread and list of user maps (hashed into a few slots): see Chain.
	lastKernel lastRun
	lastUser   [lastSlots]lastRun
	dw         *dwarfUnwinder // made at the first batch with user stacks to unwind
}

const lastSlots = 64

// userSlot returns the slot of lastUser of a thread and its list of maps.
func userSlot(user *mapping, thread int32) int {
	return int((uintptr(unsafe.Pointer(user))>>4 ^ uintptr(thread)*0x9e3779b9) % lastSlots)
}

// lastRun is a run of a call chain as resolved: its addresses and their
// frames, with the maps they were looked up in.
type lastRun struct {
	user  *mapping // the list of user maps: its first map, and length
	nuser int
	tid   int32
	w     *world
	ips   []uint64
	locs  []uint32
}

// NewFrameCache returns a FrameCache for the samples of r, to be used by
// one goroutine at a time.
func (r *Reader) NewFrameCache() *FrameCache {
	if r.shared == nil {
		sh := &sharedLocs{namer: namer{sy: r.opt.Symbolizer, unique: true}, cfi: r.cfi}
		sh.index.init(r.fi.chainBytes())
		r.shared = sh
	}
	return &FrameCache{sh: r.shared}
}

// sharedLocs is the locations of a Reader's FrameCaches, which share
// them, so that each distinct frame is found, and its symbol looked up,
// once: an index read without a lock, and a table of locations that only
// grows, read without a lock too (a location is complete before its
// number is in the index).
type sharedLocs struct {
	cfi    *cfiObjects // the Reader's, for deferred unwinding (DeferFrames)
	namer  namer
	addMu  sync.Mutex
	n      uint32 // locations made; addMu
	blocks [maxLocBlocks]atomic.Pointer[[1 << locBits]location]
	index  sharedIndex
	keys   spareKeys
}

// sharedIndex is the index of the locations of a Reader's FrameCaches by
// DSO, address and printed address (entries as locEntry says, but their
// tags atomic): open addressing, linear probing, at most half full.
// Lookups take no lock, adding does. An entry is written once, its tag
// last: a lookup that sees the tag sees the rest. Growing makes a new
// table; a lookup still on the old one may miss an entry added since,
// and then finds it under the lock.
type sharedIndex struct {
	table atomic.Pointer[indexTable]
	mu    sync.Mutex // taken to add and grow
	n     int        // entries; mu
	// A location is made under the lock of its key's shard, so that
	// two goroutines do not make it twice, and the others make theirs
	// meanwhile.
	shards [16]struct {
		sync.Mutex
		_ [56]byte // on separate cache lines
	}
}

type indexTable struct {
	shift   uint
	entries []indexEntry
}

type indexEntry struct {
	addr uint64
	tag  atomic.Uint32 // 0: free
	loc  uint32
}

// init makes the first table: for about one location per 512 bytes of
// data (the system-wide captures measured have one per 500), at most
// half full, so that a large capture does not grow it many times; but
// no more than 2^20 entries (16 MB), for a capture of gigabytes may hold
// few distinct frames, and the table grows with those. It takes huge
// pages when large enough (hugepage.Table): each probe of a table of
// megabytes misses the processor's cache, and should not miss its TLB
// as well.
func (x *sharedIndex) init(dataSize int64) {
	bits := uint(12)
	for bits < 20 && int64(1)<<bits < dataSize/256 {
		bits++
	}
	x.table.Store(&indexTable{shift: 64 - bits, entries: hugepage.Table[indexEntry](1 << bits)})
}

// first returns the entry where the search for tag and key starts.
func (t *indexTable) first(tag uint32, key uint64) uint64 {
	return locHash(tag, key) >> t.shift
}

// find returns the location of tag and key (see locKey) whose DSO
// address is addr, searching from entry i of t; at gives the locations.
func (t *indexTable) find(i uint64, tag uint32, key, addr uint64, at func(uint32) *location) (uint32, bool) {
	mask := uint64(len(t.entries) - 1)
	for ; ; i = (i + 1) & mask {
		e := &t.entries[i]
		g := e.tag.Load()
		if g == 0 {
			return 0, false
		}
		if g == tag && e.addr == key && (tag&oddTag == 0 || at(e.loc).addr == addr) {
			return e.loc, true
		}
	}
}

// shard returns the lock under which the location of tag and key is
// made.
func (x *sharedIndex) shard(tag uint32, key uint64) *sync.Mutex {
	return &x.shards[locHash(tag, key)>>60].Mutex
}

// add adds the entry of tag and key, known to be absent, for location
// loc.
func (x *sharedIndex) add(tag uint32, key uint64, loc uint32) {
	x.mu.Lock()
	defer x.mu.Unlock()
	t := x.table.Load()
	if 2*(x.n+1) > len(t.entries) {
		t = x.grow(t)
	}
	x.n++
	t.put(tag, key, loc)
}

// put fills the first free entry from tag and key's on.
func (t *indexTable) put(tag uint32, key uint64, loc uint32) {
	mask := uint64(len(t.entries) - 1)
	i := t.first(tag, key)
	for t.entries[i].tag.Load() != 0 {
		i = (i + 1) & mask
	}
	e := &t.entries[i]
	e.addr, e.loc = key, loc
	e.tag.Store(tag)
}

// grow makes a table twice as large as t, with its entries, the
// current one; x.mu is held.
func (x *sharedIndex) grow(t *indexTable) *indexTable {
	n := &indexTable{shift: t.shift - 1, entries: hugepage.Table[indexEntry](2 * len(t.entries))}
	for i := range t.entries {
		e := &t.entries[i]
		if g := e.tag.Load(); g != 0 {
			n.put(g, e.addr, e.loc)
		}
	}
	x.table.Store(n)
	return n
}

const maxLocBlocks = 1 << 16 // 268 million locations

func (sh *sharedLocs) at(i uint32) *location {
	return &sh.blocks[i>>locBits].Load()[i&(1<<locBits-1)]
}

// add makes a location and returns its number and itself, to be filled
// before its number is given to anyone.
func (sh *sharedLocs) add() (uint32, *location) {
	sh.addMu.Lock()
	i := sh.n
	if i&(1<<locBits-1) == 0 {
		if int(i>>locBits) == maxLocBlocks {
			sh.addMu.Unlock()
			panic("perfdata: more than 268 million distinct frames")
		}
		sh.blocks[i>>locBits].Store(new([1 << locBits]location))
	}
	sh.n++
	sh.addMu.Unlock()
	return i, sh.at(i)
}

// Chain returns the frames of sample i of b, kept with deferred frames,
// leaf first, as numbers for Frame: equal numbers, equal frames. It is
// valid until the next call.
func (c *FrameCache) Chain(b *Samples, sample int) []uint32 {
	c.unwindBatch(b)
	h := &b.heads[sample]
	ips := b.ips[h.chain[0]:h.chain[1]]
	c.chain = c.chain[:0]
	if len(ips) == 0 {
		return c.chain
	}
	w := h.w
	if h.ipMode != 0 {
		if h.loadAt == 0 {
			w = h.w2
		}
		ip := ips[0]
		if m := find(h, w, uint16(h.ipMode&7), ip); m != nil {
			c.chain = append(c.chain, c.location(w, m, m.mapIP(ip), ip))
		} else {
			c.chain = append(c.chain, c.noMap(ip))
		}
		return c.chain
	}
	// The chain is runs of addresses between context markers. A run is
	// looked up in the maps of its cpumode, and samples repeat the outer
	// part of their runs (the process's main loop, the kernel's system
	// call entry): the frames of the entries a run ends with, equal to
	// those the last run of the same maps ended with, are taken from it.
	var user *mapping
	if len(h.user) > 0 {
		user = &h.user[0]
	}
	cpumode := uint16(cpumodeUser)
	n := 0
	for i := 0; i < len(ips) && n < maxStack; {
		if ip := ips[i]; ip >= contextMax {
			if m, ok := markerMode(ip); ok {
				cpumode = m
			}
			i++
			continue
		}
		j := i + 1
		for j < len(ips) && ips[j] < contextMax {
			j++
		}
		run := ips[i:j]
		var last *lastRun
		if h.loadAt < 0 {
			switch cpumode {
			case cpumodeKernel:
				last = &c.lastKernel
				if last.w != h.w {
					last.ips = last.ips[:0]
				}
			case cpumodeUser:
				last = &c.lastUser[userSlot(user, h.thread)]
				if last.user != user || last.nuser != len(h.user) || last.tid != h.thread {
					last.ips = last.ips[:0]
				}
			}
		}
		// Entries from start on are those of last from start+shift on.
		start, shift := len(run), 0
		if last != nil {
			shift = len(last.ips) - len(run)
			start -= commonSuffix(run, last.ips)
		}
		// The frames looked up, then those taken from last, at most
		// maxStack in all.
		limit := min(len(run), maxStack-n)
		var locs []uint32
		locs, w = c.lookupRun(c.spare[:0], h, w, cpumode, run[:min(start, limit)], int(h.loadAt)-i)
		if limit > start {
			locs = append(locs, last.locs[start+shift:limit+shift]...)
		}
		n += limit
		c.chain = append(c.chain, locs...)
		if last != nil && len(locs) == len(run) {
			// last takes the run; its buffer becomes the spare.
			c.spare = last.locs
			last.user, last.nuser, last.w, last.tid = user, len(h.user), h.w, h.thread
			last.ips = append(last.ips[:0], run...)
			last.locs = locs
		} else {
			c.spare = locs
		}
		i = j
	}
	return c.chain
}

// locReq is the lookup of one address of a run (lookupRun): the index
// of its map in the run's list (-1 for none: then it is keyed as noMap
// keys it), its DSO and printed addresses, tag and key (locKey), and the
// index's entry where the search starts, with its tag when probed.
// It holds no pointer, so that filling it costs no write barrier.
type locReq struct {
	addr, printed uint64
	key           uint64
	at            uint64
	tag           uint32
	etag          uint32
	m             int32
	w2            bool // the map is one of h.w2's
}

// lookupRun appends the locations of the addresses of run, looked up in
// the maps of cpumode of h in world w, or from switchAt on (an index of
// run, if in it) in h.w2, to locs, and returns it and the world of the
// run's end. Most addresses are in the shared index already, whose
// entries are spread over megabytes: the addresses are keyed first, then
// the index is probed for all of them in one loop, so that the processor
// waits for their cache lines together rather than one after the other.
func (c *FrameCache) lookupRun(locs []uint32, h *keptHead, w *world, cpumode uint16, run []uint64, switchAt int) ([]uint32, *world) {
	reqs := slices.Grow(c.reqs[:0], len(run))[:len(run)]
	w0 := w
	mf := mapFinder{l: runMaps(h, w, cpumode), last: -1}
	for k, ip := range run {
		if k == switchAt {
			w = h.w2
			mf = mapFinder{l: runMaps(h, w, cpumode), last: -1}
		}
		q := &reqs[k]
		q.w2 = k >= switchAt && switchAt >= 0
		i := mf.index(ip)
		q.m = int32(i)
		if i < 0 {
			q.tag, q.key, q.addr, q.printed = noMapTag, ip, ip, ip
			continue
		}
		m := &mf.l[i]
		q.addr, q.printed = m.chainAddr(ip)
		q.tag, q.key = locKey(c.sh.keys.of(m.dso), q.addr, q.printed)
	}
	t := c.sh.index.table.Load()
	for k := range reqs {
		q := &reqs[k]
		q.at = t.first(q.tag, q.key)
		q.etag = t.entries[q.at].tag.Load()
	}
	for k := range reqs {
		q := &reqs[k]
		// The rest of an entry is read once its tag is seen set.
		if e := &t.entries[q.at]; q.etag == q.tag && e.addr == q.key && (q.tag&oddTag == 0 || c.sh.at(e.loc).addr == q.addr) {
			locs = append(locs, e.loc)
			continue
		}
		loc, ok := uint32(0), false
		if q.etag != 0 {
			loc, ok = t.find(q.at, q.tag, q.key, q.addr, c.sh.at)
		}
		if !ok {
			qw := w0
			if q.w2 {
				qw = h.w2
			}
			var m *mapping
			if q.m >= 0 {
				m = &runMaps(h, qw, cpumode)[q.m]
			}
			loc = c.locate(qw, m, q.addr, q.printed, q.tag, q.key)
		}
		locs = append(locs, loc)
	}
	c.reqs = reqs
	return locs, w
}

// commonSuffix returns how many addresses a and b end with in common.
func commonSuffix(a, b []uint64) int {
	k := min(len(a), len(b))
	a, b = a[len(a)-k:], b[len(b)-k:]
	b = b[:len(a)]
	i := len(a)
	for i > 0 && a[i-1] == b[i-1] {
		i--
	}
	return k - i
}

// find is findMap on the maps a sample kept.
func find(h *keptHead, w *world, cpumode uint16, ip uint64) *mapping {
	switch cpumode {
	case cpumodeKernel:
		return findIn(w.kmaps, ip)
	case cpumodeUser:
		return findIn(h.user, ip)
	}
	return nil
}

// runMaps returns the maps a sample kept for addresses of cpumode.
func runMaps(h *keptHead, w *world, cpumode uint16) []mapping {
	switch cpumode {
	case cpumodeKernel:
		return w.kmaps
	case cpumodeUser:
		return h.user
	}
	return nil
}

// mapFinder is findIn on one list of maps, for the addresses of a run:
// it tries first the map of the last address it looked up, for the
// frames of a run are often in one file.
type mapFinder struct {
	l    []mapping
	last int // the index of the last map found, -1 for none
}

// index returns the index in f.l of findIn(f.l, addr), -1 for none.
func (f *mapFinder) index(addr uint64) int {
	l, i := f.l, f.last
	if i < 0 || i >= len(l) || l[i].start > addr || i+1 < len(l) && l[i+1].start <= addr {
		// Not the last map starting at or before addr.
		if i = lastStarting(l, addr); i < 0 {
			return -1
		}
		f.last = i
	}
	if addr < l[i].end {
		return i
	}
	return -1
}

// findIn returns the map of l (sorted, not overlapping) holding addr, or
// nil.
func findIn(l []mapping, addr uint64) *mapping {
	if i := lastStarting(l, addr); i >= 0 && addr < l[i].end {
		return &l[i]
	}
	return nil
}

// lastStarting returns the index of the last map of l (sorted by start)
// that starts at or before addr, or -1.
func lastStarting(l []mapping, addr uint64) int {
	lo, hi := 0, len(l)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if l[m].start > addr {
			hi = m
		} else {
			lo = m + 1
		}
	}
	return lo - 1
}

// Frame returns the frame numbered n (a number of Chain), its symbol
// found on the first call for n. It is shared, not to be written.
func (c *FrameCache) Frame(n uint32) *sample.Frame {
	l := c.sh.at(n)
	if l.ready.Load() == 0 {
		c.sh.namer.resolve(l)
	}
	return &l.f
}

// location is Reader.location.
func (c *FrameCache) location(w *world, m *mapping, addr, printed uint64) uint32 {
	tag, key := locKey(c.sh.keys.of(m.dso), addr, printed)
	return c.lookup(w, m, addr, printed, tag, key)
}

// noMap is Reader.noMap: the location of an address in no map, indexed
// with the others under noMapTag.
func (c *FrameCache) noMap(ip uint64) uint32 {
	return c.lookup(nil, nil, ip, ip, noMapTag, ip)
}

// lookup returns the location of tag and key (see locKey), found in the
// index or made.
func (c *FrameCache) lookup(w *world, m *mapping, addr, printed uint64, tag uint32, key uint64) uint32 {
	t := c.sh.index.table.Load()
	if loc, ok := t.find(t.first(tag, key), tag, key, addr, c.sh.at); ok {
		return loc
	}
	return c.locate(w, m, addr, printed, tag, key)
}

// locate is lookup for a location not found in the index without a
// lock: found under its shard's lock (see sharedIndex), or made.
func (c *FrameCache) locate(w *world, m *mapping, addr, printed uint64, tag uint32, key uint64) uint32 {
	x := &c.sh.index
	mu := x.shard(tag, key)
	mu.Lock()
	defer mu.Unlock()
	t := x.table.Load()
	if loc, ok := t.find(t.first(tag, key), tag, key, addr, c.sh.at); ok {
		return loc
	}
	loc, l := c.sh.add()
	if m == nil {
		l.fillNoMap(addr, &c.sh.namer)
	} else {
		l.fill(m, addr, printed, w.kdelta, w.kernelID, &c.sh.namer, &c.slab)
	}
	x.add(tag, key, loc)
	return loc
}
