package perfdata

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"flamekit/internal/testkit/golden"
)

// errAt is an io.ReaderAt whose bytes from bad on cannot be read.
type errAt struct {
	b   []byte
	bad int64
}

var errDisk = errors.New("disk error")

func (e errAt) ReadAt(p []byte, off int64) (int, error) {
	if off >= e.bad {
		return 0, errDisk
	}
	n := copy(p, e.b[off:min(e.bad, int64(len(e.b)))])
	if n < len(p) {
		return n, errDisk
	}
	return n, nil
}

// TestReadAhead reads the same bytes through a readAhead and a
// bufio.Reader with the same random Peeks and Discards: small blocks, so
// that records cross one or several blocks, and a section that ends in
// the middle of a Peek, or on a read error.
func TestReadAhead(t *testing.T) {
	data := make([]byte, 5000)
	for i := range data {
		data[i] = byte(i * 7)
	}
	for _, c := range []struct {
		name       string
		size, nblk int
		bad        int64 // first unreadable byte; len(data) for none
	}{
		{"blocks of 7", 7, 2, 5000},
		{"blocks of 64", 64, 4, 5000},
		{"one block", 8192, 1, 5000},
		{"read error", 64, 3, 3001},
	} {
		t.Run(c.name, func(t *testing.T) {
			for seed := range uint64(20) {
				rng := rand.New(rand.NewPCG(seed, 1))
				src := errAt{data, c.bad}
				off := int64(rng.IntN(100))
				ra := newReadAhead(src, off, int64(len(data))-off, &queue{chunk: c.size}, c.nblk)
				br := bufio.NewReaderSize(io.NewSectionReader(src, off, int64(len(data))-off), 1<<14)
				if err := sameReads(ra, br, func() (bool, int, bool) { return rng.IntN(2) == 0, 1 + rng.IntN(200), true }); err != nil {
					t.Fatalf("seed %d: %v", seed, err)
				}
				ra.close()
			}
		})
	}
}

// sameReads makes the Peeks and Discards next gives (peek, n; ok false
// when there are no more) on ra and br until one ends in an error, and
// says where they differ.
func sameReads(ra *readAhead, br *bufio.Reader, next func() (peek bool, n int, ok bool)) error {
	for step := 0; ; step++ {
		peek, n, ok := next()
		if !ok {
			return nil
		}
		if peek {
			got, gerr := ra.Peek(n)
			want, werr := br.Peek(n)
			if (gerr == nil) != (werr == nil) || gerr == nil && !bytes.Equal(got, want) {
				return fmt.Errorf("step %d: Peek(%d) = %d bytes, %v; bufio: %d bytes, %v", step, n, len(got), gerr, len(want), werr)
			}
			if gerr != nil {
				return nil
			}
		} else {
			got, gerr := ra.Discard(n)
			want, werr := br.Discard(n)
			if got != want || (gerr == nil) != (werr == nil) {
				return fmt.Errorf("step %d: Discard(%d) = %d, %v; bufio: %d, %v", step, n, got, gerr, want, werr)
			}
			if gerr != nil {
				return nil
			}
		}
	}
}

// FuzzReadAhead reads data through a readAhead (blocks of size, nblk of
// them ahead, bytes from bad on unreadable) and a bufio.Reader with the
// Peeks and Discards ops spells (a byte each: the low bit peeks, the rest
// is the length), and wants the same bytes and errors.
func FuzzReadAhead(f *testing.F) {
	f.Add([]byte("0123456789abcdefghijklmnopqrstuvwxyz"), []byte{9, 4, 17, 200, 3}, uint8(7), uint8(2), uint16(30))
	f.Add(bytes.Repeat([]byte{1, 2, 3}, 300), []byte{255, 254, 13, 12, 101, 100, 99}, uint8(64), uint8(1), uint16(900))
	f.Fuzz(func(t *testing.T, data, ops []byte, size, nblk uint8, bad uint16) {
		src := errAt{data, int64(bad)}
		ra := newReadAhead(src, 0, int64(len(data)), &queue{chunk: 1 + int(size)}, 1+int(nblk%8))
		defer ra.close()
		br := bufio.NewReaderSize(io.NewSectionReader(src, 0, int64(len(data))), 1<<14)
		i := 0
		err := sameReads(ra, br, func() (bool, int, bool) {
			if i == len(ops) {
				return false, 0, false
			}
			op := ops[i]
			i++
			return op&1 == 1, 1 + int(op>>1), true
		})
		if err != nil {
			t.Fatal(err)
		}
	})
}

// TestReadAheadReader reads DWARF captures (kilobytes of stack per
// sample) with the data section read ahead in blocks, as a large file
// is, the queue holding the records in them, and compares the folded
// text with that of the bufio.Reader, whose records the queue copies:
// blocks of the size used, and small ones, so that many records cross
// two blocks or more.
func TestReadAheadReader(t *testing.T) {
	objects := &committedObjects{}
	for _, name := range []string{"dwsys", "dwc"} {
		t.Run(name, func(t *testing.T) {
			script, err := golden.Read(filepath.Join("testdata", name+".script.gz"))
			if err != nil {
				t.Fatal(err)
			}
			path := extract(t, name, script)
			o := newOracle(scriptRecords(script), false)
			read := func() string {
				sy := dwarfSymbolizer{byBuildID{Resolver: committedResolver(t), kernelFromText: true}, objects}
				return string(readOurs(t, path, Options{Symbolizer: sy, AllowForeign: true}, o, false).text)
			}
			want := read()
			for _, block := range []int{readAheadBlock, 16 << 10, 3000} {
				withReadAhead(t, block)
				if got := read(); got != want {
					t.Errorf("read ahead in blocks of %d, the text differs from that read through bufio", block)
				}
			}
		})
	}
}

// withReadAhead makes the Readers the test opens read their data
// section ahead, in blocks of size.
func withReadAhead(t testing.TB, size int) {
	minSize, block := readAheadMin, readAheadBlock
	t.Cleanup(func() { readAheadMin, readAheadBlock = minSize, block })
	readAheadMin, readAheadBlock = 0, size
}

// TestBlockReuse follows one read-ahead block through what the Reader
// does with it (queue records in it, read past it, deliver them, pin it
// for a batch, unpin it) and checks whether the queue then gives it back
// to be read into again: only once the Reader read past it, none of its
// records is queued and no batch pins it.
func TestBlockReuse(t *testing.T) {
	for _, c := range []struct {
		name  string
		steps string // q: queue a record, p: pass, d: deliver one, +/-: pin/unpin
		reuse bool
	}{
		{"being read", "", false},
		{"being read, record delivered", "qd", false},
		{"passed, nothing queued", "p", true},
		{"passed, a record queued", "qp", false},
		{"passed, the record delivered", "qpd", true},
		{"delivered, then passed", "qdp", true},
		{"passed, one of two delivered", "qqpd", false},
		{"passed, both delivered", "qqpdd", true},
		{"delivered while pinned", "qp+d", false},
		{"pinned, delivered, unpinned", "qp+d-", true},
		{"pinned, delivered, passed", "q+dp", false},
		{"pinned, delivered, passed, unpinned", "q+dp-", true},
		{"unpinned before delivered", "q+-pd", true},
		{"two pins, one left", "qp++d-", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			q := &queue{chunk: 64}
			ck := q.newChunk() // a block, as recv gives the reader
			ck.b = ck.b[:cap(ck.b)]
			at := 0
			for i, s := range c.steps {
				switch s {
				case 'q':
					rec := ck.b[at : at+16 : at+16]
					binary.LittleEndian.PutUint16(rec[6:], 16)
					q.pushIn(uint64(i), rec, ck)
					at += 16
				case 'p':
					q.retire(ck)
				case 'd':
					q.release(q.pop())
				case '+':
					ck.pins.Add(1)
				case '-':
					ck.pins.Add(-1)
				}
			}
			got := q.newChunk()
			if (got == ck) != c.reuse {
				t.Fatalf("block reused: %v, want %v (live %d, pins %d, open %v)", got == ck, c.reuse, ck.live, ck.pins.Load(), ck.open)
			}
			if got == ck && q.newChunk() == ck {
				t.Fatal("block given twice")
			}
		})
	}
}

// TestReadAheadQueue reads records through a readAhead into a queue as
// the Reader does (a record within a block queued there, one across
// blocks copied), delivers them as more arrive, out of arrival order,
// and pins some delivered records' chunks for a while as batches do: each
// record delivered, and each pinned one when unpinned, must still hold
// its bytes, which a block read into again too early would overwrite.
func TestReadAheadQueue(t *testing.T) {
	for _, c := range []struct {
		name             string
		block, nblk      int
		sizes            []int // record sizes, in turn
		hold             int   // records queued before one is delivered
		pinEvery, pinFor int   // pin every pinEvery-th record for pinFor records
		across, inBlock  bool  // records must cross blocks, be queued in them
	}{
		{"records within blocks", 4096, 2, []int{32, 64, 32, 128}, 0, 0, 0, false, true},
		{"a record across two blocks", 200, 2, []int{64, 48, 96}, 3, 0, 0, true, true},
		// Records larger than a block: copied into chunks of their own,
		// which are read into as blocks once free.
		{"records across many blocks", 16, 3, []int{40, 100, 24}, 2, 0, 0, true, true},
		{"many boundaries, held long", 256, 2, []int{56, 72, 16, 120}, 40, 0, 0, true, true},
		{"pinned by batches", 512, 2, []int{48, 80, 8}, 5, 3, 25, true, true},
		{"pinned long, one block ahead", 1024, 1, []int{64, 200, 40}, 10, 2, 120, true, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			want := func(i int) []byte {
				rec := make([]byte, c.sizes[i%len(c.sizes)])
				for j := range rec {
					rec[j] = byte(i*31 + j)
				}
				binary.LittleEndian.PutUint32(rec, uint32(i))
				binary.LittleEndian.PutUint16(rec[6:], uint16(len(rec)))
				return rec
			}
			const n = 2000
			var data []byte
			for i := range n {
				data = append(data, want(i)...)
			}
			q := &queue{chunk: c.block}
			ra := newReadAhead(bytes.NewReader(data), 0, int64(len(data)), q, c.nblk)
			defer ra.close()
			type pin struct {
				rec   []byte
				ck    *chunk
				until int
			}
			var pins []pin
			check := func(rec []byte, what string) {
				t.Helper()
				i := int(binary.LittleEndian.Uint32(rec))
				if i >= n || !bytes.Equal(rec, want(i)) {
					t.Fatalf("%s record %d changed", what, i)
				}
			}
			across, inBlock := 0, 0
			chunks := map[*chunk]bool{}
			deliver := func(i int) {
				e := q.pop()
				check(e.rec, "a delivered")
				chunks[e.ck] = true
				if k := int(e.time / 4); c.pinEvery > 0 && k%c.pinEvery == 0 {
					e.ck.pins.Add(1)
					pins = append(pins, pin{e.rec, e.ck, i + c.pinFor})
				}
				q.release(e)
			}
			unpin := func(i int) {
				for len(pins) > 0 && pins[0].until <= i {
					check(pins[0].rec, "a pinned")
					pins[0].ck.pins.Add(-1)
					pins = pins[1:]
				}
			}
			for i := range n {
				h, err := ra.Peek(8)
				if err != nil {
					t.Fatal(err)
				}
				rec, err := ra.Peek(int(binary.LittleEndian.Uint16(h[6:])))
				if err != nil {
					t.Fatal(err)
				}
				// Times out of arrival order: 4i, less up to 8.
				tm := uint64(4*i + 8 - 4*(i%3))
				if ck := ra.block(); ck != nil {
					q.pushIn(tm, rec, ck)
					inBlock++
				} else {
					q.push(tm, rec)
					across++
				}
				ra.Discard(len(rec))
				for q.n > c.hold {
					deliver(i)
				}
				unpin(i)
			}
			if _, err := ra.Peek(1); err != io.EOF {
				t.Fatalf("at the end: %v, not EOF", err)
			}
			for q.n > 0 {
				deliver(n)
			}
			unpin(n + c.pinFor)
			if (across > 0) != c.across || (inBlock > 0) != c.inBlock {
				t.Errorf("%d records across blocks, %d within one", across, inBlock)
			}
			// The blocks are reused: far fewer chunks than the data's blocks.
			if max := 2*(c.hold+c.pinFor+c.nblk) + 4; len(chunks) > max {
				t.Errorf("%d chunks for %d bytes in blocks of %d: more than %d", len(chunks), len(data), c.block, max)
			}
		})
	}
}
