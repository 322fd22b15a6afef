package perfdata

import (
	"cmp"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// This file keeps what perf's struct machine keeps for perf script: the
// threads with their comm, the memory maps of each process, the kernel's
// maps and the DSOs, updated by the COMM, FORK, EXIT, MMAP, MMAP2 and
// KSYMBOL records in time order (tools/perf/util/machine.c, thread.c,
// map.c, maps.c of perf 6.1).

// dsoKind says how a DSO's symbols are found.
type dsoKind uint8

const (
	dsoUser   dsoKind = iota // an ELF file: symbols by path and build-id
	dsoKernel                // [kernel.kallsyms]
	dsoModule                // a kernel module
	dsoVDSO                  // [vdso]
	dsoJIT                   // /tmp/perf-PID.map
	dsoKsym                  // a KSYMBOL (BPF program, trampoline): its own name
	dsoNone                  // anonymous or special memory: no symbols
)

// dso is a shared object as perf names it.
type dso struct {
	// key is a number of its own, never another DSO's, not even a
	// changed copy's (machine.newKey): the key of its locations in the
	// location indexes (see locKey), which hold no pointer.
	key     uint32
	name    []byte // as perf script prints it between parentheses
	path    string
	buildID []byte
	hexID   string // buildID in hexadecimal, as the Symbolizer takes it
	kind    dsoKind
	pid     int               // dsoJIT: the process whose perf map it is
	ksyms   []ksym            // dsoKsym: symbols from KSYMBOL records
	locs    map[uint64]uint32 // locations by address within the DSO
	// jitEnd, for dsoJIT, is the end of the span of time whose JIT code
	// this DSO names (see jitSpans): its addresses are looked up at
	// jitEnd-1. 0 when it has no end: the code loaded last of all.
	jitEnd uint64
}

type ksym struct {
	start, end uint64 // addresses relative to the map start
	name       string
}

// mapping is one memory map (perf's struct map).
type mapping struct {
	start, end, pgoff uint64
	dso               *dso
	identity          bool // addresses are not relative to the file (anon, JIT)
}

// mapIP is perf's map->map_ip: the address within the DSO.
func (m *mapping) mapIP(ip uint64) uint64 {
	if m.identity {
		return ip
	}
	return ip - m.start + m.pgoff
}

// maps is a set of non-overlapping maps sorted by start (perf's struct
// maps). Its list is copied on write once handed out: a list a sample
// keeps (Samples with deferred frames) never changes while the reader
// changes the maps.
type maps struct {
	list []mapping
	// shared says that list was handed out (see share): the next
	// change makes a new list. Until then changes are made in place,
	// for no one else holds the list: a process that maps many files
	// between two samples copies its list once, not once a map.
	shared bool
}

// share returns the list, which no change will touch from now on.
func (ms *maps) share() []mapping {
	ms.shared = true
	return ms.list
}

// find returns the map holding addr, or nil.
func (ms *maps) find(addr uint64) *mapping {
	l := ms.list
	i := sort.Search(len(l), func(i int) bool { return l[i].start > addr })
	if i == 0 {
		return nil
	}
	m := &l[i-1]
	if addr < m.end {
		return m
	}
	return nil
}

// insert adds nm, first cutting the maps it overlaps as perf's
// maps__fixup_overlappings does: the parts of an old map before and after
// the new one are kept.
func (ms *maps) insert(nm mapping) {
	if nm.end <= nm.start {
		nm.end = nm.start + 1
	}
	l := ms.list
	// First map that may overlap: the last one starting before nm.end
	// and ending after nm.start.
	i := sort.Search(len(l), func(i int) bool { return l[i].end > nm.start })
	j := i
	var keep [2]mapping
	nkeep := 0
	for j < len(l) && l[j].start < nm.end {
		old := l[j]
		if old.start < nm.start {
			before := old
			before.end = nm.start
			keep[nkeep] = before
			nkeep++
		}
		if old.end > nm.end {
			after := old
			after.start = nm.end
			if !old.identity {
				after.pgoff += nm.end - old.start
			}
			// Only the last overlapped map can reach past nm.end.
			if nkeep < 2 {
				keep[nkeep] = after
				nkeep++
			}
		}
		j++
	}
	repl := make([]mapping, 0, nkeep+1)
	for k := 0; k < nkeep; k++ {
		if keep[k].start < nm.start {
			repl = append(repl, keep[k])
		}
	}
	repl = append(repl, nm)
	for k := 0; k < nkeep; k++ {
		if keep[k].start >= nm.end {
			repl = append(repl, keep[k])
		}
	}
	if ms.shared {
		ms.list, ms.shared = slices.Concat(l[:i], repl, l[j:]), false
		return
	}
	ms.list = slices.Replace(l, i, j, repl...)
}

// thread is a thread as perf knows it.
type thread struct {
	pid, tid int32
	comm     []byte
	commSet  bool // a COMM record (or the parent's comm) named it
	maps     *maps
}

// machine is the state built from side-band records.
type machine struct {
	threads map[int32]*thread
	dsos    map[string]*dso
	kmaps   maps
	kernel  *dso
	ids     map[string]buildID
	// The kernel map is "loaded" (its range set from its symbols) on
	// the first lookup that finds it, as perf's map__load does.
	kloaded  bool
	kref     uint64 // the reference symbol's address at record time
	krefName string // its name ("_text")
	kdelta   uint64 // symbol table address - recorded address (KASLR)
	gen      uint64 // changes with the kernel's maps or a DSO (see world)
	lastKey  uint32 // the last dso.key given
	// jits are the processes whose JIT reused memory, by pid; jitNext
	// is the earliest end of their current spans (^0: none).
	jits    []*jitSpans
	jitNext uint64
}

// jitSpans cuts the time of a process whose JIT loaded code over code
// it loaded before (Symbolizer.JITReuses) into spans at the times it did
// so, as perf inject --jit's maps of each piece of code cut the process's
// maps: within a span, an address of its JIT code names one piece of
// code. The process's JIT DSO changes at each span's end for one of its
// own (machine.jitSwitch), with its own locations, which are looked up at
// the span's end less 1; outside these processes, and in their last span,
// JIT code is named by what was loaded last.
type jitSpans struct {
	pid    int32
	reuses []uint64 // ascending
	next   int      // reuses[next] ends the current span
}

// end returns the end of the current span, 0 for none.
func (j *jitSpans) end() uint64 {
	if j.next < len(j.reuses) {
		return j.reuses[j.next]
	}
	return 0
}

// jitName is the name of process pid's JIT DSO, as perf names it.
func jitName(pid int32) string { return "/tmp/perf-" + strconv.Itoa(int(pid)) + ".map" }

// addJIT cuts the time of process pid into spans at the times its JIT
// reused memory (see jitSpans); the first answer for a process stands.
func (m *machine) addJIT(pid int32, reuses []uint64) {
	// A span ending at 0 holds no sample.
	for len(reuses) > 0 && reuses[0] == 0 {
		reuses = reuses[1:]
	}
	if len(reuses) == 0 {
		return
	}
	i, found := m.jitOf(pid)
	if found {
		return
	}
	j := &jitSpans{pid: pid, reuses: reuses}
	m.jits = slices.Insert(m.jits, i, j)
	m.jitSwitch(pid, j.end())
	m.jitNext = min(m.jitNext, j.end())
}

// advanceJIT moves the processes of jits to their spans of time t, at or
// after m.jitNext.
func (m *machine) advanceJIT(t uint64) {
	m.jitNext = ^uint64(0)
	for _, j := range m.jits {
		if end := j.end(); end != 0 && end <= t {
			for j.next < len(j.reuses) && j.reuses[j.next] <= t {
				j.next++
			}
			m.jitSwitch(j.pid, j.end())
		}
		if end := j.end(); end != 0 {
			m.jitNext = min(m.jitNext, end)
		}
	}
}

// jitSwitch gives process pid a JIT DSO of its own for the span ending
// at end (see jitSpans): a copy of the current one, with a new key and no
// locations, in the maps of the process (its threads share them); and in
// the DSO table, for the maps to come. The copies the process's children
// hold keep their span, as perf inject --jit's maps are the process's
// only.
func (m *machine) jitSwitch(pid int32, end uint64) {
	name := jitName(pid)
	d := m.dsos[name]
	if d == nil || d.jitEnd == end {
		return
	}
	nd := *d
	nd.key = m.newKey()
	nd.jitEnd = end
	nd.locs = nil
	m.dsos[name] = &nd
	if th := m.threads[pid]; th != nil && th.maps != nil {
		th.maps.replaceDSO(d, &nd)
	}
}

// jitEnd returns the end of the current span of process pid (see
// jitSpans), 0 for none.
func (m *machine) jitEnd(pid int32) uint64 {
	i, found := m.jitOf(pid)
	if !found {
		return 0
	}
	return m.jits[i].end()
}

// jitOf returns the index of process pid in m.jits, or where it would
// be, and whether it is there.
func (m *machine) jitOf(pid int32) (int, bool) {
	return slices.BinarySearchFunc(m.jits, pid, func(j *jitSpans, pid int32) int { return cmp.Compare(j.pid, pid) })
}

// newKey returns a dso.key never given before. Keys stay below oddTag:
// two billion DSOs would take far more memory than there is first.
func (m *machine) newKey() uint32 {
	m.lastKey++
	return m.lastKey
}

// addBuildIDs records build-ids met in the data section, for the DSOs
// known and to come.
func (m *machine) addBuildIDs(ids map[string]buildID) {
	for name, b := range ids {
		m.ids[name] = b
		if name == "[kernel.kallsyms]" {
			if len(m.kernel.buildID) == 0 {
				m.changeDSO(m.kernel, func(d *dso) { d.setBuildID(b.id) })
			}
			continue
		}
		if d := m.dsos[name]; d != nil && len(d.buildID) == 0 {
			m.changeDSO(d, func(d *dso) { d.setBuildID(b.id) })
		}
	}
}

// changeDSO changes a DSO that maps may hold: on a copy, which replaces it
// in every list of maps (made anew: lists are copied on write), in the
// DSO table and as the kernel. The copy shares the DSO's locations, so the
// reader's frames are those it would find had d changed in place.
func (m *machine) changeDSO(d *dso, change func(*dso)) *dso {
	nd := *d
	nd.key = m.newKey()
	change(&nd)
	if d.locs == nil {
		// Share the table of locations from now on.
		d.locs = map[uint64]uint32{}
		nd.locs = d.locs
	}
	m.kmaps.replaceDSO(d, &nd)
	seen := map[*maps]bool{}
	for _, th := range m.threads {
		if th.maps != nil && !seen[th.maps] {
			seen[th.maps] = true
			th.maps.replaceDSO(d, &nd)
		}
	}
	for name, x := range m.dsos {
		if x == d {
			m.dsos[name] = &nd
		}
	}
	if m.kernel == d {
		m.kernel = &nd
	}
	m.gen++
	return &nd
}

// replaceDSO puts nd in place of d in the maps of ms, in a new list.
func (ms *maps) replaceDSO(d, nd *dso) {
	for i := range ms.list {
		if ms.list[i].dso == d {
			l := slices.Clone(ms.list)
			for j := i; j < len(l); j++ {
				if l[j].dso == d {
					l[j].dso = nd
				}
			}
			ms.list, ms.shared = l, false
			return
		}
	}
}

// setBuildID records a DSO's build-id.
func (d *dso) setBuildID(id []byte) {
	d.buildID = append([]byte(nil), id...)
	d.hexID = hexID(id)
}

func newMachine(ids map[string]buildID) *machine {
	m := &machine{threads: map[int32]*thread{}, dsos: map[string]*dso{}, ids: ids, jitNext: ^uint64(0)}
	m.kernel = &dso{key: m.newKey(), name: []byte("[kernel.kallsyms]"), path: "[kernel.kallsyms]", kind: dsoKernel}
	if b, ok := ids["[kernel.kallsyms]"]; ok {
		m.kernel.setBuildID(b.id)
	}
	// perf names the idle task (pid 0) swapper.
	idle := m.findnew(0, 0)
	idle.comm, idle.commSet = []byte("swapper"), true
	return m
}

// find returns the thread tid, or nil (perf's machine__find_thread).
func (m *machine) find(pid, tid int32) *thread {
	th := m.threads[tid]
	if th != nil {
		m.updatePID(th, pid)
	}
	return th
}

// findnew returns the thread tid, creating it (perf's
// machine__findnew_thread): a new thread is named ":tid" and shares the
// maps of its process leader.
func (m *machine) findnew(pid, tid int32) *thread {
	if th := m.find(pid, tid); th != nil {
		return th
	}
	th := &thread{pid: pid, tid: tid, comm: []byte(":" + strconv.Itoa(int(tid)))}
	m.threads[tid] = th
	if pid == tid || pid == -1 {
		th.maps = &maps{}
	} else {
		th.maps = m.findnew(pid, pid).maps
	}
	return th
}

// updatePID gives a thread created without a pid its process's maps.
func (m *machine) updatePID(th *thread, pid int32) {
	if pid == th.pid || pid == -1 || th.pid != -1 {
		return
	}
	th.pid = pid
	if th.pid == th.tid {
		return
	}
	th.maps = m.findnew(pid, pid).maps
}

// comm handles a COMM record.
func (m *machine) comm(pid, tid int32, name []byte) {
	th := m.findnew(pid, tid)
	th.comm = append([]byte(nil), name...)
	th.commSet = true
}

// fork handles a FORK record (perf's machine__process_fork_event).
func (m *machine) fork(pid, ppid, tid, ptid int32, noClone bool) {
	parent := m.findnew(ppid, ptid)
	if parent.pid != ppid {
		delete(m.threads, parent.tid)
		parent = m.findnew(ppid, ptid)
	}
	if m.threads[tid] != nil {
		delete(m.threads, tid)
	}
	th := m.findnew(pid, tid)
	if parent.commSet {
		th.comm = parent.comm
		th.commSet = true
	}
	if th.pid == parent.pid || th.maps == parent.maps {
		return
	}
	if !noClone {
		l := slices.Concat(th.maps.list, parent.maps.list)
		sort.SliceStable(l, func(i, j int) bool { return l[i].start < l[j].start })
		th.maps.list = l
	}
}

// PROT_EXEC and MAP_HUGETLB as MMAP2 records give them.
const (
	protExec   = 4
	mapHugeTLB = 0x40000
)

// mmap handles an MMAP or MMAP2 record of user space (perf's map__new and
// thread__insert_map).
func (m *machine) mmap(pid, tid int32, start, length, pgoff uint64, prot, flags uint32, filename string, bid []byte) {
	th := m.findnew(pid, tid)
	anon := filename == "//anon" || strings.HasPrefix(filename, "/dev/zero") ||
		strings.HasPrefix(filename, "/anon_hugepage") || flags&mapHugeTLB != 0
	noDSO := strings.HasPrefix(filename, "[stack") || strings.HasPrefix(filename, "/SYSV") || filename == "[heap]"
	vdso := filename == "[vdso]"
	kind := dsoUser
	name := filename
	switch {
	case (anon || noDSO) && prot&protExec != 0:
		name = jitName(pid)
		kind = dsoJIT
	case anon || noDSO:
		kind = dsoNone
	case vdso:
		pgoff = 0
		kind = dsoVDSO
	}
	_, known := m.dsos[name]
	d := m.dso(name, kind, bid)
	switch {
	case kind != dsoJIT || d.pid == int(pid):
	case known:
		d = m.changeDSO(d, func(d *dso) { d.pid, d.jitEnd = int(pid), m.jitEnd(pid) })
	default:
		d.pid, d.jitEnd = int(pid), m.jitEnd(pid) // new: no map holds it yet
	}
	th.maps.insert(mapping{start: start, end: start + length, pgoff: pgoff, dso: d, identity: anon || noDSO})
}

// dso finds or creates the DSO called name.
func (m *machine) dso(name string, kind dsoKind, bid []byte) *dso {
	d := m.dsos[name]
	if d == nil {
		d = &dso{key: m.newKey(), name: []byte(name), path: name, kind: kind}
		if b, ok := m.ids[name]; ok {
			d.setBuildID(b.id)
		}
		m.dsos[name] = d
		if len(bid) > 0 && len(d.buildID) == 0 {
			d.setBuildID(bid) // new: no map holds it yet
		}
		return d
	}
	if len(bid) > 0 && len(d.buildID) == 0 {
		d = m.changeDSO(d, func(d *dso) { d.setBuildID(bid) })
	}
	return d
}

// kernelMmap handles an MMAP or MMAP2 record of kernel space: the kernel
// itself ("[kernel.kallsyms]_text", pgoff holding _text's address) or a
// module.
func (m *machine) kernelMmap(start, length, pgoff uint64, filename string, bid []byte) {
	const kname = "[kernel.kallsyms]"
	isKernel := strings.HasPrefix(filename, kname[:len(kname)-1])
	switch {
	case filename != "" && (filename[0] == '/' || !isKernel && filename[0] == '['):
		name := filename
		if filename[0] == '/' {
			base := path.Base(filename)
			if i := strings.Index(base, ".ko"); i >= 0 {
				base = base[:i]
			}
			name = "[" + strings.ReplaceAll(base, "-", "_") + "]"
		}
		d := m.dsos[name]
		if d == nil {
			d = &dso{key: m.newKey(), name: []byte(name), path: filename, kind: dsoModule}
			if b, ok := m.ids[filename]; ok {
				d.setBuildID(b.id)
			} else if b, ok := m.ids[name]; ok {
				d.setBuildID(b.id)
			}
			m.dsos[name] = d
		}
		m.kmaps.insert(mapping{start: start, end: start + length, dso: d, identity: true})
		m.gen++
	case isKernel:
		if len(bid) > 0 && len(m.kernel.buildID) == 0 {
			m.changeDSO(m.kernel, func(d *dso) { d.setBuildID(bid) })
		}
		if pgoff != 0 && len(filename) > len(kname) {
			m.kref, m.krefName = pgoff, filename[len(kname):]
		}
		end := start + length
		if start == 0 && length == 0 {
			end = ^uint64(0)
		}
		// Replace the kernel map.
		var l []mapping
		for _, km := range m.kmaps.list {
			if km.dso != m.kernel {
				l = append(l, km)
			}
		}
		m.kmaps.list = l
		m.kmaps.insert(mapping{start: start, end: end, dso: m.kernel, identity: true})
		m.gen++
	}
}

// setKernelRange moves the kernel's map to [start, end), as perf's
// map__fixup_start and map__fixup_end do once its symbols are loaded.
func (m *machine) setKernelRange(start, end uint64) {
	l := slices.Clone(m.kmaps.list)
	for i := range l {
		if l[i].dso == m.kernel {
			l[i].start, l[i].end = start, end
		}
	}
	sort.SliceStable(l, func(i, j int) bool { return l[i].start < l[j].start })
	m.kmaps.list = l
	m.gen++
}

// ksymbol handles a KSYMBOL record (a BPF program or trampoline's code).
func (m *machine) ksymbol(addr uint64, length uint32, unregister bool, name string) {
	m.gen++
	if unregister {
		var l []mapping
		for _, km := range m.kmaps.list {
			if !(km.start == addr && km.dso.kind == dsoKsym) {
				l = append(l, km)
			}
		}
		m.kmaps.list = l
		return
	}
	km := m.kmaps.find(addr)
	if km == nil {
		d := &dso{key: m.newKey(), name: []byte(name), path: name, kind: dsoKsym}
		m.kmaps.insert(mapping{start: addr, end: addr + uint64(length), dso: d})
		km = m.kmaps.find(addr)
		if km == nil {
			return
		}
	}
	d := km.dso
	if d.kind != dsoKsym {
		return
	}
	off := km.mapIP(addr)
	nd := *d
	nd.key = m.newKey()
	nd.ksyms = append(slices.Clip(d.ksyms), ksym{start: off, end: off + uint64(length), name: name})
	nd.locs = nil
	l := slices.Clone(m.kmaps.list)
	for i := range l {
		if l[i].dso == d {
			l[i].dso = &nd
		}
	}
	m.kmaps.list = l
}
