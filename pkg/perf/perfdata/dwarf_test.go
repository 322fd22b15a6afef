package perfdata

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"flamekit/internal/testkit/elfskel"
	"flamekit/internal/testkit/golden"
	"flamekit/pkg/perf/sample"
	"flamekit/pkg/perf/symbols"
	"flamekit/pkg/perf/unwind"
)

// dwarfCaptures are the --call-graph dwarf captures of testdata (see
// README.md). Their NAME.script.gz is perf script --no-inline: the frames
// perf's libunwind unwinds, without the inlined functions perf script adds
// by default with addr2line (NAME.inline.script.gz).
var dwarfCaptures = []string{"dwc", "dwcfp", "dwsmall", "dwcpp", "dwrust", "dwgo", "dwsys"}

// objectsDir holds the skeletons (pkg/internal/testkit/elfskel) of the
// objects the DWARF captures unwind through, OBJECTS/BUILDID.gz, and
// OBJECTS/paths, "PATH BUILDID" lines for the objects the captures name
// without a build-id (perf records build-ids only for the objects with
// samples; the others are read by path, as perf reads them).
const objectsDir = "testdata/objects"

// committedObjects is an objectOpener over objectsDir.
type committedObjects struct {
	once  sync.Once
	paths map[string]string
	err   error
	mu    sync.Mutex
	files map[string][]byte // gunzipped, by build-id
}

func (c *committedObjects) ObjectFile(path, buildID string) (io.ReaderAt, func() error, string, error) {
	c.once.Do(func() {
		c.paths = map[string]string{}
		b, err := os.ReadFile(filepath.Join(objectsDir, "paths"))
		if err != nil {
			c.err = err
			return
		}
		sc := bufio.NewScanner(bytes.NewReader(b))
		for sc.Scan() {
			if p, id, ok := strings.Cut(sc.Text(), " "); ok {
				c.paths[p] = id
			}
		}
	})
	if buildID == "" {
		buildID = c.paths[path]
	}
	name := filepath.Join(objectsDir, buildID+".gz")
	c.mu.Lock()
	defer c.mu.Unlock()
	data, ok := c.files[buildID]
	var err error
	if !ok && buildID != "" {
		data, err = golden.Read(name)
		if c.files == nil {
			c.files = map[string][]byte{}
		}
		c.files[buildID] = data
	}
	if buildID == "" || err != nil || data == nil {
		return nil, nil, "", fmt.Errorf("%s %s: not committed: %w", path, buildID, fs.ErrNotExist)
	}
	return bytes.NewReader(data), func() error { return nil }, name, nil
}

// dwarfSymbolizer is the parity tests' Symbolizer for the DWARF captures:
// byBuildID's symbols (the captures' kernel is not the committed
// kallsyms'), the committed objects' CFI, and the committed vdso.
type dwarfSymbolizer struct {
	byBuildID
	objects *committedObjects
}

func (d dwarfSymbolizer) ObjectFile(path, buildID string) (io.ReaderAt, func() error, string, error) {
	if path == "[vdso]" {
		return d.Resolver.ObjectFile(path, buildID)
	}
	return d.objects.ObjectFile(path, buildID)
}

// TestDWARFParity reads every DWARF capture, unwinding its user stacks,
// and compares it with perf script --no-inline as TestScriptParity does:
// sample by sample (the same frames, addresses and DSOs; symbols from the
// text), then folded with every flag set. Each capture's sample total is
// perf's.
func TestDWARFParity(t *testing.T) {
	objects := &committedObjects{}
	for _, name := range dwarfCaptures {
		t.Run(name, func(t *testing.T) {
			script, err := golden.Read(filepath.Join("testdata", name+".script.gz"))
			if err != nil {
				t.Fatal(err)
			}
			want := scriptRecords(script)
			o := newOracle(want, false)
			path := extract(t, name, script)
			sy := dwarfSymbolizer{byBuildID{Resolver: committedResolver(t), kernelFromText: true}, objects}
			got := readOurs(t, path, Options{Symbolizer: sy, AllowForeign: true}, o, false)
			if len(got.records) != len(want) {
				t.Errorf("%d samples, perf script has %d", len(got.records), len(want))
			}
			checkSamples(t, name, want, got.records)
			checkFolded(t, name, script, got.text)
			u := got.stats.Unwind
			if u.Total() == 0 {
				t.Errorf("no user stack unwound")
			}
			short, causes := u.Short()
			t.Logf("%d samples, %d stacks unwound, %d ended early (%s)", len(want), u.Total(), short, causes)
		})
	}
}

// TestDWARFObjects checks that the objects the DWARF captures unwind
// through are committed; with -update it writes their skeletons from this
// machine's files (run it where the captures were made).
func TestDWARFObjects(t *testing.T) {
	if !golden.Updating() {
		objects := &committedObjects{}
		for _, name := range dwarfCaptures {
			path := writeTemp(t, name+".data", readData(t, name))
			sy := dwarfSymbolizer{byBuildID{Resolver: committedResolver(t), kernelFromText: true}, objects}
			r, err := Open(path, Options{Symbolizer: sy, AllowForeign: true})
			if err != nil {
				t.Fatal(err)
			}
			for r.Next() {
			}
			for key, o := range r.cfi.tables {
				file, _, _ := strings.Cut(key, "\x00")
				if o.stop != unwind.NoObject || !strings.HasPrefix(file, "/") {
					continue
				}
				// An object that is not committed must be one without
				// an unwind table (a Go binary), or not on this
				// machine (other tests' binaries of the busy
				// machine's capture, gone since).
				if tb, err := unwind.Open(file, "", unwind.Options{}); err == nil && tb.HasCFI() {
					t.Errorf("%s: %q not committed (go test ./pkg/perf/perfdata -run TestDWARFObjects -update writes it)", name, key)
				}
			}
			r.Close()
		}
		return
	}
	// The addresses each object's unwinding needed, over all captures:
	// the skeletons keep the instructions of their FDEs only.
	type object struct {
		file string
		used map[uint64]bool
	}
	objects := map[string]*object{} // by the path+build-id key
	for _, name := range dwarfCaptures {
		path := writeTemp(t, name+".data", readData(t, name))
		r, err := Open(path, Options{Symbolizer: symbols.NewResolver(symbols.Options{}), AllowForeign: true})
		if err != nil {
			t.Fatal(err)
		}
		for r.Next() {
		}
		for key, o := range r.cfi.tables {
			dso, _, _ := strings.Cut(key, "\x00")
			if o.t == nil || dso == "" || dso == "[vdso]" || !o.t.HasCFI() {
				continue
			}
			ob := objects[key]
			if ob == nil {
				ob = &object{file: o.file, used: map[uint64]bool{}}
				objects[key] = ob
			}
			for _, a := range o.t.Addresses() {
				ob.used[a] = true
			}
		}
		r.Close()
	}
	// One skeleton per build-id, with the addresses of all its names
	// (the build-id cache's copy and the file by path are one object).
	type skeleton struct {
		file  string
		used  []uint64
		paths []string // DSO paths without a recorded build-id
	}
	byID := map[string]*skeleton{}
	for key, ob := range objects {
		id, err := elfskel.BuildID(ob.file)
		if err != nil {
			t.Fatal(err)
		}
		sk := byID[id]
		if sk == nil {
			sk = &skeleton{file: ob.file}
			byID[id] = sk
		}
		for a := range ob.used {
			sk.used = append(sk.used, a)
		}
		if dso, id, _ := strings.Cut(key, "\x00"); id == "" {
			sk.paths = append(sk.paths, dso)
		}
	}
	if err := os.RemoveAll(objectsDir); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(objectsDir, 0o755); err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, sk := range byID {
		slices.Sort(sk.used)
		skel, id, err := elfskel.Make(sk.file, slices.Compact(sk.used))
		if err != nil {
			t.Fatal(err)
		}
		if err := golden.Write(filepath.Join(objectsDir, id+".gz"), skel); err != nil {
			t.Fatal(err)
		}
		for _, p := range sk.paths {
			lines = append(lines, p+" "+id+"\n")
		}
	}
	slices.Sort(lines)
	if err := os.WriteFile(filepath.Join(objectsDir, "paths"), []byte(strings.Join(lines, "")), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestDWARFDamaged reads a DWARF capture whose stack dumps were cut short
// or filled with garbage: every sample is still delivered, with its
// first frame, and where the unwind stopped is counted; nothing panics.
func TestDWARFDamaged(t *testing.T) {
	orig := readData(t, "dwc")
	objects := &committedObjects{}
	for _, c := range []struct {
		name string
		// patch changes the body of a SAMPLE record, which ends (in this
		// capture) with the 4096 bytes of the dump, dyn_size, data_src.
		patch func(rec []byte)
		check func(t *testing.T, u UnwindStops, frames int)
	}{
		{"dump of 16 bytes", func(rec []byte) {
			binary.LittleEndian.PutUint64(rec[len(rec)-16:], 16)
		}, func(t *testing.T, u UnwindStops, frames int) {
			if u[unwind.StackEnd] != u.Total() {
				t.Errorf("stops %v, want all StackEnd", u)
			}
		}},
		{"no dump", func(rec []byte) {
			binary.LittleEndian.PutUint64(rec[len(rec)-16:], 0)
		}, func(t *testing.T, u UnwindStops, frames int) {
			if u[unwind.StackEnd] != u.Total() || frames != 0 {
				t.Errorf("stops %v and %d user frames, want all StackEnd and none", u, frames)
			}
		}},
		{"garbage", func(rec []byte) {
			dump := rec[len(rec)-16-4096 : len(rec)-16]
			for i := range dump {
				dump[i] = byte(i * 7)
			}
		}, func(t *testing.T, u UnwindStops, frames int) {
			if u.Total() == 0 {
				t.Errorf("no stack unwound")
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			data := bytes.Clone(orig)
			off := binary.LittleEndian.Uint64(data[40:])
			end := off + binary.LittleEndian.Uint64(data[48:])
			n := 0
			for off+8 <= end {
				typ, size := binary.LittleEndian.Uint32(data[off:]), uint64(binary.LittleEndian.Uint16(data[off+6:]))
				if size < 8 {
					break
				}
				if typ == recSample {
					c.patch(data[off+8 : off+size])
					n++
				}
				off += size
			}
			path := writeTemp(t, "damaged.data", data)
			sy := dwarfSymbolizer{byBuildID{Resolver: committedResolver(t), kernelFromText: true}, objects}
			r, err := Open(path, Options{Symbolizer: sy, AllowForeign: true})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			samples, user := 0, 0
			for r.Next() {
				samples++
				for _, f := range r.Sample().Frames {
					if !bytes.HasPrefix(f.Addr, []byte("ffffffff8")) {
						user++
					}
				}
			}
			if err := r.Err(); err != nil || samples != n {
				t.Fatalf("%d samples of %d, %v", samples, n, err)
			}
			c.check(t, r.Stats().Unwind, user)
		})
	}
}

// TestHasObject: perf unwinds the user stack of a process only once an
// object (a file, the vdso) was mapped in it; a process seen with
// anonymous maps only (its other MMAP records lost) gets no user part.
func TestHasObject(t *testing.T) {
	anon := &dso{path: "//anon", kind: dsoNone}
	file := &dso{path: "/usr/bin/bash", kind: dsoUser}
	vdso := &dso{path: "[vdso]", kind: dsoVDSO}
	for _, c := range []struct {
		name string
		list []mapping
		want bool
	}{
		{"no map", nil, false},
		{"anonymous only", []mapping{{start: 0x1000, end: 0x2000, dso: anon}}, false},
		{"a file", []mapping{{start: 0x1000, end: 0x2000, dso: anon}, {start: 0x3000, end: 0x4000, dso: file}}, true},
		{"the vdso", []mapping{{start: 0x1000, end: 0x2000, dso: vdso}}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			var d dwarfUnwinder
			for range 2 { // the second answer is remembered
				if got := d.hasObject(c.list); got != c.want {
					t.Errorf("hasObject = %v, want %v", got, c.want)
				}
			}
		})
	}
}

// TestDWARFDeferred checks that user stacks unwound by FrameCaches
// (DeferFrames), on two goroutines, give the frames and the stops the
// Reader gives unwinding them itself, for every DWARF capture, as
// recorded and cut in rounds of three records (a FINISHED_ROUND after
// every three), so that the queue reuses its chunks as it reads: the
// batches are resolved and reset while the Reader reads on, or once it
// read them all, when the chunks their dumps are in would have been
// reused but for their pins, read through bufio (the records
// copied into the queue) and read ahead (the records left in the blocks,
// which are the queue's chunks).
func TestDWARFDeferred(t *testing.T) {
	objects := &committedObjects{}
	for _, name := range dwarfCaptures {
		orig := readData(t, name)
		var rounds []byte
		n := 0
		records(t, orig, func(_ int, typ uint32, rec []byte) {
			if typ == recFinishedRound {
				return
			}
			rounds = append(rounds, rec...)
			if n++; n%3 == 0 {
				rounds = append(rounds, 68, 0, 0, 0, 0, 0, 8, 0) // FINISHED_ROUND
			}
		})
		for variant, data := range map[string][]byte{"recorded": orig, "rounds": rebuild(orig, rounds)} {
			path := writeTemp(t, name+".data", data)
			t.Run(name+"/"+variant, func(t *testing.T) {
				testDWARFDeferred(t, path, objects)
			})
			// Read ahead, the dumps pinned in the blocks they were read
			// in; blocks of 3000 bytes: most records cross two.
			for _, block := range []int{16 << 10, 3000} {
				t.Run(fmt.Sprintf("%s/%s/blocks of %d", name, variant, block), func(t *testing.T) {
					withReadAhead(t, block)
					testDWARFDeferred(t, path, objects)
				})
			}
		}
	}
}

func testDWARFDeferred(t *testing.T, path string, objects *committedObjects) {
	sy := dwarfSymbolizer{byBuildID{Resolver: committedResolver(t), kernelFromText: true}, objects}
	opt := Options{Symbolizer: sy, AllowForeign: true}
	text := func(fs []sample.Frame) string {
		var sb strings.Builder
		for _, f := range fs {
			sb.WriteString(frameText(f.Addr, f.Symbol, f.DSO) + "\n")
		}
		return sb.String()
	}

	r, err := Open(path, opt)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for r.Next() {
		want = append(want, text(r.Sample().Frames))
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	wantStats := r.Stats()
	r.Close()
	if wantStats.Unwind.Total() == 0 {
		t.Fatal("no user stack unwound")
	}

	for _, after := range []bool{false, true} {
		r, err = Open(path, opt)
		if err != nil {
			t.Fatal(err)
		}
		got, stats := readDeferredDWARF(t, r, len(want), after, text)
		r.Close()
		if stats != wantStats {
			t.Errorf("after=%v: stats: deferred %+v, not %+v", after, stats.Unwind, wantStats.Unwind)
		}
		bad := 0
		for i := range want {
			if got[i] != want[i] {
				if bad++; bad <= 3 {
					t.Errorf("after=%v: sample %d: deferred frames\n%s\nnot\n%s", after, i, got[i], want[i])
				}
			}
		}
		if bad > 0 {
			t.Errorf("after=%v: %d of %d samples differ", after, bad, len(want))
		}
	}
}

// readDeferredDWARF reads r's samples with deferred frames in batches of
// 5, resolved by two goroutines that reset each batch once resolved:
// while r reads on, or after it read them all (after), when the queue's
// chunks their dumps are in would have been reused but for their pins.
// The queue's chunks are made small, so that it has many (those of a
// read-ahead are its blocks: see withReadAhead). It returns
// each sample's frames as text gives them, and r's Stats at the end.
func readDeferredDWARF(t *testing.T, r *Reader, n int, after bool, text func([]sample.Frame) string) ([]string, Stats) {
	t.Helper()
	if r.ra == nil {
		r.q.chunk = 16 << 10
	}
	r.DeferFrames()
	type batch struct {
		b     *Samples
		first int
	}
	batches := make(chan batch, 2)
	if after {
		batches = make(chan batch, n)
	}
	got := make([]string, n)
	var wg sync.WaitGroup
	resolve := func() {
		for range 2 {
			fc := r.NewFrameCache()
			wg.Add(1)
			go func() {
				defer wg.Done()
				var frames []sample.Frame
				for bt := range batches {
					for i := range bt.b.Len() {
						frames = frames[:0]
						for _, n := range fc.Chain(bt.b, i) {
							frames = append(frames, *fc.Frame(n))
						}
						if k := bt.first + i; k < len(got) {
							got[k] = text(frames)
						}
					}
					bt.b.Reset()
				}
			}()
		}
	}
	if !after {
		resolve()
	}
	kept := 0
	b := &Samples{}
	for r.Next() {
		r.Keep(b)
		if k := b.Len(); k == 5 {
			batches <- batch{b, kept}
			kept += k
			b = &Samples{}
		}
	}
	if k := b.Len(); k > 0 {
		batches <- batch{b, kept}
		kept += k
	}
	close(batches)
	if after {
		resolve()
	}
	wg.Wait()
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	if kept != n {
		t.Fatalf("%d samples deferred, %d read", kept, n)
	}
	return got, r.Stats()
}

// TestPushSampleCutsDump checks that a sample queued without the bytes of
// its stack dump past the valid ones (pushSample) reads as the sample
// recorded, and that dumps are cut (those of dwcpp, dwcfp and dwsys have
// fewer valid bytes than recorded; the others are full).
func TestPushSampleCutsDump(t *testing.T) {
	total := 0
	for _, name := range dwarfCaptures {
		data := readData(t, name)
		r, err := Open(writeTemp(t, name+".data", data), Options{})
		if err != nil {
			t.Fatal(err)
		}
		cut, samples := 0, 0
		records(t, data, func(_ int, typ uint32, rec []byte) {
			if typ != recSample {
				return
			}
			var want, got sampleRec
			if !r.parseSample(le16(rec[4:]), rec[8:], &want) {
				t.Fatalf("%s: a sample does not parse", name)
			}
			samples++
			r.pushSample(want.time, rec)
			e := r.q.pop()
			if len(e.rec) < len(rec) {
				cut++
			}
			if int(le16(e.rec[6:])) != len(e.rec) {
				t.Fatalf("%s: the record's size reads %d, it has %d bytes", name, le16(e.rec[6:]), len(e.rec))
			}
			if !r.parseSample(le16(e.rec[4:]), e.rec[8:], &got) {
				t.Fatalf("%s: a sample queued does not parse", name)
			}
			if got.time != want.time || got.pid != want.pid || got.tid != want.tid || got.ip != want.ip ||
				!bytes.Equal(got.callchain, want.callchain) || got.regsABI != want.regsABI ||
				!bytes.Equal(got.regs, want.regs) || !bytes.Equal(got.stack, want.stack) {
				t.Fatalf("%s: a sample queued reads\n%+v\nnot\n%+v", name, got, want)
			}
			r.q.release(e)
		})
		r.Close()
		t.Logf("%s: %d of %d samples' dumps cut", name, cut, samples)
		total += cut
	}
	if total == 0 {
		t.Error("no dump cut")
	}
}
