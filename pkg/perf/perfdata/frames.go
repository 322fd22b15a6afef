package perfdata

import (
	"bytes"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"flamekit/internal/base/hugepage"
	"flamekit/pkg/folded"
	"flamekit/pkg/perf/sample"
	"flamekit/pkg/perf/symbols"
)

// Symbolizer finds the symbols perf script prints for addresses. It must be
// safe for concurrent use: the goroutines that read a Reader's Samples look
// symbols up at once.
// *symbols.Resolver is the implementation; the Reader caches every answer
// per DSO and address. Build-ids are in lowercase hexadecimal, "" when the
// capture recorded none.
type Symbolizer interface {
	// Kernel resolves an absolute kernel address (not a module's).
	Kernel(buildID string, addr uint64) (symbols.Symbol, bool)
	// Module resolves an absolute address of a kernel module ("[ext4]").
	Module(buildID, module string, addr uint64) (symbols.Symbol, bool)
	// DSO resolves an address of an executable, a shared object or the
	// vdso ("[vdso]"), relative to the file as perf prints it: the
	// instruction's address minus the map's start plus its file offset.
	DSO(path, buildID string, addr uint64) (symbols.Symbol, bool)
	// DSOTable returns the symbols DSO uses (nil when it has none).
	DSOTable(path, buildID string) *symbols.Table
	// PerfMap resolves an absolute address of process pid's JIT code at
	// time t, through its jitdump (the code loaded there last at or
	// before t; ^uint64(0): last of all) or /tmp/perf-PID.map.
	PerfMap(pid int, addr, t uint64) (symbols.Symbol, bool)
	// JITReuses returns the times, in the jitdump's clock, at which
	// process pid's JIT loaded code over code it had loaded before,
	// ascending: between two of them, PerfMap gives an address the
	// answer it gives at the later one less 1. nil when it gives every
	// time the answer of ^uint64(0). The reader asks when the process
	// maps its jitdump, if the samples' clock is the jitdumps'
	// (CLOCK_MONOTONIC: perf record -k mono), as perf inject --jit needs.
	JITReuses(pid int) []uint64
	// KernelSymbols returns the kernel's symbols, nil when not found.
	KernelSymbols(buildID string) *symbols.Kernel
	// KernelSymbolAddr returns the address the kernel's symbol table
	// gives name (perf's reference symbol for KASLR).
	KernelSymbolAddr(buildID, name string) (uint64, bool)
	// Missing lists the objects whose symbols could not be loaded.
	Missing() []symbols.Missing
}

var _ Symbolizer = (*symbols.Resolver)(nil)

// ProcessMapper is a Symbolizer that wants to know which process mapped
// which file (every MMAP record of user space): to find the files of
// processes in containers through /proc/PID/root while they live, and
// the jit-PID.dump files JITs map.
type ProcessMapper interface {
	Mapped(pid int, path string)
}

var _ ProcessMapper = (*symbols.Resolver)(nil)

// mapped passes an MMAP record's process and file to the Symbolizer, if
// it is a ProcessMapper. For a process's jitdump (the file its JIT maps
// as a marker), it asks when the JIT reused memory, for the machine to
// name the JIT code of each span of time apart (see jitSpans).
func (r *Reader) mapped(pid int32, path string) {
	sy := r.opt.Symbolizer
	if pm, ok := sy.(ProcessMapper); ok {
		pm.Mapped(int(pid), path)
	}
	if sy != nil && r.jitClock && isJitdump(path) {
		r.m.addJIT(pid, sy.JITReuses(int(pid)))
	}
}

// isJitdump reports whether path names a jitdump file, jit-PID.dump.
func isJitdump(path string) bool {
	base := path[strings.LastIndexByte(path, '/')+1:]
	digits, ok1 := strings.CutPrefix(base, "jit-")
	digits, ok2 := strings.CutSuffix(digits, ".dump")
	return ok1 && ok2 && digits != "" && strings.Trim(digits, "0123456789") == ""
}

// appendHex appends v in lowercase hexadecimal without "0x".
func appendHex(dst []byte, v uint64) []byte {
	var b [16]byte
	i := len(b)
	for {
		i--
		b[i] = hexDigits[v&15]
		v >>= 4
		if v == 0 {
			break
		}
	}
	return append(dst, b[i:]...)
}

// location is one distinct frame of a capture: an address of a DSO, as
// perf script prints its frame line. Frames travel as location numbers
// (indexes into the Reader's locations): the symbol of an address is
// found, and its text formatted, once per capture, by whichever goroutine
// first needs it (see namer).
type location struct {
	// ready is 1 once f is complete (see namer.resolve). f is the frame
	// as Samples hand it over, next to ready: reading a frame touches
	// one or two cache lines.
	ready atomic.Uint32
	f     sample.Frame // Addr and DSO set when made; Symbol, ID when resolved

	printed uint64 // the address printed
	addr    uint64 // the address within the DSO (see locKey)

	// What the Symbolizer is asked, fixed when the location is made.
	kind   dsoKind
	pid    int32  // dsoJIT (next to kind: a location takes 3 cache lines)
	path   string // dsoUser, dsoVDSO: the file; dsoModule: its name
	hexID  string // dsoModule: the kernel's
	at     uint64 // dsoJIT: the time to look up at
	lookup uint64 // the address to look up
	start  uint64 // the map's start (for Symbol.PrintedOffset)
}

// namer resolves locations and gives their frame IDs, for the Reader and
// for the goroutines that read its Samples.
type namer struct {
	sy    Symbolizer
	mu    sync.Mutex
	names map[nameKey]uint32 // sample.Frame.ID by DSO and symbol name
	last  uint32             // the last ID given
	// unique gives every location an ID of its own (a FrameCache's
	// frames, whose user derives what it needs once per location).
	unique bool
	slab   byteSlab // the bytes of the locations it names; mu
}

// byteSlab hands out pieces of large byte buffers for the bytes of
// locations (their address and symbol as printed), which live as long as
// their reader: the garbage collector marks one object per slab rather
// than two per location. It is not safe for concurrent use.
type byteSlab struct{ buf []byte }

const slabSize = 64 << 10

// add returns a copy of b, in the slab.
func (s *byteSlab) add(b []byte) []byte {
	if len(s.buf)+len(b) > cap(s.buf) {
		s.buf = make([]byte, 0, max(slabSize, len(b)))
	}
	start := len(s.buf)
	s.buf = append(s.buf, b...)
	return s.buf[start:len(s.buf):len(s.buf)]
}

// hex returns v in hexadecimal (see appendHex), in the slab.
func (s *byteSlab) hex(v uint64) []byte {
	var b [16]byte
	return s.add(appendHex(b[:0], v))
}

// nameKey identifies a symbol name of a DSO, for sample.Frame.ID.
type nameKey struct {
	dso  string // the DSO as printed
	name string
}

// frame returns sample.Frame of l, resolving it first if it is not yet.
func (n *namer) frame(l *location) sample.Frame {
	if l.ready.Load() == 0 {
		n.resolve(l)
	}
	return l.f
}

// resolve finds the symbol of l and its frame ID, once.
func (n *namer) resolve(l *location) {
	// The lookup runs without the lock (the Symbolizer is safe for
	// concurrent use, and may take milliseconds to load a table): two
	// goroutines may look the same location up at once, and find the
	// same; the first to take the lock names it.
	var s symbols.Symbol
	ok := false
	if sy := n.sy; sy != nil {
		switch l.kind {
		case dsoKernel:
			s, ok = sy.Kernel(l.hexID, l.lookup)
		case dsoModule:
			s, ok = sy.Module(l.hexID, l.path, l.lookup)
		case dsoJIT:
			s, ok = sy.PerfMap(int(l.pid), l.lookup, l.at)
		case dsoUser, dsoVDSO:
			s, ok = sy.DSO(l.path, l.hexID, l.lookup)
		}
	}
	var buf [128]byte
	var text []byte
	if ok {
		text = appendSym(buf[:0], s.Name, s.PrintedOffset(l.start))
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if l.ready.Load() == 0 {
		if ok {
			n.name(l, n.slab.add(text), s.Name)
		} else {
			n.name(l, unknownBytes, "")
		}
	}
}

// name sets the symbol of l and its frame ID, and makes it ready. n.mu is
// held.
func (n *namer) name(l *location, sym []byte, name string) {
	l.f.Symbol = sym
	if n.unique || name == "" || bytes.Contains(sym, unknownBytes) {
		// Frames of [unknown] symbols differ by their address.
		n.last++
		l.f.ID = n.last
	} else {
		k := nameKey{string(l.f.DSO), name}
		id, found := n.names[k]
		if !found {
			if n.names == nil {
				n.names = map[nameKey]uint32{}
			}
			n.last++
			id = n.last
			n.names[k] = id
		}
		l.f.ID = id
	}
	l.ready.Store(1)
}

// locBits is the size of a block of the location table, as a power of two.
const locBits = 12

// locations is an append-only table of locations, in blocks that never
// move: a Samples batch holds a copy of the block list as it was when the
// batch was filled, so that another goroutine reads its locations while
// the Reader adds new ones.
type locations struct {
	blocks []*[1 << locBits]location
	n      uint32
}

func (t *locations) at(i uint32) *location {
	return &t.blocks[i>>locBits][i&(1<<locBits-1)]
}

// add adds a location and returns its number and itself, to be filled.
func (t *locations) add() (uint32, *location) {
	if t.n>>locBits == uint32(len(t.blocks)) {
		t.blocks = append(t.blocks, new([1 << locBits]location))
	}
	i := t.n
	t.n++
	return i, t.at(i)
}

// A location is found by its DSO, its address within the DSO and the
// address printed, which is the same but for the one frame of a sample
// without a call chain in a file's map. The indexes of locations (locCache,
// sharedIndex) hold no pointer, for the garbage collector has nothing to scan
// in them, and take 16 bytes an entry, four to a cache line: an entry is
// a tag, the DSO's key (dso.key), and an address, the DSO address; when
// the printed address differs, the tag has oddTag set and the address is
// the printed one, and the location's own addr tells the DSO address.
type locEntry struct {
	addr uint64
	tag  uint32 // 0: free
	loc  uint32
}

// oddTag marks the tag of a location whose printed address is not its DSO
// address; spareTag the keys of DSOs made without one (spareKeys), above
// it; noMapTag, spareTag itself, the tag of the addresses in no map
// (FrameCache.noMap).
const (
	oddTag   = 1 << 31
	spareTag = 1 << 30
	noMapTag = spareTag
)

// locKey returns the tag and address of the entries of a location (see
// locEntry); d.key is not 0 (see spareKeys).
func locKey(key uint32, addr, printed uint64) (uint32, uint64) {
	if addr == printed {
		return key, addr
	}
	return key | oddTag, printed
}

// locHash mixes a tag and an address.
func locHash(tag uint32, addr uint64) uint64 {
	return (addr ^ uint64(tag)<<40 ^ uint64(tag)>>24) * 0x9e3779b97f4a7c15
}

// spareKeys gives a key to a DSO that has none (made by hand rather than
// by a machine, which keys every DSO it makes): from the keys at or above
// spareTag, which machines never reach.
type spareKeys struct {
	mu   sync.Mutex
	keys map[*dso]uint32
}

// of returns d's key.
func (s *spareKeys) of(d *dso) uint32 {
	if d.key != 0 {
		return d.key
	}
	return s.give(d)
}

func (s *spareKeys) give(d *dso) uint32 {
	s.mu.Lock()
	defer s.mu.Unlock()
	k, ok := s.keys[d]
	if !ok {
		if s.keys == nil {
			s.keys = map[*dso]uint32{}
		}
		k = spareTag | uint32(len(s.keys)+1)
		s.keys[d] = k
	}
	return k
}

// locCache is a direct-mapped cache in front of the Reader's indexes of
// locations: most frames repeat, and one probe is cheaper than a lookup
// in maps. Its size is a power of two, larger for larger files, up to
// 2^17 entries (2 MB) on huge pages (hugepage.Table), so that a probe
// that misses the cache does not miss the TLB as well.
type locCache struct {
	shift   uint
	entries []locEntry
}

func newLocCache(dataSize int64) *locCache {
	bits := uint(10)
	for bits < 17 && int64(1)<<(bits+7) < dataSize {
		bits++
	}
	return &locCache{shift: 64 - bits, entries: hugepage.Table[locEntry](1 << bits)}
}

// get returns the location of the entry of tag and addr, if the cache
// holds one. For an odd tag, it may be another location of the same
// printed address: the caller checks the location's addr.
func (c *locCache) get(tag uint32, addr uint64) (uint32, bool) {
	e := &c.entries[locHash(tag, addr)>>c.shift]
	return e.loc, e.tag == tag && e.addr == addr
}

// put adds the entry of tag and addr, in place of the one in its slot.
func (c *locCache) put(tag uint32, addr uint64, loc uint32) {
	c.entries[locHash(tag, addr)>>c.shift] = locEntry{addr: addr, tag: tag, loc: loc}
}

func (c *locCache) clear() { clear(c.entries) }

// chainFrames appends the locations of a sample's call chain to r.chain,
// leaf first, as perf's thread__resolve_callchain_sample builds them:
// context markers switch between kernel and user space, a marker perf
// does not know drops the whole chain, and at most maxStack addresses are
// kept.
func (r *Reader) chainFrames(th *thread, rec *sampleRec) {
	cpumode := uint16(cpumodeUser)
	n := 0
	start := len(r.chain)
	for i := 0; i < rec.nchain && n < maxStack; i++ {
		ip := rec.chainAt(i)
		if ip >= contextMax {
			m, ok := markerMode(ip)
			if !ok {
				r.stats.DroppedChains++
				r.chain = r.chain[:start]
				return
			}
			cpumode = m
			continue
		}
		n++
		m := r.findMap(th, cpumode, ip)
		if m == nil {
			r.chain = append(r.chain, r.noMap(ip))
			continue
		}
		addr, printed := m.chainAddr(ip)
		r.chain = append(r.chain, r.location(m, addr, printed))
	}
}

// chainAddr returns the address of call chain entry ip in m (relative to
// m's DSO, or ip for identity maps) and the address perf prints for it:
// ip itself in the kernel's space, else the relative address.
func (m *mapping) chainAddr(ip uint64) (addr, printed uint64) {
	addr = m.mapIP(ip)
	if k := m.dso.kind; k == dsoKernel || k == dsoModule || k == dsoKsym {
		return addr, ip
	}
	return addr, addr
}

// ipFrame appends the location of the one frame of a sample without a
// call chain: perf prints the sample's address as recorded (not relative
// to the file).
func (r *Reader) ipFrame(th *thread, rec *sampleRec) {
	m := r.findMap(th, rec.cpumode, rec.ip)
	if m == nil {
		r.chain = append(r.chain, r.noMap(rec.ip))
		return
	}
	r.chain = append(r.chain, r.location(m, m.mapIP(rec.ip), rec.ip))
}

// findMap is perf's thread__find_map: kernel addresses in the kernel's
// maps, user addresses in the process's, nothing for the hypervisor.
func (r *Reader) findMap(th *thread, cpumode uint16, ip uint64) *mapping {
	switch cpumode {
	case cpumodeKernel:
		m := r.m.kmaps.find(ip)
		if m != nil && m.dso == r.m.kernel && !r.m.kloaded {
			r.loadKernel()
			m = r.m.kmaps.find(ip)
		}
		return m
	case cpumodeUser:
		return th.maps.find(ip)
	}
	return nil
}

// noMap returns the location of an address in no map: "[unknown]
// ([unknown])".
func (r *Reader) noMap(ip uint64) uint32 {
	if l, ok := r.noMaps[ip]; ok {
		return l
	}
	if r.noMaps == nil {
		r.noMaps = map[uint64]uint32{}
	}
	i, l := r.locs.add()
	l.fillNoMap(ip, r.namer)
	r.noMaps[ip] = i
	return i
}

// location returns the location of addr (relative to m's DSO, or the
// absolute address for identity maps), printed as printed: found once per
// DSO and address.
func (r *Reader) location(m *mapping, addr, printed uint64) uint32 {
	d := m.dso
	tag, key := locKey(r.keys.of(d), addr, printed)
	if r.cache == nil {
		// Made at first use: a Reader whose frames are deferred
		// (DeferFrames) never looks a location up itself.
		r.cache = newLocCache(r.fi.chainBytes())
	}
	if loc, ok := r.cache.get(tag, key); ok && (tag&oddTag == 0 || r.locs.at(loc).addr == addr) {
		return loc
	}
	loc, ok := d.locs[addr]
	switch {
	case !ok:
		loc = r.newLocation(m, addr, printed, true)
	case r.locs.at(loc).printed != printed:
		if l, found := r.odd[oddKey{d, addr, printed}]; found {
			loc = l
		} else {
			loc = r.newLocation(m, addr, printed, false)
		}
	}
	r.cache.put(tag, key, loc)
	return loc
}

// oddKey is a location whose DSO address another printed address had
// first (one DSO mapped twice in the kernel's space).
type oddKey struct {
	d             *dso
	addr, printed uint64
}

// newLocation adds the location of addr; first says whether it is the
// first of the DSO's address. Its symbol is found when first needed,
// but for the DSOs whose symbols change as the capture is read (BPF code
// of KSYMBOL records) and those without symbols.
func (r *Reader) newLocation(m *mapping, addr, printed uint64, first bool) uint32 {
	d := m.dso
	loc, l := r.locs.add()
	l.fill(m, addr, printed, r.m.kdelta, r.m.kernel.hexID, r.namer, &r.slab)
	if first {
		if d.locs == nil {
			d.locs = map[uint64]uint32{}
		}
		d.locs[addr] = loc
	} else {
		if r.odd == nil {
			r.odd = map[oddKey]uint32{}
		}
		r.odd[oddKey{d, addr, printed}] = loc
	}
	return loc
}

// symbol returns the symbol text for addr (relative to m's DSO, or the
// absolute address for identity maps).
func (r *Reader) symbol(m *mapping, addr uint64) []byte {
	return r.namer.frame(r.locs.at(r.location(m, addr, addr))).Symbol
}

// appendSym appends a symbol as perf prints it: name+0xoffset.
func appendSym(dst []byte, name string, off uint64) []byte {
	dst = append(dst, name...)
	dst = append(dst, "+0x"...)
	return strconv.AppendUint(dst, off, 16)
}

// appendFuncSyms appends the kernel symbols a tracepoint's payload prints
// for its %pS/%ps arguments (printProg.appendFuncSyms), resolved now, as
// the kernel's maps are now.
func (r *Reader) appendFuncSyms(dst []byte, tp *tpFormat, raw []byte) []byte {
	if tp.prog == nil || tp.prog.funcs == 0 {
		return dst
	}
	return tp.prog.appendFuncSyms(dst, raw, &r.scratch, r.kernelFunc)
}

// loadKernel sets the kernel map's range from the kernel's symbols, as
// perf's map__load does on the first lookup that finds the map: the map
// runs from the first symbol to the end of the last (addresses past
// _etext, such as .init.text, then resolve too), shifted back by the
// KASLR difference between the symbol table and the capture.
func (r *Reader) loadKernel() {
	mc := r.m
	mc.kloaded = true
	sy := r.opt.Symbolizer
	if sy == nil {
		return
	}
	k := sy.KernelSymbols(mc.kernel.hexID)
	if k == nil || k.Table.Len() == 0 {
		return
	}
	if mc.kref != 0 && mc.krefName != "" {
		if a, ok := sy.KernelSymbolAddr(mc.kernel.hexID, mc.krefName); ok {
			mc.kdelta = a - mc.kref
		}
	}
	lo, hi := k.Table.Range()
	lo -= mc.kdelta
	if hi != ^uint64(0) {
		hi -= mc.kdelta
	}
	mc.setKernelRange(lo, hi)
}

// kernelFunc resolves a kernel function address for a tracepoint's %pS,
// as perf's machine__resolve_kernel_addr does: through the kernel maps.
func (r *Reader) kernelFunc(addr uint64) []byte {
	m := r.findMap(nil, cpumodeKernel, addr)
	if m == nil {
		return nil
	}
	sym := r.symbol(m, m.mapIP(addr))
	if len(sym) == 0 || &sym[0] == &unknownBytes[0] {
		return nil
	}
	return sym
}

// Samples holds consecutive samples of a Reader in a compact form that
// outlives the Reader's next call: one goroutine fills it (Reader.Keep)
// while another, once handed the batch, reads the samples back (Sample)
// as the Reader reads on. A frame is kept as the number of its location,
// which the Reader resolved and formatted once for the capture.
type Samples struct {
	heads  []keptHead
	chain  []uint32 // the frames' locations
	ips    []uint64 // deferred frames: the call chains as recorded
	bytes  []byte   // the TIDs and tracepoint records
	blocks []*[1 << locBits]location
	namer  *namer
	// Deferred unwinding (see keptUnwind): the user stacks to unwind,
	// the chunks of the Reader's queue their dumps are in, the dumps
	// copied, their bytes, whether they were unwound, a spare for ips.
	unws       []keptUnwind
	pinned     []*chunk
	stacks     []byte
	stackBytes int
	unwound    bool
	spareIPs   []uint64
}

// keptHead is a sample but its frames.
type keptHead struct {
	comm, event   []byte
	time          folded.Time
	period        int64
	processID     int32
	cpu           int32
	flags         uint8
	tid, raw, aux [2]uint32 // offsets in Samples.bytes
	tp            *tpFormat // the format of raw, or nil
	chain         [2]uint32 // offsets in Samples.chain (Samples.ips when deferred)
	// Deferred frames (see Reader.DeferFrames): what resolving them
	// needs of the reader's state at the sample's time.
	deferred
	unwind int32 // 1 + the index of its user stack in Samples.unws; 0: none
}

const (
	keptTime = 1 << iota
	keptPeriod
	keptProcessID
)

// Keep appends the sample read by the last call to Next to b.
func (r *Reader) Keep(b *Samples) {
	s := &r.s
	h := keptHead{comm: s.Comm, event: s.Event, time: s.Time, period: s.Period, processID: s.ProcessID, cpu: int32(s.CPU)}
	if s.HasTime {
		h.flags |= keptTime
	}
	if s.HasPeriod {
		h.flags |= keptPeriod
	}
	if s.HasProcessID {
		h.flags |= keptProcessID
	}
	h.tid = b.add(s.TID)
	if s.Trace.Format != nil {
		h.tp, h.raw, h.aux = s.Trace.Format.(*tpFormat), b.add(s.Trace.Raw), b.add(s.Trace.Aux)
	}
	if r.deferred {
		h.chain[0] = uint32(len(b.ips))
		r.keepDeferred(b, &h)
		h.chain[1] = uint32(len(b.ips))
		if r.unwPending {
			if r.printsFrames && !r.dropped {
				r.keepUnwind(b, &h)
			} else {
				r.unwindPending() // counted all the same
			}
		}
		b.heads = append(b.heads, h)
		return
	}
	h.chain[0] = uint32(len(b.chain))
	b.chain = append(b.chain, r.chain...)
	h.chain[1] = uint32(len(b.chain))
	b.heads = append(b.heads, h)
	b.blocks, b.namer = r.locs.blocks, r.namer
}

func (b *Samples) add(p []byte) [2]uint32 {
	if p == nil {
		return [2]uint32{1, 0} // nil, not empty
	}
	start := len(b.bytes)
	b.bytes = append(b.bytes, p...)
	return [2]uint32{uint32(start), uint32(len(b.bytes))}
}

func (b *Samples) get(o [2]uint32) []byte {
	if o[0] > o[1] {
		return nil
	}
	return b.bytes[o[0]:o[1]:o[1]]
}

// Len returns the number of samples in b.
func (b *Samples) Len() int { return len(b.heads) }

// Reset empties b for reuse.
func (b *Samples) Reset() {
	clear(b.heads) // the maps they hold
	b.heads, b.chain, b.bytes, b.blocks, b.ips = b.heads[:0], b.chain[:0], b.bytes[:0], nil, b.ips[:0]
	clear(b.unws) // the dumps they hold
	b.unws, b.stacks, b.stackBytes, b.unwound = b.unws[:0], b.stacks[:0], 0, false
	for _, ck := range b.pinned {
		ck.pins.Add(-1)
	}
	clear(b.pinned)
	b.pinned = b.pinned[:0]
}

// StackBytes returns the bytes of the user stack dumps b keeps (see
// Reader.DeferFrames), which b holds in the Reader's memory until it is
// reset: a producer cuts batches of --call-graph dwarf samples by it, so
// that the batches in flight hold a few megabytes.
func (b *Samples) StackBytes() int { return b.stackBytes }

// Head fills s with sample i of b but its frames (s.Frames is emptied,
// its capacity kept): what Sample gives, without a frame copied. The
// frames are Chain(i), numbers for Frame. s is valid until b is reset.
func (b *Samples) Head(i int, s *sample.Sample) {
	h := &b.heads[i]
	frames := s.Frames[:0]
	*s = sample.Sample{
		Comm: h.comm, Event: h.event, TID: b.get(h.tid),
		Time: h.time, HasTime: h.flags&keptTime != 0,
		Period: h.period, HasPeriod: h.flags&keptPeriod != 0,
		ProcessID: h.processID, HasProcessID: h.flags&keptProcessID != 0,
		CPU:    int(h.cpu),
		Frames: frames,
	}
	if h.tp != nil {
		s.Trace = sample.Trace{Format: h.tp, Raw: b.get(h.raw), Aux: b.get(h.aux)}
	}
}

// Chain returns the frames of sample i, leaf first, as numbers of
// distinct frames of the capture (see Frame): equal numbers, equal
// frames. It is valid until b is reset.
func (b *Samples) Chain(i int) []uint32 {
	h := &b.heads[i]
	return b.chain[h.chain[0]:h.chain[1]:h.chain[1]]
}

// Frame returns the frame numbered n (a number of Chain), its symbol
// found on the first call for n. The frame is shared, not to be
// written, and stays valid as long as the Reader that made b is open; it
// may be called from several goroutines at once.
func (b *Samples) Frame(n uint32) *sample.Frame {
	loc := &b.blocks[n>>locBits][n&(1<<locBits-1)]
	if loc.ready.Load() == 0 {
		b.namer.resolve(loc)
	}
	return &loc.f
}

// Sample fills s with sample i of b, as Reader.Sample gave it (its frame
// slices are shared, not to be written), reusing the capacity of
// s.Frames. s is valid until b is reset.
func (b *Samples) Sample(i int, s *sample.Sample) {
	b.Head(i, s)
	frames := s.Frames
	h := &b.heads[i]
	chain := b.chain[h.chain[0]:h.chain[1]]
	if cap(frames) < len(chain) {
		frames = make([]sample.Frame, len(chain), 2*len(chain))
	}
	frames = frames[:len(chain)]
	for i, l := range chain {
		loc := &b.blocks[l>>locBits][l&(1<<locBits-1)]
		if loc.ready.Load() == 0 {
			b.namer.resolve(loc)
		}
		frames[i] = loc.f
	}
	s.Frames = frames
}

// markerMode reads a context marker of a call chain (an address at or
// above contextMax, which perf puts before the addresses of each part of
// a chain): the cpumode of the addresses that follow it, and false for a
// marker perf does not know.
func markerMode(ip uint64) (uint16, bool) {
	switch ip {
	case contextHV:
		return cpumodeHV, true
	case contextKernel:
		return cpumodeKernel, true
	case contextUser:
		return cpumodeUser, true
	}
	return 0, false
}

// fill describes a new location: addr (relative to m's DSO, or the
// absolute address for identity maps), printed as printed, on a kernel
// loaded kdelta from its symbols' addresses whose build-id is kernelID.
// The locations of kernel symbols perf recorded (and of no DSO) are
// named at once, by nm. Its bytes go in slab.
func (l *location) fill(m *mapping, addr, printed, kdelta uint64, kernelID string, nm *namer, slab *byteSlab) {
	d := m.dso
	l.f.Addr, l.f.DSO, l.printed, l.addr = slab.hex(printed), d.name, printed, addr
	l.kind, l.path, l.hexID, l.pid, l.lookup, l.start = d.kind, d.path, d.hexID, int32(d.pid), addr, m.start
	switch d.kind {
	case dsoJIT:
		l.at = d.jitEnd - 1 // ^0 for 0: the code loaded last
	case dsoKernel:
		l.lookup = addr + kdelta
	case dsoModule:
		l.path, l.hexID = string(d.name), kernelID
	case dsoKsym, dsoNone:
		sym, name := unknownBytes, ""
		for _, k := range d.ksyms {
			if k.start <= addr && addr < k.end {
				var buf [128]byte
				sym, name = slab.add(appendSym(buf[:0], k.name, addr-k.start)), k.name
				break
			}
		}
		nm.mu.Lock()
		nm.name(l, sym, name)
		nm.mu.Unlock()
	}
}

// fillNoMap describes the location of an address ip in no map:
// "[unknown] ([unknown])", named at once by nm.
func (l *location) fillNoMap(ip uint64, nm *namer) {
	if ip == unwoundEnd {
		ip = ^uint64(0)
	}
	l.f.DSO, l.printed, l.kind = unknownBytes, ip, dsoNone
	nm.mu.Lock()
	l.f.Addr = nm.slab.hex(ip)
	nm.name(l, unknownBytes, "")
	nm.mu.Unlock()
}
