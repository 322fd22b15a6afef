package perfdata

import (
	"encoding/binary"
	"errors"
	"io"
	"strings"

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

// dwarfUnwinder unwinds the user stacks of a Reader's samples.
type dwarfUnwinder struct {
	u      unwind.Unwinder
	opener objectOpener
	tables map[string]*objectCFI // by path and build-id
	byDSO  map[*dso]*objectCFI   // the same, by DSO (a changed DSO is a copy)
	lowest map[lowestKey]uint64
	space  space
	spans  spanCache
	// hasObject's last list (its first map and length) and answer.
	objList *mapping
	objN    int
	objHas  bool
	pcs     []uint64
	chain   []byte // the rebuilt call chain of the current sample
	vals    []uint64
}

// objectCFI is the CFI of one object, or why there is none.
type objectCFI struct {
	t    *unwind.Table
	stop unwind.Stop
	file string // the file read
}

// space is the memory of the sampled process, for unwind.Unwinder.
type space struct {
	d  *dwarfUnwinder
	ms *maps
}

func (s *space) Find(addr uint64) (*unwind.Table, uint64, unwind.Stop) {
	if len(s.ms.list) == 0 {
		return nil, 0, unwind.NoMap
	}
	c := &s.d.spans
	if c.list != &s.ms.list[0] || c.n != len(s.ms.list) {
		*c = spanCache{list: &s.ms.list[0], n: len(s.ms.list)}
	}
	for i := range c.ents {
		if e := &c.ents[i]; addr-e.start < e.end-e.start {
			return e.t, addr + e.delta, e.stop
		}
	}
	m := s.ms.find(addr)
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
	return o.t, o.t.BaseAddr() - s.d.lowestStart(s.ms, d), 0
}

// hasObject reports whether a list of maps maps any object (a file or
// the vdso), remembered for the last list asked about.
func (d *dwarfUnwinder) hasObject(ms *maps) bool {
	if len(ms.list) == 0 {
		return false
	}
	if &ms.list[0] == d.objList && len(ms.list) == d.objN {
		return d.objHas
	}
	d.objList, d.objN, d.objHas = &ms.list[0], len(ms.list), false
	for i := range ms.list {
		if k := ms.list[i].dso.kind; k == dsoUser || k == dsoVDSO {
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
func (d *dwarfUnwinder) lowestStart(ms *maps, ds *dso) uint64 {
	k := lowestKey{&ms.list[0], len(ms.list), ds}
	if v, ok := d.lowest[k]; ok {
		return v
	}
	low := ^uint64(0)
	for i := range ms.list {
		m := &ms.list[i]
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
	key := ds.path + "\x00" + ds.hexID
	if o, ok := d.tables[key]; ok {
		d.byDSO[ds] = o
		return o
	}
	defer func() { d.byDSO[ds] = d.tables[key] }()
	o := &objectCFI{stop: unwind.NoObject}
	if d.opener != nil {
		path := ds.path
		if ds.kind == dsoVDSO {
			path = "[vdso]"
		}
		if f, closeFn, name, err := d.opener.ObjectFile(path, ds.hexID); err == nil {
			if t, err := unwind.Load(name, f, unwind.Options{}); err == nil {
				o.t, o.stop, o.file = t, 0, name
			}
			closeFn()
		} else if errors.Is(err, symbols.ErrBuildIDMismatch) {
			o.stop = unwind.Replaced
		}
	}
	d.tables[key] = o
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

// unwindUser replaces the call chain of a --call-graph dwarf sample by
// its kernel part followed by the user frames unwound from its registers
// and stack dump, and counts where the unwind stopped.
func (r *Reader) unwindUser(rec *sampleRec) {
	d := r.dwarf
	if d == nil {
		d = &dwarfUnwinder{tables: map[string]*objectCFI{}, byDSO: map[*dso]*objectCFI{}, lowest: map[lowestKey]uint64{}}
		d.opener, _ = r.opt.Symbolizer.(objectOpener)
		d.u.MaxDepth = maxStack
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
	th.maps.share()
	if !d.hasObject(th.maps) {
		// A process whose objects perf never saw mapped (their MMAP
		// records lost; anonymous maps only): perf registers a
		// process's unwinder with its first map of an object, so such
		// a sample has no user part at all, not even its ip.
		r.stats.Unwind[unwind.NoMap]++
		return
	}
	d.space = space{d: d, ms: th.maps}
	d.vals = d.vals[:0]
	for i := 0; i+8 <= len(rec.regs); i += 8 {
		d.vals = append(d.vals, le64(rec.regs[i:]))
	}
	regs := unwind.PerfRegs(rec.attr.regsUser, d.vals)
	var stop unwind.Stop
	if rec.regsABI == regsABI64 {
		d.pcs, stop = d.u.Unwind(&regs, rec.stack, &d.space, d.pcs[:0])
	} else {
		// A 32-bit process: its first frame only.
		d.pcs, stop = d.pcs[:0], unwind.NoRegs
		if regs.Valid&(1<<16) != 0 {
			d.pcs = append(d.pcs, regs.V[16])
		}
	}
	r.stats.Unwind[stop]++
	if len(d.pcs) > 0 {
		d.chain = binary.LittleEndian.AppendUint64(d.chain, contextUser)
		for _, pc := range d.pcs {
			if pc >= contextMax {
				pc = unwoundEnd
			}
			d.chain = binary.LittleEndian.AppendUint64(d.chain, pc)
		}
	}
	rec.callchain = d.chain
	rec.nchain = len(d.chain) / 8
}
