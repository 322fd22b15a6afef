package perfdata

import (
	"encoding/binary"
	"errors"
	"io"
	"strings"
	"sync"
	"sync/atomic"

	"flamekit/pkg/perf/symbols"
	"flamekit/pkg/perf/unwind"
)

// This file unwinds the user stacks of perf record --call-graph dwarf
// samples (pkg/perf/unwind) as perf script's libunwind does: the sample's
// call chain holds only its kernel part; the user part is found from the
// registers and the stack dump the sample carries, and appended to the
// chain after a PERF_CONTEXT_USER marker, as a frame-pointer chain holds
// it. From there on the frames are resolved as those of any chain, on
// the reader's goroutine or on FrameCaches (DeferFrames).

// objectOpener is a Symbolizer that finds the file of an object's code
// (*symbols.Resolver does).
type objectOpener interface {
	ObjectFile(path, buildID string) (io.ReaderAt, func() error, string, error)
}

var _ objectOpener = (*symbols.Resolver)(nil)

// UnwindStops counts, per cause, where the user stacks of a --call-graph
// dwarf capture end (see unwind.Stop): the outermost frame for most
// (unwind.End), else the reason perf's unwinder stops there too.
type UnwindStops [unwind.NoRegs + 1]int64

// Total returns the number of stacks unwound.
func (u *UnwindStops) Total() int64 {
	var n int64
	for _, v := range u {
		n += v
	}
	return n
}

// Short returns the stacks that ended before their outermost frame, with
// the causes ("stack dump ran out: 12, no CFI for the address: 3"), in
// the order of unwind.Stop.
func (u *UnwindStops) Short() (int64, string) {
	var n int64
	var parts []string
	for s := unwind.StackEnd; s <= unwind.NoRegs; s++ {
		if u[s] > 0 {
			n += u[s]
			parts = append(parts, s.String()+": "+itoa(u[s]))
		}
	}
	return n, strings.Join(parts, ", ")
}

func itoa(v int64) string {
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + v%10)
		v /= 10
		if v == 0 {
			return string(b[i:])
		}
	}
}

// cfiObjects is the CFI of the objects of a Reader's captures, read once
// and shared by its unwinders (the Reader's and its FrameCaches'), with
// the stops of the stacks the FrameCaches unwound.
type cfiObjects struct {
	opener objectOpener
	mu     sync.Mutex
	tables map[string]*objectCFI // by path and build-id; mu
	stops  [unwind.NoRegs + 1]atomic.Int64
}

// dwarfUnwinder unwinds the user stacks of samples on one goroutine: the
// Reader's, or a FrameCache's (see keptUnwind).
type dwarfUnwinder struct {
	u      unwind.Unwinder
	objs   *cfiObjects
	byDSO  map[*dso]*objectCFI // objs' tables by DSO (a changed DSO is a copy)
	lowest map[lowestKey]uint64
	space  space
	spans  spanCache
	// hasObject's last list (its first map and length) and answer.
	objList *mapping
	objN    int
	objHas  bool
	pcs     []uint64
	user    []uint64 // appendUser's
	chain   []byte   // the rebuilt call chain of the current sample
	vals    []uint64
}

// newDWARFUnwinder returns an unwinder reading the CFI of objs.
func newDWARFUnwinder(objs *cfiObjects) *dwarfUnwinder {
	d := &dwarfUnwinder{objs: objs, byDSO: map[*dso]*objectCFI{}, lowest: map[lowestKey]uint64{}}
	d.u.MaxDepth = maxStack
	return d
}

// objectCFI is the CFI of one object, or why there is none.
type objectCFI struct {
	t    *unwind.Table
	stop unwind.Stop
	file string // the file read
}

// space is the memory of the sampled process, for unwind.Unwinder: its
// maps at the sample's time, a list no change touches (maps.share).
type space struct {
	d    *dwarfUnwinder
	list []mapping
}

func (s *space) Find(addr uint64) (*unwind.Table, uint64, unwind.Stop) {
	if len(s.list) == 0 {
		return nil, 0, unwind.NoMap
	}
	c := &s.d.spans
	if c.list != &s.list[0] || c.n != len(s.list) {
		*c = spanCache{list: &s.list[0], n: len(s.list)}
	}
	for i := range c.ents {
		if e := &c.ents[i]; addr-e.start < e.end-e.start {
			return e.t, addr + e.delta, e.stop
		}
	}
	m := findIn(s.list, addr)
	if m == nil {
		return nil, 0, unwind.NoMap
	}
	t, delta, stop := s.find(m)
	c.ents[c.next] = span{start: m.start, end: m.end, t: t, delta: delta, stop: stop}
	c.next = (c.next + 1) % len(c.ents)
	return t, addr + delta, stop
}

// spanCache holds the last maps space.Find found, for one version of a
// process's map list: the addresses of a sample's stack fall in a few
// maps, which samples of the same process repeat.
type spanCache struct {
	list *mapping // the list's first map, and its length
	n    int
	ents [8]span
	next int
}

// span is a map as space.Find found it: its addresses map to the
// object's own plus delta, or stop says why they have no CFI.
type span struct {
	start, end uint64
	t          *unwind.Table
	delta      uint64
	stop       unwind.Stop
}

// find returns the CFI of map m and what to add to an address of m to
// get the object's own, or why there is none.
func (s *space) find(m *mapping) (*unwind.Table, uint64, unwind.Stop) {
	d := m.dso
	switch d.kind {
	case dsoUser, dsoVDSO:
	case dsoJIT:
		return nil, 0, unwind.JIT
	case dsoNone:
		if strings.HasPrefix(d.path, "//anon") || strings.HasPrefix(d.path, "[anon") {
			return nil, 0, unwind.JIT
		}
		return nil, 0, unwind.NoObject
	default:
		return nil, 0, unwind.NoMap
	}
	o := s.d.object(d)
	if o.t == nil {
		return nil, 0, o.stop
	}
	// perf's find_proc_info takes the object's load address as the
	// lowest start of the maps of its DSO, minus the first loaded
	// segment's address less its offset (elf_base_address): for a
	// process that kept its parent's maps across exec (perf keeps them)
	// that is the parent's copy, and the lookup then misses.
	return o.t, o.t.BaseAddr() - s.d.lowestStart(s.list, d), 0
}

// hasObject reports whether a list of maps maps any object (a file or
// the vdso), remembered for the last list asked about.
func (d *dwarfUnwinder) hasObject(list []mapping) bool {
	if len(list) == 0 {
		return false
	}
	if &list[0] == d.objList && len(list) == d.objN {
		return d.objHas
	}
	d.objList, d.objN, d.objHas = &list[0], len(list), false
	for i := range list {
		if k := list[i].dso.kind; k == dsoUser || k == dsoVDSO {
			d.objHas = true
			break
		}
	}
	return d.objHas
}

// lowestKey identifies a DSO in one version of a process's map list.
type lowestKey struct {
	list *mapping
	n    int
	dso  *dso
}

// lowestStart returns the lowest start of the maps of DSO d in ms,
// cached per version of the list.
func (d *dwarfUnwinder) lowestStart(list []mapping, ds *dso) uint64 {
	k := lowestKey{&list[0], len(list), ds}
	if v, ok := d.lowest[k]; ok {
		return v
	}
	low := ^uint64(0)
	for i := range list {
		m := &list[i]
		if m.dso == ds || m.dso.path == ds.path && m.dso.hexID == ds.hexID {
			low = min(low, m.start)
		}
	}
	if len(d.lowest) > 1<<16 {
		clear(d.lowest)
	}
	d.lowest[k] = low
	return low
}

// object returns the CFI of a DSO, read once.
func (d *dwarfUnwinder) object(ds *dso) *objectCFI {
	if o, ok := d.byDSO[ds]; ok {
		return o
	}
	o := d.objs.object(ds)
	d.byDSO[ds] = o
	return o
}

// object returns the CFI of a DSO, read once for all unwinders: the
// others wait while one reads an object's.
func (c *cfiObjects) object(ds *dso) *objectCFI {
	key := ds.path + "\x00" + ds.hexID
	c.mu.Lock()
	defer c.mu.Unlock()
	if o, ok := c.tables[key]; ok {
		return o
	}
	o := &objectCFI{stop: unwind.NoObject}
	if c.opener != nil {
		path := ds.path
		if ds.kind == dsoVDSO {
			path = "[vdso]"
		}
		if f, closeFn, name, err := c.opener.ObjectFile(path, ds.hexID); err == nil {
			if t, err := unwind.Load(name, f, unwind.Options{}); err == nil {
				o.t, o.stop, o.file = t, 0, name
			}
			closeFn()
		} else if errors.Is(err, symbols.ErrBuildIDMismatch) {
			o.stop = unwind.Replaced
		}
	}
	c.tables[key] = o
	return o
}

// unwoundEnd stands in a rebuilt call chain for the frame perf's
// libunwind adds where a return address lies past the stack dump, 0 minus
// one, which a chain cannot hold (it would be a context marker): it is in
// no map and printed as perf prints it, ffffffffffffffff.
const unwoundEnd = contextMax - 1

// PERF_SAMPLE_REGS_ABI values.
const (
	regsABINone = 0
	regsABI64   = 2
)

// cfiTables returns the Reader's table of CFI, made once.
func (r *Reader) cfiTables() *cfiObjects {
	if r.cfi == nil {
		r.cfi = &cfiObjects{tables: map[string]*objectCFI{}}
		r.cfi.opener, _ = r.opt.Symbolizer.(objectOpener)
	}
	return r.cfi
}

// keptUnwind is what unwinding a sample's user stack needs, kept with
// the sample for a FrameCache (see Reader.DeferFrames): the registers,
// and the stack dump, in a chunk of the Reader's queue that the batch
// pins (Samples.pinned), else copied in Samples.stacks.
type keptUnwind struct {
	regs  unwind.Regs
	stack []byte
	abi64 bool // a 64-bit process (else its first frame only)
}

// unwindUser replaces the call chain of a --call-graph dwarf sample by
// its kernel part followed by the user frames unwound from its registers
// and stack dump, and counts where the unwind stopped. When frames are
// deferred, the unwinding is too: the chain keeps its kernel part, and
// r.unw what Keep keeps for a FrameCache to unwind the rest.
func (r *Reader) unwindUser(rec *sampleRec) {
	d := r.dwarf
	if d == nil {
		d = newDWARFUnwinder(r.cfiTables())
		r.dwarf = d
	}
	// The kernel part of the recorded chain: up to a user marker.
	kept := 0
	for ; kept < rec.nchain; kept++ {
		if rec.chainAt(kept) == contextUser {
			break
		}
	}
	d.chain = append(d.chain[:0], rec.callchain[:8*kept]...)
	rec.callchain, rec.nchain = d.chain, kept
	switch {
	case rec.regsABI == regsABINone || len(rec.regs) == 0:
		// A kernel thread: no user part.
		return
	case len(rec.stack) == 0:
		// A stack that could not be copied (in the middle of an
		// exec): no user part at all, as perf's
		// thread__resolve_callchain_unwind gives.
		r.stats.Unwind[unwind.StackEnd]++
		return
	}
	th := r.m.findnew(rec.pid, rec.tid)
	// The caches of space (spans, lowest) and hasObject know a list by
	// its first map and length: shared, a list is never changed in
	// place.
	list := th.maps.share()
	if !d.hasObject(list) {
		// A process whose objects perf never saw mapped (their MMAP
		// records lost; anonymous maps only): perf registers a
		// process's unwinder with its first map of an object, so such
		// a sample has no user part at all, not even its ip.
		r.stats.Unwind[unwind.NoMap]++
		return
	}
	d.vals = d.vals[:0]
	for i := 0; i+8 <= len(rec.regs); i += 8 {
		d.vals = append(d.vals, le64(rec.regs[i:]))
	}
	regs := unwind.PerfRegs(rec.attr.regsUser, d.vals)
	if r.deferred && rec.regsABI == regsABI64 {
		// Unwound by a FrameCache, or by Keep if it cannot be.
		r.unw, r.unwPending = keptUnwind{regs: regs, abi64: true}, true
		r.unwStack, r.unwList, r.unwChunk = rec.stack, list, r.recChunk
		if ck := r.unwChunk; ck != nil {
			// Pinned before the queue releases the record: Keep
			// hands the pin to its batch, else unwindPending drops it.
			ck.pins.Add(1)
		}
		return
	}
	stop := d.unwind(list, &regs, rec.regsABI == regsABI64, rec.stack)
	r.stats.Unwind[stop]++
	d.chain = d.appendUser(d.chain)
	rec.callchain = d.chain
	rec.nchain = len(d.chain) / 8
}

// unwindPending unwinds the current sample's user stack now if it was
// left to a FrameCache (see unwindUser) but is not kept for one: its
// stop is counted all the same.
func (r *Reader) unwindPending() {
	if !r.unwPending {
		return
	}
	r.unwPending = false
	stop := r.dwarf.unwind(r.unwList, &r.unw.regs, r.unw.abi64, r.unwStack)
	r.stats.Unwind[stop]++
	if ck := r.unwChunk; ck != nil {
		ck.pins.Add(-1)
	}
	r.unwStack, r.unwList, r.unwChunk = nil, nil, nil
}

// keepUnwind keeps what unwinding the current sample's user stack needs
// in b, for sample h: its stack dump stays in the queue's chunk, which b
// pins until it is reset, rather than copied (kilobytes a sample).
func (r *Reader) keepUnwind(b *Samples, h *keptHead) {
	u := r.unw
	if ck := r.unwChunk; ck != nil {
		// The pin unwindUser took is the batch's now: one a chunk.
		if n := len(b.pinned); n == 0 || b.pinned[n-1] != ck {
			b.pinned = append(b.pinned, ck)
		} else {
			ck.pins.Add(-1)
		}
		u.stack = r.unwStack
	} else {
		// A record delivered from outside the queue: copied.
		if cap(b.stacks)-len(b.stacks) < len(r.unwStack) {
			b.stacks = make([]byte, 0, max(len(r.unwStack), 64<<10))
		}
		start := len(b.stacks)
		b.stacks = append(b.stacks, r.unwStack...)
		u.stack = b.stacks[start:len(b.stacks):len(b.stacks)]
	}
	b.stackBytes += len(u.stack)
	b.unws = append(b.unws, u)
	h.unwind = int32(len(b.unws))
	r.unwPending, r.unwStack, r.unwList, r.unwChunk = false, nil, nil, nil
}

// unwind unwinds a user stack into d.pcs from regs and the stack dump,
// with the maps of list, and returns where it stopped.
func (d *dwarfUnwinder) unwind(list []mapping, regs *unwind.Regs, abi64 bool, stack []byte) unwind.Stop {
	d.space = space{d: d, list: list}
	var stop unwind.Stop
	if abi64 {
		d.pcs, stop = d.u.Unwind(regs, stack, &d.space, d.pcs[:0])
	} else {
		// A 32-bit process: its first frame only.
		d.pcs, stop = d.pcs[:0], unwind.NoRegs
		if regs.Valid&(1<<16) != 0 {
			d.pcs = append(d.pcs, regs.V[16])
		}
	}
	return stop
}

// appendUserIPs appends to ips the frames of d.pcs as the user part of a
// call chain: a PERF_CONTEXT_USER marker, then the addresses (unwoundEnd
// for one a chain cannot hold); nothing when no frame was unwound.
func (d *dwarfUnwinder) appendUserIPs(ips []uint64) []uint64 {
	if len(d.pcs) == 0 {
		return ips
	}
	ips = append(ips, contextUser)
	for _, pc := range d.pcs {
		if pc >= contextMax {
			pc = unwoundEnd
		}
		ips = append(ips, pc)
	}
	return ips
}

// appendUser is appendUserIPs for a call chain as recorded (bytes).
func (d *dwarfUnwinder) appendUser(chain []byte) []byte {
	d.user = d.appendUserIPs(d.user[:0])
	for _, ip := range d.user {
		chain = binary.LittleEndian.AppendUint64(chain, ip)
	}
	return chain
}

// unwindBatch unwinds the user stacks b keeps (see keptUnwind), once:
// their frames follow each sample's kernel part in b.ips, as if
// recorded, and their stops are counted with the Reader's.
func (c *FrameCache) unwindBatch(b *Samples) {
	if len(b.unws) == 0 || b.unwound {
		return
	}
	b.unwound = true
	d := c.dw
	if d == nil {
		d = newDWARFUnwinder(c.sh.cfi)
		c.dw = d
	}
	var stops UnwindStops
	ips := b.spareIPs[:0]
	for i := range b.heads {
		h := &b.heads[i]
		start := len(ips)
		ips = append(ips, b.ips[h.chain[0]:h.chain[1]]...)
		if h.unwind > 0 {
			u := &b.unws[h.unwind-1]
			stops[d.unwind(h.user, &u.regs, u.abi64, u.stack)]++
			ips = d.appendUserIPs(ips)
		}
		h.chain = [2]uint32{uint32(start), uint32(len(ips))}
	}
	b.spareIPs, b.ips = b.ips, ips
	for s, n := range stops {
		if n > 0 {
			c.sh.cfi.stops[s].Add(n)
		}
	}
}
