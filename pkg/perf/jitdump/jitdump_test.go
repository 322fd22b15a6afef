package jitdump

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"testing"
)

// writer builds jitdump files as a JIT writes them.
type writer struct {
	o   binary.ByteOrder
	buf bytes.Buffer
}

func newWriter(o binary.ByteOrder, pid uint32) *writer {
	w := &writer{o: o}
	w.u32(Magic)
	w.u32(1)
	w.u32(headerSize)
	w.u32(62) // EM_X86_64
	w.u32(0)
	w.u32(pid)
	w.u64(1000)
	w.u64(0)
	return w
}

func (w *writer) u32(v uint32) { w.buf.Write(w.o.(binary.AppendByteOrder).AppendUint32(nil, v)) }
func (w *writer) u64(v uint64) { w.buf.Write(w.o.(binary.AppendByteOrder).AppendUint64(nil, v)) }

func (w *writer) prefix(id uint32, size int, ts uint64) {
	w.u32(id)
	w.u32(uint32(prefixSize + size))
	w.u64(ts)
}

func (w *writer) load(ts, addr, size, index uint64, name string) {
	w.prefix(CodeLoad, loadFixed+len(name)+1+int(size), ts)
	w.u32(7)
	w.u32(8)
	w.u64(addr)
	w.u64(addr)
	w.u64(size)
	w.u64(index)
	w.buf.WriteString(name)
	w.buf.WriteByte(0)
	w.buf.Write(bytes.Repeat([]byte{0xcc}, int(size)))
}

func (w *writer) move(ts, from, to, size, index uint64) {
	w.prefix(CodeMove, moveFixed, ts)
	w.u32(7)
	w.u32(8)
	w.u64(to)
	w.u64(from)
	w.u64(to)
	w.u64(size)
	w.u64(index)
}

func (w *writer) debugInfo(ts, addr uint64, file string, line uint32) {
	w.prefix(CodeDebugInfo, 16+16+len(file)+1, ts)
	w.u64(addr)
	w.u64(1)
	w.u64(addr)
	w.u32(line)
	w.u32(0)
	w.buf.WriteString(file)
	w.buf.WriteByte(0)
}

func (w *writer) unwinding(ts uint64, data []byte) {
	w.prefix(CodeUnwindingInfo, 24+len(data), ts)
	w.u64(uint64(len(data)))
	w.u64(0)
	w.u64(uint64(len(data)))
	w.buf.Write(data)
}

func (w *writer) close(ts uint64) { w.prefix(CodeClose, 0, ts) }

// sample is a file with every kind of record.
func sample(o binary.ByteOrder) []byte {
	w := newWriter(o, 4242)
	w.load(2000, 0x1000, 0x40, 1, "JS:*fib /tmp/fib.js:1")
	w.debugInfo(2001, 0x1000, "/tmp/fib.js", 1)
	w.unwinding(2002, []byte{1, 2, 3, 4, 5, 6, 7, 8})
	w.load(3000, 0x2000, 0x10, 2, "Builtin:ArgumentsAdaptorTrampoline")
	w.move(4000, 0x1000, 0x3000, 0x40, 1)
	w.load(5000, 0x1000, 0x20, 3, "JS:~reused /tmp/fib.js:9")
	w.prefix(99, 5, 5500) // an unknown record: skipped by its size
	w.buf.Write([]byte{1, 2, 3, 4, 5})
	w.close(6000)
	return w.buf.Bytes()
}

func TestRead(t *testing.T) {
	want := []Region{
		{Start: 0x1000, Size: 0x40, Name: "JS:*fib /tmp/fib.js:1", Time: 2000, Index: 1},
		{Start: 0x2000, Size: 0x10, Name: "Builtin:ArgumentsAdaptorTrampoline", Time: 3000, Index: 2},
		{Start: 0x3000, Size: 0x40, Name: "JS:*fib /tmp/fib.js:1", Time: 4000, Index: 1},
		{Start: 0x1000, Size: 0x20, Name: "JS:~reused /tmp/fib.js:9", Time: 5000, Index: 3},
	}
	for _, o := range []binary.ByteOrder{binary.LittleEndian, binary.BigEndian} {
		data := sample(o)
		d, err := Read(bytes.NewReader(data))
		if err != nil {
			t.Fatal(o, err)
		}
		if d.Order != o || d.PID != 4242 || d.ElfMach != 62 || d.Version != 1 {
			t.Errorf("%v: header %+v", o, d.Header)
		}
		if !reflect.DeepEqual(d.Regions, want) {
			t.Errorf("%v: regions\n%+v\nwant\n%+v", o, d.Regions, want)
		}
		if d.Loads != 3 || d.Moves != 1 || d.DebugInfos != 1 || d.Unwinds != 1 || d.Closes != 1 || d.Unknown != 1 || d.Malformed != 0 || d.Truncated {
			t.Errorf("%v: counts %+v", o, d)
		}
		if d.Offset != int64(len(data)) {
			t.Errorf("%v: offset %d of %d", o, d.Offset, len(data))
		}
	}
}

func TestLookup(t *testing.T) {
	d, err := Read(bytes.NewReader(sample(binary.LittleEndian)))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		addr, t uint64
		name    string
		ok      bool
	}{
		{0x1010, 2500, "JS:*fib /tmp/fib.js:1", true},       // before the reuse
		{0x1010, 5000, "JS:~reused /tmp/fib.js:9", true},    // after
		{0x1030, 5000, "JS:*fib /tmp/fib.js:1", true},       // past the new, shorter code
		{0x1010, 100, "JS:*fib /tmp/fib.js:1", true},        // before any load: the first
		{0x3000, ^uint64(0), "JS:*fib /tmp/fib.js:1", true}, // moved
		{0x2010, 9000, "", false},                           // one past the end
		{0x0fff, 9000, "", false},
	}
	for _, c := range cases {
		r, ok := d.Lookup(c.addr, c.t)
		if ok != c.ok || r.Name != c.name {
			t.Errorf("Lookup(%#x, %d) = %q %v, want %q %v", c.addr, c.t, r.Name, ok, c.name, c.ok)
		}
	}
}

// TestReuses: the times at which code is loaded over code loaded before,
// and, for each file, that Lookup gives one answer per address between
// two of them (checkEpochs).
func TestReuses(t *testing.T) {
	type load struct{ ts, addr, size uint64 }
	cases := []struct {
		name  string
		loads []load
		moves [][4]uint64 // ts, from, to, size of the load of index 1
		want  []uint64
	}{
		{"none", nil, nil, nil},
		{"disjoint", []load{{10, 0x1000, 0x100}, {20, 0x2000, 0x100}}, nil, nil},
		{"adjacent", []load{{10, 0x1000, 0x100}, {20, 0x1100, 0x100}}, nil, nil},
		{"same address", []load{{10, 0x1000, 0x100}, {20, 0x1000, 0x100}}, nil, []uint64{20}},
		{"last byte", []load{{10, 0x1000, 0x100}, {20, 0x10ff, 0x10}}, nil, []uint64{20}},
		{"inside", []load{{10, 0x1000, 0x100}, {20, 0x1040, 0x10}}, nil, []uint64{20}},
		{"around", []load{{10, 0x1040, 0x10}, {20, 0x1000, 0x100}}, nil, []uint64{20}},
		{"same time", []load{{10, 0x1000, 0x100}, {10, 0x1080, 0x100}}, nil, []uint64{10}},
		{"out of order", []load{{30, 0x1000, 0x100}, {20, 0x1000, 0x100}}, nil, []uint64{30}},
		{"empty code", []load{{10, 0x1000, 0x100}, {20, 0x1000, 0}}, nil, nil},
		{"three at one address", []load{{10, 0x1000, 0x10}, {20, 0x1000, 0x10}, {30, 0x1000, 0x10}, {30, 0x5000, 1}}, nil, []uint64{20, 30}},
		{"many cells", []load{{10, 0x1000, 0x10}, {11, 0x2000, 0x10}, {12, 0x3000, 0x10}, {40, 0x0, 0x10000}, {50, 0x1008, 1}}, nil, []uint64{40, 50}},
		{"moved over", []load{{10, 0x1000, 0x100}, {20, 0x2000, 0x100}}, [][4]uint64{{30, 0x2000, 0x1000, 0x100}}, []uint64{30}},
		{"moved away", []load{{10, 0x1000, 0x100}}, [][4]uint64{{30, 0x1000, 0x3000, 0x100}}, nil},
	}
	for _, c := range cases {
		w := newWriter(binary.LittleEndian, 1)
		for i, l := range c.loads {
			w.load(l.ts, l.addr, l.size, uint64(i+1), fmt.Sprintf("f%d", i+1))
		}
		for _, m := range c.moves {
			w.move(m[0], m[1], m[2], m[3], 2)
		}
		d, err := Read(bytes.NewReader(w.buf.Bytes()))
		if err != nil {
			t.Fatal(c.name, err)
		}
		if got := d.Reuses(); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: reuses %v, want %v", c.name, got, c.want)
		}
		checkEpochs(t, c.name, d)
	}
	d, _ := Read(bytes.NewReader(sample(binary.LittleEndian)))
	if got := d.Reuses(); !reflect.DeepEqual(got, []uint64{5000}) {
		t.Errorf("sample: reuses %v, want [5000]", got)
	}
	checkEpochs(t, "sample", d)
}

// checkEpochs checks what Reuses promises of d: for the first and last
// address of each region, at the times around each region's, Lookup
// gives what it gives at the end of the time's epoch.
func checkEpochs(t *testing.T, name string, d *Dump) {
	t.Helper()
	reuses := d.Reuses()
	regions := d.Regions[:min(len(d.Regions), 64)]
	times := []uint64{0, ^uint64(0)}
	for _, r := range regions {
		times = append(times, r.Time-1, r.Time, r.Time+1)
	}
	for _, r := range regions {
		if r.Size == 0 {
			continue
		}
		for _, addr := range []uint64{r.Start, r.end() - 1} {
			for _, ts := range times {
				end := ^uint64(0)
				if i := sort.Search(len(reuses), func(i int) bool { return reuses[i] > ts }); i < len(reuses) {
					end = reuses[i] - 1
				}
				got, ok := d.Lookup(addr, ts)
				want, wok := d.Lookup(addr, end)
				if got != want || ok != wok {
					t.Fatalf("%s: Lookup(%#x, %d) = %+v, at its epoch's end %d %+v (reuses %v)", name, addr, ts, got, end, want, reuses)
				}
			}
		}
	}
}

// TestCut: every cut of the file gives the regions of the records before
// the cut, and says it was cut.
func TestCut(t *testing.T) {
	data := sample(binary.LittleEndian)
	full, _ := Read(bytes.NewReader(data))
	for n := 0; n < len(data); n++ {
		d, err := Read(bytes.NewReader(data[:n]))
		if n < headerSize {
			if err == nil {
				t.Fatalf("cut at %d: no error", n)
			}
			continue
		}
		if err != nil {
			t.Fatalf("cut at %d: %v", n, err)
		}
		if len(d.Regions) > 0 && !reflect.DeepEqual(d.Regions, full.Regions[:len(d.Regions)]) {
			t.Fatalf("cut at %d: regions %+v", n, d.Regions)
		}
		if d.Truncated == atRecordEnd(data, n) {
			t.Fatalf("cut at %d: truncated %v", n, d.Truncated)
		}
	}
}

// atRecordEnd tells whether a cut at n falls between records.
func atRecordEnd(data []byte, n int) bool {
	off := headerSize
	for off < len(data) {
		if off == n {
			return true
		}
		off += int(binary.LittleEndian.Uint32(data[off+4:]))
	}
	return n == len(data)
}

func TestBad(t *testing.T) {
	if _, err := Read(bytes.NewReader([]byte("not a jitdump file at all, no, not one bit"))); !errors.Is(err, ErrNotJitdump) {
		t.Errorf("no magic: %v", err)
	}
	// A record whose code_size is larger than the record: skipped, counted.
	w := newWriter(binary.LittleEndian, 1)
	w.prefix(CodeLoad, loadFixed+2, 1)
	w.u32(1)
	w.u32(1)
	w.u64(0x10)
	w.u64(0x10)
	w.u64(1 << 40)
	w.u64(1)
	w.buf.WriteString("a\x00")
	w.load(2, 0x20, 4, 2, "ok")
	d, err := Read(bytes.NewReader(w.buf.Bytes()))
	if err != nil || d.Malformed != 1 || len(d.Regions) != 1 || d.Regions[0].Name != "ok" {
		t.Errorf("code_size past the record: %+v %v", d, err)
	}
	// A record of size 0: no way on, reading stops with what came before.
	w = newWriter(binary.LittleEndian, 1)
	w.load(2, 0x20, 4, 2, "ok")
	w.prefix(CodeLoad, -prefixSize, 3)
	w.load(4, 0x40, 4, 3, "lost")
	d, err = Read(bytes.NewReader(w.buf.Bytes()))
	if err != nil || d.Malformed != 1 || len(d.Regions) != 1 {
		t.Errorf("size 0: %+v %v", d, err)
	}
}

func FuzzRead(f *testing.F) {
	f.Add(sample(binary.LittleEndian))
	f.Add(sample(binary.BigEndian))
	if seeds, _ := filepath.Glob("testdata/*.dump"); len(seeds) > 0 { // uncompressed dumps, if a maintainer adds some
		for _, s := range seeds {
			if data, err := os.ReadFile(s); err == nil && len(data) < 1<<16 {
				f.Add(data)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := Read(bytes.NewReader(data))
		if err != nil {
			return
		}
		if d.Offset > int64(len(data)) {
			t.Fatalf("offset %d past the end %d", d.Offset, len(data))
		}
		for _, r := range d.Regions {
			if got, ok := d.Lookup(r.Start, ^uint64(0)); r.Size > 0 && !ok {
				t.Fatalf("region %+v not found: %+v", r, got)
			}
		}
		if reuses := d.Reuses(); !slices.IsSorted(reuses) || len(slices.Compact(slices.Clone(reuses))) != len(reuses) {
			t.Fatalf("reuses not ascending and distinct: %v", reuses)
		}
		checkEpochs(t, "fuzz", d)
	})
}
