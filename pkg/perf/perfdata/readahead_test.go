package perfdata

import (
	"bufio"
	"bytes"
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
// is, and compares the folded text with that of the bufio.Reader.
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
			defer func(v int64) { readAheadMin = v }(readAheadMin)
			readAheadMin = 0
			if got := read(); got != want {
				t.Errorf("read ahead, the text differs from that read through bufio")
			}
		})
	}
}
