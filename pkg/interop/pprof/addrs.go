package pprof

import (
	"bytes"
	"encoding/binary"
	"path"
	"sort"
	"strconv"
	"strings"

	"flamekit/pkg/folded"
)

// Addresses says whether a profile keeps the address of each frame
// (Options.Addresses): the location of a frame is then its instruction
// address in its mapping, as perf_data_converter writes it, so that go
// tool pprof (with the binaries at hand) or a server (Pyroscope, Parca,
// by build-id) can name it.
type Addresses uint8

// The ways a profile keeps addresses.
const (
	// NoAddresses: a location per distinct frame name, in no mapping.
	NoAddresses Addresses = iota
	// WithNames: a location per distinct address (and mapping), with
	// the names flamekit gave it as its lines.
	WithNames
	// AddressesOnly: the same without the lines of the addresses in
	// files a symbolizer can read (folded.Mapping.Symbolizable), whose
	// mappings say they have no functions yet: the reader names them.
	// The frames of the kernel, the vdso, JIT code and anonymous memory
	// keep their names (nothing could name them later), and so does the
	// process's root frame, which has no address.
	AddressesOnly
)

// Location is the location of a frame of a profile with addresses
// (Header.Locations).
type Location struct {
	// Mapping is 1 + the index of its mapping in Header.Mappings, 0 for
	// none (a frame without an address: the process's root frame, an
	// address in no map).
	Mapping uint32
	// Address is the instruction's address in its process (0: none).
	Address uint64
	// Funcs are its names, indexes in Header.Funcs, the innermost first
	// (pprof's order of a location's lines: inlined functions before the
	// function they are inlined into); none for an address left for the
	// reader to name (AddressesOnly).
	Funcs []uint32
}

// addrTable makes the locations of a profile with addresses: every
// record's stack becomes a stack of location numbers (written in base 36,
// ';' between them) that the Builder keeps as it keeps names, and that
// header turns back into locations. Memory grows with the distinct
// addresses (locations) and mappings, not with the samples.
type addrTable struct {
	mode Addresses
	maps map[folded.Mapping]uint32 // index in list
	list []Mapping                 // HasFunctions: its locations keep their names
	// symbolizable: list[i] is a file a symbolizer reads
	// (folded.Mapping.Symbolizable).
	symbolizable []bool
	locs         map[string]uint32 // key -> location number (1-based)
	locList      []Location
	funcs        map[string]uint32
	names        []string
	missing      int64 // records without addresses

	rec    folded.Record
	key    []byte
	stack  []byte
	frames [][]byte
	mapIdx []uint32
}

func newAddrTable(mode Addresses) *addrTable {
	return &addrTable{mode: mode, maps: map[folded.Mapping]uint32{}, locs: map[string]uint32{}, funcs: map[string]uint32{}}
}

// record returns rec with its stack made of location numbers.
func (t *addrTable) record(rec *folded.Record) *folded.Record {
	t.rec = *rec
	t.rec.Addrs = nil
	names := t.frames[:0]
	for s := rec.Stack; ; {
		i := bytes.IndexByte(s, ';')
		if i < 0 {
			names = append(names, s)
			break
		}
		names = append(names, s[:i])
		s = s[i+1:]
	}
	t.frames = names
	st := t.stack[:0]
	a := rec.Addrs
	total := 0
	if a != nil {
		for _, f := range a.Frames {
			total += int(f.Names)
		}
	}
	if a == nil || total > len(names) {
		t.missing++
		for _, n := range names {
			st = t.token(st, t.named(n))
		}
		t.stack = st
		t.rec.Stack = st[:max(len(st)-1, 0)]
		return &t.rec
	}
	t.mapIdx = t.mapIdx[:0]
	for i := range a.Maps {
		t.mapIdx = append(t.mapIdx, t.mapping(&a.Maps[i]))
	}
	root := len(names) - total
	for _, n := range names[:root] {
		st = t.token(st, t.named(n))
	}
	k := root
	for i := len(a.Frames) - 1; i >= 0; i-- {
		f := &a.Frames[i]
		if f.Names <= 0 {
			continue // a frame the naming rules drop is no frame
		}
		st = t.token(st, t.addressed(f, names[k:k+int(f.Names)]))
		k += int(f.Names)
	}
	t.stack = st
	t.rec.Stack = st[:max(len(st)-1, 0)]
	return &t.rec
}

// token appends location number id and ';'.
func (t *addrTable) token(dst []byte, id uint32) []byte {
	return append(strconv.AppendUint(dst, uint64(id), 36), ';')
}

// mapping returns the index of m in t.list, added if new.
func (t *addrTable) mapping(m *folded.Mapping) uint32 {
	if i, ok := t.maps[*m]; ok {
		return i
	}
	i := uint32(len(t.list))
	keep := t.mode == WithNames || !m.Symbolizable
	t.list = append(t.list, Mapping{File: m.File, BuildID: m.BuildID, Start: m.Start, Limit: m.Limit, Offset: m.Offset, HasFunctions: keep})
	t.symbolizable = append(t.symbolizable, m.Symbolizable)
	t.maps[*m] = i
	return i
}

// named returns the location of a frame without an address.
func (t *addrTable) named(name []byte) uint32 {
	k := append(append(t.key[:0], 'n'), name...)
	t.key = k
	if id, ok := t.locs[string(k)]; ok {
		return id
	}
	return t.add(k, Location{Funcs: []uint32{t.function(name)}})
}

// addressed returns the location of an address frame f, which gave the
// frames names (root side first).
func (t *addrTable) addressed(f *folded.AddrFrame, names [][]byte) uint32 {
	var mp uint32 // 1 + index, 0: none
	keep := true
	if f.Map >= 0 && int(f.Map) < len(t.mapIdx) {
		i := t.mapIdx[f.Map]
		mp, keep = i+1, t.list[i].HasFunctions
	}
	k := append(t.key[:0], 'a')
	k = binary.AppendUvarint(k, uint64(mp))
	k = binary.AppendUvarint(k, f.PC)
	if keep {
		for _, n := range names {
			k = append(k, 0)
			k = append(k, n...)
		}
	}
	t.key = k
	if id, ok := t.locs[string(k)]; ok {
		return id
	}
	loc := Location{Mapping: mp, Address: f.PC}
	if keep {
		loc.Funcs = make([]uint32, len(names))
		for j, n := range names {
			loc.Funcs[len(names)-1-j] = t.function(n)
		}
	}
	return t.add(k, loc)
}

func (t *addrTable) add(key []byte, loc Location) uint32 {
	t.locList = append(t.locList, loc)
	id := uint32(len(t.locList))
	t.locs[string(key)] = id
	return id
}

// function returns the index of a name in t.names.
func (t *addrTable) function(name []byte) uint32 {
	if i, ok := t.funcs[string(name)]; ok {
		return i
	}
	i := uint32(len(t.names))
	t.names = append(t.names, string(name))
	t.funcs[t.names[i]] = i
	return i
}

// header sets the locations of the frames (location numbers, as record
// wrote them) in h, with the functions and the mappings: those of the
// addresses, executables first (go tool pprof takes the first mapping
// for the main binary: `go tool pprof BINARY PROFILE` names it BINARY),
// then shared objects, then the files a symbolizer cannot read, each in
// the order met; then the files of extra (the build-id table) that no
// address is in.
func (t *addrTable) header(h *Header, extra []Mapping) {
	order := make([]int, len(t.list))
	for i := range order {
		order[i] = i
	}
	rank := func(i int) int {
		switch {
		case !t.symbolizable[i]:
			return 2
		case strings.Contains(path.Base(t.list[i].File), ".so"):
			return 1
		}
		return 0
	}
	sort.SliceStable(order, func(a, b int) bool { return rank(order[a]) < rank(order[b]) })
	newIdx := make([]uint32, len(t.list)) // old index -> new 1-based
	h.Mappings = make([]Mapping, 0, len(t.list)+len(extra))
	for n, i := range order {
		newIdx[i] = uint32(n + 1)
		h.Mappings = append(h.Mappings, t.list[i])
	}
	h.Locations = make([]Location, len(h.Frames))
	for i, f := range h.Frames {
		if id, err := strconv.ParseUint(f, 36, 32); err == nil && id >= 1 && int(id) <= len(t.locList) {
			loc := t.locList[id-1]
			if loc.Mapping != 0 {
				loc.Mapping = newIdx[loc.Mapping-1]
			}
			h.Locations[i] = loc
		}
	}
	h.Funcs = t.names
	files := map[string]bool{}
	for _, m := range t.list {
		files[m.File] = true
	}
	for _, m := range extra {
		if !files[m.File] {
			h.Mappings = append(h.Mappings, m)
		}
	}
}

// FrameName returns the name of frame f (a Sample's frame) as the stack
// has it: its outermost name for a location with several. A location
// without names (AddressesOnly) gives "".
func (h *Header) FrameName(f uint32) string {
	if h.Locations == nil {
		return h.Frames[f]
	}
	fs := h.Locations[f].Funcs
	if len(fs) == 0 {
		return ""
	}
	return h.Funcs[fs[len(fs)-1]]
}
