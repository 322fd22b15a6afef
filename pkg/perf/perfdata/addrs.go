package perfdata

import "flamekit/pkg/folded"

// This file gives the addresses behind the frames of a sample with
// deferred frames (FrameCache.Chain), for profiles that keep them (pprof
// and OTLP locations with their mappings, for symbolization on a server).

// Addrs fills a with the addresses of the frames Chain gives for sample i
// of b, one AddrFrame per frame, in the same order (leaf first): the
// address as recorded, and the map it was found in (a.Maps, one entry
// per distinct map of the sample), or none. AddrFrame.Names is left 0.
func (c *FrameCache) Addrs(b *Samples, i int, a *folded.Addrs) {
	c.unwindBatch(b)
	h := &b.heads[i]
	ips := b.ips[h.chain[0]:h.chain[1]]
	a.Frames, a.Maps = a.Frames[:0], a.Maps[:0]
	pid := int32(-1)
	if h.flags&keptProcessID != 0 {
		pid = h.processID
	}
	if len(ips) == 0 {
		return
	}
	if h.ipMode != 0 {
		w := h.w
		if h.loadAt == 0 {
			w = h.w2
		}
		mode := uint16(h.ipMode & 7)
		addAddr(a, find(h, w, mode, ips[0]), ips[0], mode, pid)
		return
	}
	// As Chain walks the chain: context markers switch the maps, at most
	// maxStack addresses, the world of the kernel's maps from loadAt on.
	cpumode := uint16(cpumodeUser)
	n := 0
	for k, ip := range ips {
		if n >= maxStack {
			break
		}
		if ip >= contextMax {
			if m, ok := markerMode(ip); ok {
				cpumode = m
			}
			continue
		}
		n++
		w := h.w
		if h.loadAt >= 0 && k >= int(h.loadAt) {
			w = h.w2
		}
		addAddr(a, find(h, w, cpumode, ip), ip, cpumode, pid)
	}
}

// addAddr appends the frame of address ip, found in m (nil: in no map)
// among the maps of cpumode of process pid.
func addAddr(a *folded.Addrs, m *mapping, ip uint64, cpumode uint16, pid int32) {
	if m == nil {
		a.Frames = append(a.Frames, folded.AddrFrame{PC: ip, Map: -1})
		return
	}
	d := m.dso
	fm := folded.Mapping{PID: pid, Start: m.start, Limit: m.end, Offset: m.pgoff,
		File: d.path, BuildID: d.hexID, Symbolizable: d.kind == dsoUser && !m.identity}
	if cpumode != cpumodeUser {
		fm.PID = -1
	}
	j := -1
	for k := range a.Maps {
		if a.Maps[k] == fm {
			j = k
			break
		}
	}
	if j < 0 {
		j = len(a.Maps)
		a.Maps = append(a.Maps, fm)
	}
	a.Frames = append(a.Frames, folded.AddrFrame{PC: ip, Map: int32(j)})
}
