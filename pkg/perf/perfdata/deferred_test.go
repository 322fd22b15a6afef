package perfdata

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"sync"
	"testing"

	"flamekit/internal/testkit/golden"
)

// frameText is what a sample's frames print: address, symbol and DSO of
// each, leaf first.
func frameText(addr, sym, dso []byte) string { return fmt.Sprintf("%s %s (%s)", addr, sym, dso) }

// TestDeferredFrames checks that frames resolved later, on other
// goroutines, by FrameCaches (DeferFrames) are those the Reader gives
// itself, for every sample of every committed capture: the maps a sample
// kept are those of its time, however much the reader read since. The
// batches are resolved once the whole file was read, by two goroutines
// at once, each with its FrameCache.
func TestDeferredFrames(t *testing.T) {
	for _, c := range captures {
		t.Run(c.name, func(t *testing.T) {
			script, err := golden.Read(filepath.Join("testdata", c.name+".script.gz"))
			if err != nil {
				t.Fatal(err)
			}
			path := extract(t, c.name, script)
			sy := byBuildID{Resolver: committedResolver(t), kernelFromText: c.newKernel}
			opt := Options{Symbolizer: sy, AllowForeign: true}

			// The Reader's own frames.
			r, err := Open(path, opt)
			if err != nil {
				t.Fatal(err)
			}
			var want [][]string
			for r.Next() {
				var fs []string
				if r.PrintsFrames() {
					for _, f := range r.Sample().Frames {
						fs = append(fs, frameText(f.Addr, f.Symbol, f.DSO))
					}
				}
				want = append(want, fs)
			}
			if err := r.Err(); err != nil {
				t.Fatal(err)
			}
			wantStats := r.Stats()
			r.Close()

			// Deferred, in batches of 7 samples.
			r, err = Open(path, opt)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			r.DeferFrames()
			var batches []*Samples
			b := &Samples{}
			for r.Next() {
				if n := len(r.Sample().Frames); n != 0 {
					t.Fatalf("sample %d: %d frames from Sample with deferred frames", len(batches)*7+b.Len(), n)
				}
				r.Keep(b)
				if b.Len() == 7 {
					batches = append(batches, b)
					b = &Samples{}
				}
			}
			if err := r.Err(); err != nil {
				t.Fatal(err)
			}
			if b.Len() > 0 {
				batches = append(batches, b)
			}
			if got := r.Stats(); got != wantStats {
				t.Errorf("stats: deferred %+v, not %+v", got, wantStats)
			}
			got := make([][]string, len(want))
			var wg sync.WaitGroup
			for g := range 2 {
				fc := r.NewFrameCache()
				wg.Add(1)
				go func() {
					defer wg.Done()
					for bi := g; bi < len(batches); bi += 2 {
						b := batches[bi]
						for i := range b.Len() {
							var fs []string
							for _, n := range fc.Chain(b, i) {
								f := fc.Frame(n)
								fs = append(fs, frameText(f.Addr, f.Symbol, f.DSO))
							}
							got[bi*7+i] = fs
						}
					}
				}()
			}
			wg.Wait()
			total := 0
			for _, b := range batches {
				total += b.Len()
			}
			if total != len(want) {
				t.Fatalf("%d samples deferred, %d read", total, len(want))
			}
			bad := 0
			for i := range want {
				if fmt.Sprint(got[i]) != fmt.Sprint(want[i]) {
					if bad++; bad <= 3 {
						t.Errorf("sample %d: deferred frames\n%q\nnot\n%q", i, got[i], want[i])
					}
				}
			}
			if bad > 0 {
				t.Errorf("%d of %d samples differ", bad, len(want))
			}
		})
	}
}

// TestDeferredRunsKeepTheirMaps checks that a FrameCache takes the frames
// of a run from the last one only when they were looked up in the same
// maps: two threads, then the same thread once its maps changed, with the
// same addresses in other files.
func TestDeferredRunsKeepTheirMaps(t *testing.T) {
	r := &Reader{opt: Options{}, fi: &fileInfo{}}
	maps := func(name string) []mapping {
		d := &dso{name: []byte(name), path: name, kind: dsoNone}
		return []mapping{{start: 0x1000, end: 0x9000, dso: d, identity: true}}
	}
	w := &world{}
	a, b := maps("/a"), maps("/b")
	// Threads whose (maps, thread) share a slot of the cache: 1 and t2
	// with a, t3 with b.
	t2, t3 := int32(0), int32(0)
	for t := int32(2); t < 1<<20 && (t2 == 0 || t3 == 0); t++ {
		if t2 == 0 && userSlot(&a[0], t) == userSlot(&a[0], 1) {
			t2 = t
		}
		if t3 == 0 && userSlot(&b[0], t) == userSlot(&a[0], 1) {
			t3 = t
		}
	}
	chain := []uint64{contextUser, 0x1010, 0x2020, 0x3030}
	cases := []struct {
		user   []mapping
		thread int32
		want   string
	}{
		{a, 1, "/a"}, {a, 1, "/a"}, {b, 1, "/b"}, {a, 1, "/a"}, {b, t3, "/b"}, {a, t2, "/a"}, {b, t3, "/b"}, {a, 1, "/a"},
	}
	var s Samples
	for _, c := range cases {
		start := uint32(len(s.ips))
		s.ips = append(s.ips, chain...)
		h := keptHead{chain: [2]uint32{start, uint32(len(s.ips))}}
		h.user, h.w, h.loadAt, h.thread = c.user, w, -1, c.thread
		s.heads = append(s.heads, h)
	}
	fc := r.NewFrameCache()
	for i, c := range cases {
		ns := fc.Chain(&s, i)
		if len(ns) != 3 {
			t.Fatalf("sample %d: %d frames, not 3", i, len(ns))
		}
		for _, n := range ns {
			if got := string(fc.Frame(n).DSO); got != c.want {
				t.Errorf("sample %d: a frame of %s, not %s", i, got, c.want)
			}
		}
	}
}

// TestDeferredKernelRuns checks that kernel runs are taken from the last
// one only under the same kernel maps (world).
func TestDeferredKernelRuns(t *testing.T) {
	r := &Reader{opt: Options{}, fi: &fileInfo{}}
	mk := func(name string) *world {
		d := &dso{name: []byte(name), path: name, kind: dsoNone}
		return &world{kmaps: []mapping{{start: 0xffff0000, end: 0xffff9000, dso: d, identity: true}}}
	}
	x, y := mk("[x]"), mk("[y]")
	chain := []uint64{contextKernel, 0xffff1010, 0xffff2020}
	cases := []struct {
		w    *world
		want string
	}{{x, "[x]"}, {x, "[x]"}, {y, "[y]"}, {x, "[x]"}}
	var s Samples
	for _, c := range cases {
		start := uint32(len(s.ips))
		s.ips = append(s.ips, chain...)
		h := keptHead{chain: [2]uint32{start, uint32(len(s.ips))}}
		h.w, h.loadAt = c.w, -1
		s.heads = append(s.heads, h)
	}
	fc := r.NewFrameCache()
	for i, c := range cases {
		ns := fc.Chain(&s, i)
		if len(ns) != 2 {
			t.Fatalf("sample %d: %d frames, not 2", i, len(ns))
		}
		for _, n := range ns {
			if got := string(fc.Frame(n).DSO); got != c.want {
				t.Errorf("sample %d: a frame of %s, not %s", i, got, c.want)
			}
		}
	}
}

// TestMapFinder checks that a mapFinder finds what findIn finds, on lists
// of maps with gaps, adjacent maps and maps that overlap (the kernel's map
// once its range is set from its symbols may reach over modules'), for
// addresses that stay in one map, move on, go back and fall between maps.
func TestMapFinder(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for round := range 500 {
		var l []mapping
		at := uint64(rng.IntN(4))
		for range rng.IntN(12) {
			start := at + uint64(rng.IntN(3)) // a gap, or none
			end := start + 1 + uint64(rng.IntN(6))
			if rng.IntN(8) == 0 {
				end += 20 // over the next maps
			}
			l = append(l, mapping{start: start, end: end})
			at = start + 1 + uint64(rng.IntN(6))
		}
		f := mapFinder{l: l, last: -1}
		for k := range 200 {
			addr := uint64(rng.IntN(int(at) + 8))
			if k > 0 && rng.IntN(2) == 0 && f.last >= 0 {
				addr = l[f.last].start + uint64(rng.IntN(3)) // near the last one
			}
			var got *mapping
			if i := f.index(addr); i >= 0 {
				got = &l[i]
			}
			if want := findIn(l, addr); got != want {
				t.Fatalf("round %d: maps %v: index(%d) gives %v, findIn %v", round, l, addr, got, want)
			}
		}
	}
}

// TestDecodeU64s checks both ways of decoding a call chain: the copy of a
// little-endian machine and the loop of the others.
func TestDecodeU64s(t *testing.T) {
	src := []byte{1, 2, 3, 4, 5, 6, 7, 8, 0x80, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 9}
	want := []uint64{0x0807060504030201, contextKernel}
	native := nativeLE
	defer func() { nativeLE = native }()
	for _, le := range []bool{native, false} {
		nativeLE = le
		got := make([]uint64, 2)
		decodeU64s(got, src)
		if got[0] != want[0] || got[1] != want[1] {
			t.Errorf("native little-endian %v: %#x, not %#x", le, got, want)
		}
		decodeU64s(nil, nil)
	}
}

// TestCommonSuffix checks the count of addresses two runs end with.
func TestCommonSuffix(t *testing.T) {
	for _, c := range []struct {
		a, b []uint64
		want int
	}{
		{nil, nil, 0},
		{[]uint64{1}, nil, 0},
		{[]uint64{1, 2, 3}, []uint64{1, 2, 3}, 3},
		{[]uint64{9, 2, 3}, []uint64{1, 2, 3}, 2},
		{[]uint64{2, 3}, []uint64{7, 1, 2, 3}, 2},
		{[]uint64{5, 1, 2, 3}, []uint64{2, 3}, 2},
		{[]uint64{1, 2, 3}, []uint64{1, 2, 4}, 0},
		{[]uint64{3, 3, 3}, []uint64{3, 3}, 2},
	} {
		if got := commonSuffix(c.a, c.b); got != c.want {
			t.Errorf("commonSuffix(%v, %v) = %d, not %d", c.a, c.b, got, c.want)
		}
	}
}

// TestSharedIndex adds keys to a sharedIndex from several goroutines at
// once, as FrameCaches do (find without a lock; under the key's shard
// lock, find again, then add), across several growths from the smallest
// table: every key is added once, and found afterwards with its location,
// odd tags (a printed address that is not the DSO's) told apart by the
// location's address.
func TestSharedIndex(t *testing.T) {
	const perG, goroutines = 5000, 3
	var x sharedIndex
	x.init(0) // 4,096 entries: grows to 32,768
	locs := make([]location, perG*goroutines)
	at := func(i uint32) *location { return &locs[i] }
	var next sync.Mutex
	n := uint32(0)
	key := func(i int) (uint32, uint64, uint64) {
		if i%5 == 0 {
			// Odd: keyed by the printed address, which two keys
			// (i and i+5) share, their DSO addresses apart.
			return 1 | oddTag, uint64(i/10) * 16, uint64(i)*16 + 1
		}
		tag := uint32(1 + i%7)
		addr := uint64(i/7) * 16
		return tag, addr, addr
	}
	lookup := func(i int) uint32 {
		tag, k, addr := key(i)
		t := x.table.Load()
		if loc, ok := t.find(t.first(tag, k), tag, k, addr, at); ok {
			return loc
		}
		mu := x.shard(tag, k)
		mu.Lock()
		defer mu.Unlock()
		t = x.table.Load()
		if loc, ok := t.find(t.first(tag, k), tag, k, addr, at); ok {
			return loc
		}
		next.Lock()
		loc := n
		n++
		next.Unlock()
		locs[loc].addr = addr
		x.add(tag, k, loc)
		return loc
	}
	got := make([][]uint32, goroutines)
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Each goroutine asks every key, in its own order.
			for j := range perG * goroutines {
				i := (j*(g+1)*7919 + g) % (perG * goroutines)
				got[g] = append(got[g], uint32(i), lookup(i))
			}
		}()
	}
	wg.Wait()
	if int(n) != perG*goroutines {
		t.Fatalf("%d locations made for %d keys", n, perG*goroutines)
	}
	if l := len(x.table.Load().entries); l != 1<<15 {
		t.Errorf("table of %d entries for %d keys, want %d", l, n, 1<<15)
	}
	want := make(map[uint32]uint32)
	for g := range got {
		for j := 0; j < len(got[g]); j += 2 {
			i, loc := got[g][j], got[g][j+1]
			if w, ok := want[i]; ok && w != loc {
				t.Fatalf("key %d: locations %d and %d", i, w, loc)
			}
			want[i] = loc
		}
	}
	for i, loc := range want {
		if l := lookup(int(i)); l != loc {
			t.Errorf("key %d: found %d, made %d", i, l, loc)
		}
	}
}
