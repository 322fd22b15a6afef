package perfdata

import (
	"strconv"

	"flamekit/pkg/sample"
)

// Symbolizer resolves addresses to the symbol text perf script prints for
// them: the name with perf's "+0x…" offset ("do_syscall_64+0x71"), or ""
// when perf would print [unknown]. Implementations follow perf's symbol
// rules (see pkg/symbols); the Reader caches every answer per DSO and
// address, so a Symbolizer need not.
type Symbolizer interface {
	// Kernel resolves a kernel address; buildID is the kernel's
	// build-id from the capture (nil when it has none).
	Kernel(buildID []byte, addr uint64) string
	// DSO resolves an address of a shared object or executable: path as
	// recorded, its build-id from the capture (nil when it has none)
	// and the address relative to the file, as perf prints it (the
	// instruction's address minus the map's start plus the map's file
	// offset). The vdso comes as path "[vdso]".
	DSO(path string, buildID []byte, addr uint64) string
	// JIT resolves an absolute address through the perf map
	// /tmp/perf-PID.map of process pid.
	JIT(pid int, addr uint64) string
}

// appendHex appends v in lowercase hexadecimal without "0x".
func appendHex(dst []byte, v uint64) []byte { return strconv.AppendUint(dst, v, 16) }

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
				cpumode = 3
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
		return r.m.kmaps.find(ip)
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
	if v, ok := d.syms[addr]; ok {
		if v == nil {
			return unknownBytes
		}
		return v
	}
	var s string
	switch d.kind {
	case dsoKsym:
		for _, k := range d.ksyms {
			if k.start <= addr && addr < k.end {
				s = k.name + "+0x" + strconv.FormatUint(addr-k.start, 16)
				break
			}
		}
	default:
		if sy := r.opt.Symbolizer; sy != nil {
			switch d.kind {
			case dsoKernel, dsoModule:
				s = sy.Kernel(r.m.kernel.buildID, addr)
			case dsoJIT:
				s = sy.JIT(d.pid, addr)
			default:
				s = sy.DSO(d.path, d.buildID, addr)
			}
		}
	}
	if d.syms == nil {
		d.syms = map[uint64]symResult{}
	}
	if s == "" {
		d.syms[addr] = nil
		return unknownBytes
	}
	v := symResult(s)
	d.syms[addr] = v
	return v
}

// appendPayload appends a tracepoint's payload as perf script prints it:
// the print format evaluated, else the fields as name=value.
func (r *Reader) appendPayload(dst []byte, tp *tpFormat, raw []byte) []byte {
	if tp.prog != nil {
		start := len(dst)
		out, ok := tp.prog.run(dst, raw, &r.scratch)
		if ok {
			return out
		}
		dst = out[:start]
	}
	return appendFields(dst, tp, raw)
}
