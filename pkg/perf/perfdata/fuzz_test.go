package perfdata

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"flamekit/internal/testkit/golden"
	"flamekit/pkg/folded"
	"flamekit/pkg/perf/sample"
)

// memFile is a perf.data file in memory.
type memFile struct {
	*bytes.Reader
	size int64
}

func (m memFile) Stat() (os.FileInfo, error) { return memInfo(m.size), nil }

type memInfo int64

func (i memInfo) Name() string       { return "fuzz.data" }
func (i memInfo) Size() int64        { return int64(i) }
func (i memInfo) Mode() os.FileMode  { return 0o600 }
func (i memInfo) ModTime() time.Time { return time.Unix(0, 0) }
func (i memInfo) IsDir() bool        { return false }
func (i memInfo) Sys() any           { return nil }

// FuzzReader reads arbitrary bytes as a perf.data file: it must never
// panic, and never allocate more than the input's size allows. It reads
// them twice: through a bufio.Reader, the records copied into the queue,
// then with frames deferred and the data section read ahead in small
// blocks, the records queued in them and the batch pinning them, which
// must give the same frames, counts and error.
func FuzzReader(f *testing.F) {
	for _, name := range []string{"nocallgraph", "zstd", "sched", "tracepoints", "mono", "mixed"} {
		data, err := golden.Read(filepath.Join("testdata", name+".data.gz"))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(shrink(data, 1024))
	}
	// --call-graph dwarf samples (of 1 KB dumps), unwound without CFI.
	dw, err := golden.Read(filepath.Join("testdata", "dwsmall.data.gz"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(shrink(dw, 8<<10))
	seeds, err := damageSeeds()
	if err != nil {
		f.Fatal(err)
	}
	names := make([]string, 0, len(seeds))
	for name := range seeds {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		f.Add(seeds[name])
	}
	maxZstdWindow = 1 << 22
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := newReader(memFile{bytes.NewReader(data), int64(len(data))}, "fuzz.data", Options{TraceFS: "testdata/tracefs"})
		if err != nil {
			return
		}
		defer r.Close()
		var buf []byte
		var b Samples
		var s sample.Sample
		var want []string
		check := func() {
			// Kept samples read back as the reader gave them, after
			// the reader has read on.
			for i := range b.Len() {
				b.Sample(i, &s)
				if got := string(sample.AppendScript(nil, &s)); got != want[i] {
					t.Fatalf("kept sample %d:\n%s\nread:\n%s", i, got, want[i])
				}
			}
			b.Reset()
			want = want[:0]
		}
		var frames []string // each sample's frames, for the deferred pass
		for r.Next() {
			s := r.Sample()
			buf = sample.AppendScript(buf[:0], s)
			var fs []byte
			for _, f := range s.Frames {
				fs = append(fs, frameText(f.Addr, f.Symbol, f.DSO)...)
				fs = append(fs, '\n')
			}
			frames = append(frames, string(fs))
			r.Keep(&b)
			want = append(want, string(buf))
			if b.Len() == 16 {
				check()
			}
		}
		check()
		rerr := fmt.Sprint(r.Err())
		stats := r.Stats()

		// The same samples with deferred frames, resolved once the file
		// was read, read ahead in blocks of 256 bytes to 4 KiB.
		defer func(m int64, b int) { readAheadMin, readAheadBlock = m, b }(readAheadMin, readAheadBlock)
		readAheadMin, readAheadBlock = 0, 256+len(data)%(4<<10)
		d, err := newReader(memFile{bytes.NewReader(data), int64(len(data))}, "fuzz.data", Options{TraceFS: "testdata/tracefs"})
		if err != nil {
			t.Fatalf("opened once, not twice: %v", err)
		}
		defer d.Close()
		d.DeferFrames()
		var kept Samples
		for d.Next() {
			d.Keep(&kept)
		}
		if kept.Len() != len(frames) {
			t.Fatalf("%d samples deferred, %d read", kept.Len(), len(frames))
		}
		if derr := fmt.Sprint(d.Err()); derr != rerr {
			t.Fatalf("read ahead, the error is %s, not %s", derr, rerr)
		}
		fc := d.NewFrameCache()
		var addrs folded.Addrs
		for i := range kept.Len() {
			chain := fc.Chain(&kept, i)
			checkAddrs(t, fc, &kept, i, len(chain), &addrs) // addrs_test.go
			var fs []byte
			for _, n := range chain {
				f := fc.Frame(n)
				fs = append(fs, frameText(f.Addr, f.Symbol, f.DSO)...)
				fs = append(fs, '\n')
			}
			if string(fs) != frames[i] {
				t.Fatalf("sample %d: deferred frames\n%s\nnot\n%s", i, fs, frames[i])
			}
		}
		// Complete once the user stacks kept were unwound.
		if got := d.Stats(); got != stats {
			t.Fatalf("stats: deferred %+v, not %+v", got, stats)
		}
	})
}

// shrink returns a valid perf.data file with the header, attributes and
// feature sections of data but only some of its records: its first side
// records and first samples, up to max bytes of each, in their order.
func shrink(data []byte, max int) []byte {
	le := binary.LittleEndian
	dataOff := int(le.Uint64(data[40:]))
	dataSize := int(le.Uint64(data[48:]))
	var kept []byte
	side, samples := 0, 0
	for p := 0; p+8 <= dataSize; {
		size := int(le.Uint16(data[dataOff+p+6:]))
		if size < 8 || p+size > dataSize {
			break
		}
		keep := &side
		if le.Uint32(data[dataOff+p:]) == recSample {
			keep = &samples
		}
		if *keep+size <= max {
			*keep += size
			kept = append(kept, data[dataOff+p:dataOff+p+size]...)
		}
		p += size
	}
	return rebuild(data, kept)
}

// damageSeeds returns small files of the shapes perf record leaves when
// it does not finish, made from the cut and killed captures: the data
// section cut in a record ("cut"), data size 0 and no feature section
// ("killed", its last record cut short), the feature sections cut
// ("featurescut"), zeros after the last record ("zerotail"), and a
// tracepoint capture that lost its tracing data ("tracecut").
func damageSeeds() (map[string][]byte, error) {
	le := binary.LittleEndian
	read := func(name string) ([]byte, error) {
		return golden.Read(filepath.Join("testdata", name+".data.gz"))
	}
	cut, err := read("cut")
	if err != nil {
		return nil, err
	}
	small := shrink(cut, 1024)
	dataOff := int(le.Uint64(small[40:]))
	dataEnd := dataOff + int(le.Uint64(small[48:]))
	killed := bytes.Clone(small[:dataEnd])
	le.PutUint64(killed[48:], 0)
	killed = append(killed, small[dataEnd-200:dataEnd-180]...) // a record cut short
	sched, err := read("sched")
	if err != nil {
		return nil, err
	}
	tr := shrink(sched, 1024)
	trEnd := int(le.Uint64(tr[40:])) + int(le.Uint64(tr[48:]))
	return map[string][]byte{
		"cut":         small[:dataOff+(dataEnd-dataOff)*6/10],
		"killed":      killed,
		"featurescut": small[:len(small)-300],
		"zerotail":    append(bytes.Clone(killed[:dataEnd]), make([]byte, 64)...),
		"tracecut":    tr[:trEnd-100],
	}, nil
}

// TestFuzzSeeds checks that the shrunk seeds are valid files, and with
// -update writes them to the committed seed corpus.
func TestFuzzSeeds(t *testing.T) {
	dir := filepath.Join("testdata", "fuzz", "FuzzReader")
	for _, name := range []string{"nocallgraph", "zstd", "sched", "tracepoints", "mono", "mixed", "pipe", "dwarf"} {
		data, err := golden.Read(filepath.Join("testdata", name+".data.gz"))
		if err != nil {
			t.Fatal(err)
		}
		seed := data
		if name != "pipe" {
			seed = shrink(data, 1024)
		}
		if len(seed) > 64<<10 {
			seed = seed[:64<<10]
		}
		r, err := newReader(memFile{bytes.NewReader(seed), int64(len(seed))}, name, Options{})
		if name != "pipe" && name != "dwarf" {
			if err != nil {
				t.Fatalf("%s: shrunk file: %v", name, err)
			}
			n := 0
			for r.Next() {
				n++
			}
			if r.Err() != nil || n == 0 && name != "zstd" {
				t.Errorf("%s: shrunk file: %d samples, %v", name, n, r.Err())
			}
			r.Close()
		}
		if golden.Updating() {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			corpus := fmt.Sprintf("go test fuzz v1\n[]byte(%s)\n", strconv.Quote(string(seed)))
			if err := os.WriteFile(filepath.Join(dir, name), []byte(corpus), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	seeds, err := damageSeeds()
	if err != nil {
		t.Fatal(err)
	}
	for name, seed := range seeds {
		r, err := newReader(memFile{bytes.NewReader(seed), int64(len(seed))}, name, Options{TraceFS: "testdata/tracefs"})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		n := 0
		for r.Next() {
			n++
		}
		if r.Err() != nil || n == 0 || r.Damage() == nil {
			t.Errorf("%s: %d samples, %v, damage %v; want samples of a damaged file", name, n, r.Err(), r.Damage())
		}
		r.Close()
		if golden.Updating() {
			corpus := fmt.Sprintf("go test fuzz v1\n[]byte(%s)\n", strconv.Quote(string(seed)))
			if err := os.WriteFile(filepath.Join(dir, "damage-"+name), []byte(corpus), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}
