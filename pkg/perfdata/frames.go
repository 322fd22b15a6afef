package perfdata

import (
	"strconv"

	"flamekit/pkg/symbols"

	"flamekit/pkg/sample"
)

// Symbolizer finds the symbols perf script prints for addresses.
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
	// PerfMap resolves an absolute address through /tmp/perf-PID.map.
	PerfMap(pid int, addr uint64) (symbols.Symbol, bool)
	// KernelSymbols returns the kernel's symbols, nil when not found.
	KernelSymbols(buildID string) *symbols.Kernel
	// KernelSymbolAddr returns the address the kernel's symbol table
	// gives name (perf's reference symbol for KASLR).
	KernelSymbolAddr(buildID, name string) (uint64, bool)
	// Missing lists the objects whose symbols could not be loaded.
	Missing() []symbols.Missing
}

var _ Symbolizer = (*symbols.Resolver)(nil)

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

// symCache is a direct-mapped cache in front of the DSOs' symbol maps:
// most frames repeat, and one probe is cheaper than a map lookup. Its size
// is a power of two, larger for larger files.
type symCache struct {
	shift   uint
	entries []symEntry
}

type symEntry struct {
	d    *dso
	addr uint64
	sym  []byte
}

func newSymCache(dataSize int64) *symCache {
	bits := uint(10)
	for bits < 16 && int64(1)<<(bits+7) < dataSize {
		bits++
	}
	return &symCache{shift: 64 - bits, entries: make([]symEntry, 1<<bits)}
}

func (c *symCache) entry(d *dso, addr uint64) *symEntry {
	h := (addr ^ uint64(d.id)<<40) * 0x9e3779b97f4a7c15
	return &c.entries[h>>c.shift]
}

func (c *symCache) clear() { clear(c.entries) }

// addFrame appends a frame whose address is formatted into r.buf.
func (r *Reader) addFrame(frames []sample.Frame, addr uint64, sym, dsoName []byte) []sample.Frame {
	a0 := len(r.buf)
	r.buf = appendHex(r.buf, addr)
	r.addrs = append(r.addrs, a0, len(r.buf))
	return append(frames, sample.Frame{Symbol: sym, DSO: dsoName})
}

// chainFrames appends the frames of a sample's call chain, leaf first,
// as perf's thread__resolve_callchain_sample builds them: context markers
// switch between kernel and user space, a marker perf does not know
// drops the whole chain, and at most maxStack addresses are kept.
func (r *Reader) chainFrames(frames []sample.Frame, th *thread, rec *sampleRec) []sample.Frame {
	cpumode := uint16(cpumodeUser)
	n := 0
	for i := 0; i < rec.nchain && n < maxStack; i++ {
		ip := rec.chainAt(i)
		if ip >= contextMax {
			switch ip {
			case contextHV:
				cpumode = cpumodeHV
			case contextKernel:
				cpumode = cpumodeKernel
			case contextUser:
				cpumode = cpumodeUser
			default:
				r.stats.DroppedChains++
				r.addrs = r.addrs[:0]
				return frames[:0]
			}
			continue
		}
		n++
		m := r.findMap(th, cpumode, ip)
		if m == nil {
			frames = r.addFrame(frames, ip, unknownBytes, unknownBytes)
			continue
		}
		addr := m.mapIP(ip)
		printed := addr
		if m.dso.kind == dsoKernel || m.dso.kind == dsoModule || m.dso.kind == dsoKsym {
			printed = ip
		}
		frames = r.addFrame(frames, printed, r.symbol(m, addr), m.dso.name)
	}
	return frames
}

// ipFrame appends the one frame of a sample without a call chain: perf
// prints the sample's address as recorded (not relative to the file).
func (r *Reader) ipFrame(frames []sample.Frame, th *thread, rec *sampleRec) []sample.Frame {
	m := r.findMap(th, rec.cpumode, rec.ip)
	if m == nil {
		return r.addFrame(frames, rec.ip, unknownBytes, unknownBytes)
	}
	return r.addFrame(frames, rec.ip, r.symbol(m, m.mapIP(rec.ip)), m.dso.name)
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

// symbol returns the symbol text for addr (relative to m's DSO, or the
// absolute address for identity maps), cached per DSO.
func (r *Reader) symbol(m *mapping, addr uint64) []byte {
	d := m.dso
	if d.kind == dsoNone {
		return unknownBytes
	}
	e := r.syms.entry(d, addr)
	if e.d == d && e.addr == addr {
		return e.sym
	}
	sym := r.lookup(m, addr)
	e.d, e.addr, e.sym = d, addr, sym
	return sym
}

// lookup is symbol without the direct-mapped cache.
func (r *Reader) lookup(m *mapping, addr uint64) []byte {
	d := m.dso
	if v, ok := d.syms[addr]; ok {
		if v == nil {
			return unknownBytes
		}
		return v
	}
	var v symResult
	switch d.kind {
	case dsoKsym:
		for _, k := range d.ksyms {
			if k.start <= addr && addr < k.end {
				v = appendSym(nil, k.name, addr-k.start)
				break
			}
		}
	default:
		if sy := r.opt.Symbolizer; sy != nil {
			var s symbols.Symbol
			var ok bool
			switch d.kind {
			case dsoKernel:
				s, ok = sy.Kernel(d.hexID, addr+r.m.kdelta)
			case dsoModule:
				s, ok = sy.Module(r.m.kernel.hexID, string(d.name), addr)
			case dsoJIT:
				s, ok = sy.PerfMap(d.pid, addr)
			default:
				s, ok = sy.DSO(d.path, d.hexID, addr)
			}
			if ok {
				v = appendSym(nil, s.Name, s.PrintedOffset(m.start))
			}
		}
	}
	if d.syms == nil {
		d.syms = map[uint64]symResult{}
	}
	d.syms[addr] = v
	if v == nil {
		return unknownBytes
	}
	return v
}

// appendSym appends a symbol as perf prints it: name+0xoffset.
func appendSym(dst []byte, name string, off uint64) []byte {
	dst = append(dst, name...)
	dst = append(dst, "+0x"...)
	return strconv.AppendUint(dst, off, 16)
}

// appendPayload appends a tracepoint's payload as perf script prints it:
// the print format evaluated, else the fields as name=value.
func (r *Reader) appendPayload(dst []byte, tp *tpFormat, raw []byte) []byte {
	if tp.prog != nil {
		start := len(dst)
		out, ok := tp.prog.run(dst, raw, &r.scratch, r.kernelFunc)
		if ok {
			return out
		}
		dst = out[:start]
	}
	return appendFields(dst, tp, raw)
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
	if &sym[0] == &unknownBytes[0] {
		return nil
	}
	return sym
}
