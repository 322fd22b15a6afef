package perfdata

import (
	"bytes"
	"encoding/binary"
	"testing"
)

// recordEnds returns where each record of the pipe-mode file data ends
// (the test's own walk, by the record headers' sizes).
func recordEnds(data []byte) []int64 {
	ends := []int64{pipeHeaderSize}
	for off := pipeHeaderSize; off+8 <= len(data); {
		size := int(binary.LittleEndian.Uint16(data[off+6:]))
		if size < 8 || off+size > len(data) {
			break
		}
		off += size
		ends = append(ends, int64(off))
	}
	return ends
}

// TestScanPipe cuts a real pipe-mode capture (perf record -o -, 12 samples
// as perf script prints them) at every byte: ScanPipe finds the last
// complete record, says Cut exactly when the cut is inside a record, and
// counts the samples before it.
func TestScanPipe(t *testing.T) {
	data := readData(t, "pipe")
	whole, err := ScanPipe(bytes.NewReader(data), "pipe.data")
	if err != nil {
		t.Fatal(err)
	}
	if want := (PipeEnd{Complete: int64(len(data)), Size: int64(len(data)), Samples: 12}); whole != want {
		t.Fatalf("whole file: %+v, want %+v", whole, want)
	}
	ends := recordEnds(data)
	if ends[len(ends)-1] != int64(len(data)) {
		t.Fatalf("the test's walk ends at %d of %d bytes", ends[len(ends)-1], len(data))
	}
	next, samples := 0, int64(0)
	for cut := pipeHeaderSize; cut <= len(data); cut++ {
		for next < len(ends) && ends[next] <= int64(cut) {
			if next > 0 && binary.LittleEndian.Uint32(data[ends[next-1]:]) == recSample {
				samples++
			}
			next++
		}
		want := PipeEnd{Complete: ends[next-1], Size: int64(cut), Samples: samples}
		got, err := ScanPipe(bytes.NewReader(data[:cut]), "cut.data")
		if err != nil || got != want {
			t.Fatalf("cut at %d: %+v, %v; want %+v", cut, got, err, want)
		}
		if got.Cut() != (want.Complete != int64(cut)) {
			t.Fatalf("cut at %d: Cut() = %v", cut, got.Cut())
		}
	}
	for _, bad := range [][]byte{nil, data[:15], readData(t, "nocallgraph")} {
		if _, err := ScanPipe(bytes.NewReader(bad), "bad.data"); err == nil {
			t.Errorf("%d bytes not in pipe mode: no error", len(bad))
		}
	}
}

// FuzzScanPipe walks arbitrary bytes as a pipe-mode file: no panic, and
// the complete part never extends past what was read.
func FuzzScanPipe(f *testing.F) {
	data := readData(f, "pipe")
	f.Add(data)
	f.Add(data[:len(data)/2])
	f.Add(append(append([]byte{}, data[:pipeHeaderSize]...), 0, 0, 0, 0, 0, 0, 4, 0))
	f.Fuzz(func(t *testing.T, b []byte) {
		e, err := ScanPipe(bytes.NewReader(b), "fuzz.data")
		if err != nil {
			return
		}
		if e.Size != int64(len(b)) || e.Complete > e.Size || e.Complete < pipeHeaderSize || e.Samples > e.Complete/8 {
			t.Fatalf("%d bytes: %+v", len(b), e)
		}
	})
}
