// Package jitdump reads the jit-PID.dump files that JIT compilers write
// for perf (V8's --perf-prof, the JVM agents, .NET's
// DOTNET_PerfMapEnabled): the code each one loaded, where and when, so
// that the frames of JIT-compiled code get names without `perf inject
// --jit`.
//
// The format is perf's tools/perf/Documentation/jitdump-specification.txt:
// a 40-byte header starting with the magic 0x4A695444 ("JiTD") in the
// writer's byte order (read as 0x4454694A, the file is of the other
// order), then records, each a 16-byte prefix (id, total size,
// timestamp) and a body: CODE_LOAD (0), CODE_MOVE (1), CODE_DEBUG_INFO
// (2), CODE_CLOSE (3), CODE_UNWINDING_INFO (4). Records of unknown ids
// are skipped by their size, as perf does. A file cut short (the JIT
// still writing, or killed) gives every complete record before the cut.
package jitdump

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
)

// Magic is the header's first word in the writer's byte order.
const Magic = 0x4A695444

// Record ids.
const (
	CodeLoad          = 0
	CodeMove          = 1
	CodeDebugInfo     = 2
	CodeClose         = 3
	CodeUnwindingInfo = 4
)

// FlagArchTimestamp in Header.Flags: timestamps are the CPU's counter
// (TSC), not the CLOCK_MONOTONIC perf record -k mono samples with.
const FlagArchTimestamp = 1

const (
	headerSize = 40
	prefixSize = 16
	loadFixed  = 40 // pid, tid, vma, code_addr, code_size, code_index
	moveFixed  = 48 // pid, tid, vma, old, new, size, index
	maxRecord  = 1 << 30
	maxName    = 1 << 16
)

// Header is the file's header.
type Header struct {
	Version   uint32
	ElfMach   uint32
	PID       uint32
	Timestamp uint64
	Flags     uint64
	// Order is the byte order of the file.
	Order binary.ByteOrder
}

// Region is one piece of JIT code: loaded at Start (or moved there) at
// Time, Size bytes long, named Name.
type Region struct {
	Start, Size uint64
	Name        string
	// Time is the record's timestamp, in the clock of Header.Flags.
	Time uint64
	// Index is the JIT's code_index, unique per load.
	Index uint64
}

// Dump is what a jitdump file says.
type Dump struct {
	Header
	// Regions in the order they were loaded or moved.
	Regions []Region
	// Counts of records by kind, and of what was skipped.
	Loads, Moves, DebugInfos, Unwinds, Closes, Unknown int
	// Malformed counts records whose sizes contradict themselves: they
	// are skipped by their total size.
	Malformed int
	// Truncated says the file ends inside a record (at byte Offset);
	// everything before it was read.
	Truncated bool
	// Offset is the number of bytes read.
	Offset int64

	sorted []int    // Regions indices by Start
	maxEnd []uint64 // maxEnd[i]: largest end among sorted[:i+1]
}

// ErrNotJitdump is returned for a file without the magic.
var ErrNotJitdump = errors.New("not a jitdump file (no JiTD magic)")

// Read reads a jitdump file from r, streaming: code bytes are skipped,
// not kept. Its error is about the header only; a bad or cut record ends
// the reading with what came before it (Truncated, Malformed).
func Read(r io.Reader) (*Dump, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var h [headerSize]byte
	if n, err := io.ReadFull(br, h[:]); err != nil {
		if n >= 4 && !isMagic(h[:4]) {
			return nil, ErrNotJitdump
		}
		return nil, fmt.Errorf("jitdump header: %d of %d bytes: %w", n, headerSize, ErrShort)
	}
	d := &Dump{}
	switch {
	case binary.LittleEndian.Uint32(h[:]) == Magic:
		d.Order = binary.LittleEndian
	case binary.BigEndian.Uint32(h[:]) == Magic:
		d.Order = binary.BigEndian
	default:
		return nil, ErrNotJitdump
	}
	o := d.Order
	d.Version = o.Uint32(h[4:])
	total := o.Uint32(h[8:])
	d.ElfMach = o.Uint32(h[12:])
	d.PID = o.Uint32(h[20:])
	d.Timestamp = o.Uint64(h[24:])
	d.Flags = o.Uint64(h[32:])
	d.Offset = headerSize
	if total < headerSize || total > 1<<20 {
		return nil, fmt.Errorf("jitdump header: size %d, want at least %d", total, headerSize)
	}
	// A newer writer's longer header: skip what we do not know.
	if extra := int64(total) - headerSize; extra > 0 {
		n, _ := br.Discard(int(extra))
		d.Offset += int64(n)
		if int64(n) < extra {
			d.Truncated = true
			return d, nil
		}
	}
	d.records(br)
	d.index()
	return d, nil
}

// ErrShort is wrapped when the header is cut.
var ErrShort = errors.New("file too short")

func isMagic(b []byte) bool {
	return binary.LittleEndian.Uint32(b) == Magic || binary.BigEndian.Uint32(b) == Magic
}

// records reads records until the end or a cut.
func (d *Dump) records(br *bufio.Reader) {
	o := d.Order
	var pre [prefixSize]byte
	var body []byte
	for {
		n, err := io.ReadFull(br, pre[:])
		if err != nil {
			d.Truncated = n > 0
			return
		}
		id := o.Uint32(pre[:])
		size := int64(o.Uint32(pre[4:]))
		ts := o.Uint64(pre[8:])
		if size < prefixSize || size > maxRecord {
			// No way to find the next record.
			d.Malformed++
			return
		}
		rest := size - prefixSize
		var fixed int64
		switch id {
		case CodeLoad:
			fixed = loadFixed
		case CodeMove:
			fixed = moveFixed
		case CodeDebugInfo:
			fixed = 16 // code_addr, nr_entry
		case CodeUnwindingInfo:
			fixed = 24 // unwinding_size, eh_frame_hdr_size, mapped_size
		}
		if fixed > rest {
			d.Malformed++
			if !d.skip(br, rest) {
				return
			}
			d.Offset += prefixSize
			continue
		}
		if id == CodeLoad {
			// The name follows the fixed part; read up to the end of the
			// record less the code, which is skipped.
			body = grow(body, int(fixed))
			if !d.full(br, body[:fixed]) {
				return
			}
			codeSize := o.Uint64(body[24:])
			nameLen := rest - fixed - int64(min(codeSize, uint64(maxRecord)))
			if codeSize > uint64(rest-fixed) {
				d.Malformed++
				if !d.skip(br, rest-fixed) {
					return
				}
				d.Offset += prefixSize
				continue
			}
			// Names are short; a longer one is cut, so that a bad size
			// cannot make us allocate what the file does not hold.
			keep := min(nameLen, maxName)
			name := make([]byte, keep)
			if !d.full(br, name) || !d.skip(br, nameLen-keep+int64(codeSize)) {
				return
			}
			d.Offset += prefixSize
			d.Loads++
			d.Regions = append(d.Regions, Region{
				Start: o.Uint64(body[16:]), // code_addr
				Size:  codeSize,
				Name:  cString(name),
				Time:  ts,
				Index: o.Uint64(body[32:]),
			})
			continue
		}
		body = grow(body, int(min(rest, 64)))
		if !d.full(br, body[:fixed]) || !d.skip(br, rest-fixed) {
			return
		}
		d.Offset += prefixSize
		switch id {
		case CodeMove:
			d.Moves++
			d.move(body, ts)
		case CodeDebugInfo:
			d.DebugInfos++
		case CodeUnwindingInfo:
			d.Unwinds++
		case CodeClose:
			d.Closes++
		default:
			d.Unknown++
		}
	}
}

// move adds the region a CODE_MOVE record puts at its new address, named
// as the load of the same code_index (perf inject names it so).
func (d *Dump) move(body []byte, ts uint64) {
	o := d.Order
	newAddr := o.Uint64(body[24:])
	size, index := o.Uint64(body[32:]), o.Uint64(body[40:])
	name := ""
	for i := len(d.Regions) - 1; i >= 0; i-- {
		if d.Regions[i].Index == index {
			name = d.Regions[i].Name
			break
		}
	}
	d.Regions = append(d.Regions, Region{Start: newAddr, Size: size, Name: name, Time: ts, Index: index})
}

// full reads len(b) bytes, marking a cut.
func (d *Dump) full(br *bufio.Reader, b []byte) bool {
	n, err := io.ReadFull(br, b)
	d.Offset += int64(n)
	if err != nil {
		d.Truncated = true
		return false
	}
	return true
}

// skip discards n bytes, marking a cut.
func (d *Dump) skip(br *bufio.Reader, n int64) bool {
	for n > 0 {
		step := int(min(n, 1<<20))
		got, err := br.Discard(step)
		d.Offset += int64(got)
		n -= int64(got)
		if err != nil {
			d.Truncated = true
			return false
		}
	}
	return true
}

func grow(b []byte, n int) []byte {
	if cap(b) < n {
		return make([]byte, n)
	}
	return b[:n]
}

func cString(b []byte) string {
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}

// index sorts the regions by start for Lookup.
func (d *Dump) index() {
	d.sorted = make([]int, len(d.Regions))
	for i := range d.sorted {
		d.sorted[i] = i
	}
	sort.SliceStable(d.sorted, func(a, b int) bool {
		return d.Regions[d.sorted[a]].Start < d.Regions[d.sorted[b]].Start
	})
	d.maxEnd = make([]uint64, len(d.sorted))
	var m uint64
	for i, k := range d.sorted {
		m = max(m, d.Regions[k].end())
		d.maxEnd[i] = m
	}
}

// Lookup returns the region holding addr at time t: of the regions
// covering addr, the one loaded last at or before t (JITs reuse memory),
// else, when all came later (a clock mismatch), the earliest. With
// t = ^uint64(0) it is the last one loaded.
func (d *Dump) Lookup(addr, t uint64) (Region, bool) {
	i := sort.Search(len(d.sorted), func(i int) bool { return d.Regions[d.sorted[i]].Start > addr })
	best, bestEarly := -1, -1
	for i--; i >= 0 && d.maxEnd[i] > addr; i-- {
		k := d.sorted[i]
		r := d.Regions[k]
		if addr-r.Start >= r.Size {
			continue
		}
		if r.Time <= t {
			if best < 0 || k > best {
				best = k
			}
		} else if bestEarly < 0 || r.Time < d.Regions[bestEarly].Time || r.Time == d.Regions[bestEarly].Time && k < bestEarly {
			bestEarly = k
		}
	}
	if best < 0 {
		best = bestEarly
	}
	if best < 0 {
		return Region{}, false
	}
	return d.Regions[best], true
}

// Reuses returns the times at which code was loaded (or moved) over code
// loaded at or before that time: for every pair of regions that share an
// address, the later one's time. They are ascending and distinct. Between
// two of them the JIT only loaded code into memory it had not used, so
// that Lookup(addr, t) is the same for every t from one reuse time up to
// the next (before the first, after the last): Lookup(addr, next-1)
// names the code at addr for every sample of that span, as perf inject
// --jit's maps do. None means Lookup(addr, ^uint64(0)) names every
// sample.
func (d *Dump) Reuses() []uint64 {
	// The regions cut the address space into cells, between the
	// distinct starts and ends; two regions share an address when they
	// share a cell. Loaded in time order, a region is a reuse when one
	// of its cells was covered before.
	var xs []uint64
	var order []int
	for k, r := range d.Regions {
		if r.Size == 0 {
			continue
		}
		xs = append(xs, r.Start, r.end())
		order = append(order, k)
	}
	if len(order) < 2 {
		return nil
	}
	slices.Sort(xs)
	xs = slices.Compact(xs)
	cell := func(a uint64) int { i, _ := slices.BinarySearch(xs, a); return i }
	sort.SliceStable(order, func(a, b int) bool { return d.Regions[order[a]].Time < d.Regions[order[b]].Time })
	covered := newCounts(len(xs))
	// next[c] leads to the first uncovered cell at or after c (a
	// disjoint-set forest), so that each cell is covered once.
	next := make([]int, len(xs)+1)
	for i := range next {
		next[i] = i
	}
	find := func(c int) int {
		for next[c] != c {
			next[c] = next[next[c]]
			c = next[c]
		}
		return c
	}
	var times []uint64
	for _, k := range order {
		r := d.Regions[k]
		lo, hi := cell(r.Start), cell(r.end())
		if covered.sum(hi)-covered.sum(lo) > 0 {
			times = append(times, r.Time)
		}
		for c := find(lo); c < hi; c = find(c + 1) {
			covered.add(c)
			next[c] = c + 1
		}
	}
	slices.Sort(times)
	return slices.Compact(times)
}

// end returns the end of r, the highest address when it would wrap.
func (r Region) end() uint64 {
	if e := r.Start + r.Size; e >= r.Start {
		return e
	}
	return ^uint64(0)
}

// counts is a Fenwick tree of counts per cell.
type counts []int

func newCounts(n int) counts { return make(counts, n+1) }

// add adds one to cell c.
func (f counts) add(c int) {
	for i := c + 1; i < len(f); i += i & -i {
		f[i]++
	}
}

// sum returns the count of cells before c.
func (f counts) sum(c int) int {
	s := 0
	for i := c; i > 0; i -= i & -i {
		s += f[i]
	}
	return s
}
