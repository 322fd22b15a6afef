package collapse

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"flamekit/pkg/perf/sample"
)

// chainFrames is a Frames held in memory: frame n is chainFrames[n].
type chainFrames []sample.Frame

func (f chainFrames) Frame(n uint32) *sample.Frame { return &f[n] }

// chainSample is a sample whose frames are given as numbers of a
// chainFrames, leaf first.
type chainSample struct {
	s     sample.Sample
	chain []uint32
}

// chainProducer serves samples as chains (Sink.AddChain), as the perf.data
// reader does, in chunks of size samples.
type chainProducer struct {
	fs   chainFrames
	rest []chainSample
	size int
}

type chainChunk struct {
	fs      chainFrames
	samples []chainSample
}

func (c chainChunk) Fold(k *Sink) {
	for i := range c.samples {
		s := c.samples[i].s
		s.Frames = nil // AddChain may write it
		k.AddChain(&s, c.samples[i].chain, c.fs)
	}
}

func (chainChunk) Done() {}

func (p *chainProducer) Next(pre *Prescan) (Chunk, error) {
	if len(p.rest) == 0 {
		return nil, nil
	}
	n := min(p.size, len(p.rest))
	for i := 0; i < n && pre.Wanted(); i++ {
		if !pre.See(&p.rest[i].s) {
			n = i
			break
		}
	}
	c := chainChunk{p.fs, p.rest[:n:n]}
	p.rest = p.rest[n:]
	return c, nil
}

func (p *chainProducer) Capture() *sample.Capture { return &sample.Capture{} }
func (p *chainProducer) Close() error             { return nil }

// runChain folds samples given as chains of fs, with workers workers and
// chunks of size samples.
func runChain(t testing.TB, opt Options, workers, size int, fs chainFrames, samples []chainSample) result {
	t.Helper()
	var out, stderr strings.Builder
	d := &Driver{Options: opt, Workers: workers}
	d.Warnf = func(f string, a ...any) { fmt.Fprintf(&stderr, "stackcollapse: "+f+"\n", a...) }
	in := Input{Name: "chains", Open: func() (Producer, error) {
		return &chainProducer{fs: fs, rest: samples, size: size}, nil
	}}
	sum, err := d.Run(&out, []Input{in})
	return result{out.String(), stderr.String(), sum, err}
}

// withFrames returns the samples with their frames copied from fs, as
// the Sink.Add route takes them.
func withFrames(fs chainFrames, samples []chainSample) []sample.Sample {
	out := make([]sample.Sample, len(samples))
	for i, c := range samples {
		out[i] = c.s
		out[i].Frames = nil
		for _, n := range c.chain {
			out[i].Frames = append(out[i].Frames, fs[n])
		}
	}
	return out
}

// chainTestFrames are frames of which several give one piece of text, or
// none, or pieces whose sequences give one text.
var chainTestFrames = chainFrames{
	0:  {Addr: []byte("1000"), Symbol: []byte("a->b"), DSO: []byte("/bin/x")}, // ";a;b_[i]"
	1:  {Addr: []byte("1010"), Symbol: []byte("a"), DSO: []byte("/bin/x")},
	2:  {Addr: []byte("1020"), Symbol: []byte("b_[i]"), DSO: []byte("/bin/x")},
	3:  {Addr: []byte("1030"), Symbol: []byte("c+0x10"), DSO: []byte("/bin/x")},
	4:  {Addr: []byte("1040"), Symbol: []byte("c+0x24"), DSO: []byte("/bin/x")}, // ";c" as 3
	5:  {Addr: []byte("1050"), Symbol: []byte("(dropped)"), DSO: []byte("/bin/x")},
	6:  {Addr: []byte("ffff1"), Symbol: []byte("do_idle"), DSO: []byte("[kernel.kallsyms]")},
	7:  {Addr: []byte("ffff2"), Symbol: []byte("default_idle+0x4"), DSO: []byte("[kernel.kallsyms]")},
	8:  {Addr: []byte("ffff3"), Symbol: []byte("__irq_exit_rcu"), DSO: []byte("[kernel.kallsyms]")},
	9:  {Addr: []byte("2000"), Symbol: []byte("[unknown]"), DSO: []byte("/usr/lib/libz.so")},
	10: {Addr: []byte("2008"), Symbol: []byte("[unknown]"), DSO: []byte("/usr/lib/libz.so")},
	11: {Addr: []byte("3000"), Symbol: []byte("Lcom/x/Y:::run"), DSO: []byte("/tmp/perf-7.map")},
	12: {Addr: []byte("4000"), Symbol: []byte("[unknown]"), DSO: []byte("[unknown]")},
}

// chainTestSamples are samples of chainTestFrames: comm, pid, tid,
// period, frames leaf first.
func chainTestSamples() []chainSample {
	mk := func(comm, pid, tid string, period int64, chain ...uint32) chainSample {
		s := sample.Sample{Comm: []byte(comm), PID: []byte(pid), TID: []byte(tid), CPU: -1,
			Event: []byte("cpu-clock:ppp"), Period: period, HasPeriod: period != 0, Payload: []byte("size=7")}
		return chainSample{s, chain}
	}
	return []chainSample{
		mk("x", "10", "10", 1, 3, 0),       // x;a;b_[i];c
		mk("x", "10", "11", 2, 3, 2, 1),    // the same text from other pieces
		mk("x", "10", "11", 4, 4, 2, 5, 1), // again: another address of c, a dropped frame
		mk("x", "12", "12", 8, 5, 4),       // x;c
		mk("x y", "12", "12", 16, 4),       // x_y;c
		mk("swapper", "0", "0", 32, 7, 6),  // idle
		mk("swapper", "0", "0", 64, 8, 7, 6),
		mk("zip", "20", "20", 128, 9, 1),
		mk("zip", "20", "20", 256, 10, 1), // another address in libz
		mk("zip", "20", "20", 0, 12, 1),   // period 0 weighs 1
		mk("java", "30", "31", 512, 11, 1),
		mk("javac", "30", "31", 1024, 11),
		mk("bash", "40", "40", 2048, 11),
		mk("", "50", "50", 4096, 3),   // an empty comm: an empty root
		mk("x", "10", "10", 8192),     // no frames
		mk("swapper", "0", "0", 1, 6), // idle
	}
}

// TestChainSums: samples given as chains of frame numbers (the perf.data
// reader's route, summed by key in classic output) give what the same
// samples given as frames give, byte for byte, under every option that
// changes a stack's text, with any number of workers and any cut; and
// different chains of one text are summed into one line.
func TestChainSums(t *testing.T) {
	fs, samples := chainTestFrames, chainTestSamples()
	tests := []struct {
		name string
		opt  Options
		want string // classic output, when given
	}{
		{"classic", Options{}, `;c 4096
bash;Lcom/x/Y:::run 2048
java;a;com/x/Y:::run 512
javac;com/x/Y:::run 1024
swapper;do_idle 1
swapper;do_idle;default_idle 32
swapper;do_idle;default_idle;__irq_exit_rcu 64
x 8192
x;a;b_[i];c 7
x;c 8
x_y;c 16
zip;a;[libz.so] 384
zip;a;[unknown] 1
`},
		{"pid", Options{PID: true}, ""},
		{"tid", Options{TID: true}, ""},
		{"no-idle", Options{NoIdle: true}, `;c 4096
bash;Lcom/x/Y:::run 2048
java;a;com/x/Y:::run 512
javac;com/x/Y:::run 1024
swapper;do_idle;default_idle;__irq_exit_rcu 64
x 8192
x;a;b_[i];c 7
x;c 8
x_y;c 16
zip;a;[libz.so] 384
zip;a;[unknown] 1
`},
		{"no-idle pid", Options{NoIdle: true, PID: true}, ""},
		{"addrs kernel jit", Options{Addrs: true, Kernel: true, JIT: true}, ""},
		{"weight", Options{Weight: "size"}, ""},
		{"event filter", Options{EventFilter: "cpu-clock"}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.opt.NoTime = true
			want := run(t, tc.opt, withFrames(fs, samples)...)
			if want.err != nil {
				t.Fatal(want.err)
			}
			if tc.want != "" && want.out != tc.want {
				t.Errorf("frames route:\n%s\nwant:\n%s", want.out, tc.want)
			}
			for _, workers := range []int{1, 2, 3} {
				for _, size := range []int{1, 2, 5, 1024} {
					got := runChain(t, tc.opt, workers, size, fs, samples)
					if got.err != nil {
						t.Fatal(got.err)
					}
					if got.out != want.out || got.stderr != want.stderr || got.sum.Samples != want.sum.Samples || got.sum.Weight != want.sum.Weight {
						t.Fatalf("%d workers, chunks of %d: chains give\n%s%s(%d samples, weight %v)\nframes give\n%s%s(%d samples, weight %v)",
							workers, size, got.out, got.stderr, got.sum.Samples, got.sum.Weight, want.out, want.stderr, want.sum.Samples, want.sum.Weight)
					}
				}
			}
		})
	}
}

// TestPieceTable: the workers share one numbering of texts: equal texts
// interned by any of them, in any order, get one number, and a key gives
// back the text of its pieces.
func TestPieceTable(t *testing.T) {
	tests := []struct {
		name  string
		texts []string
	}{
		{"root and pieces", []string{"bash", ";main", ";a;b_[i]", ";main"}},
		{"empty root", []string{"", ";x", ""}},
		{"many", func() []string {
			var out []string
			for i := range 500 {
				out = append(out, fmt.Sprintf(";f%d", i%97))
			}
			return out
		}()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := newPieceTable()
			const workers = 4
			got := make([][]uint32, workers)
			var wg sync.WaitGroup
			for w := range workers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					texts := slices.Clone(tc.texts)
					if w%2 == 1 {
						slices.Reverse(texts)
					}
					ids := map[string]uint32{}
					for _, s := range texts {
						ids[s] = p.intern([]byte(s))
					}
					for _, s := range tc.texts {
						got[w] = append(got[w], ids[s])
					}
				}()
			}
			wg.Wait()
			for w := 1; w < workers; w++ {
				if !slices.Equal(got[w], got[0]) {
					t.Fatalf("worker %d numbers %v, worker 0 %v", w, got[w], got[0])
				}
			}
			for i, id := range got[0] {
				if id < firstPiece {
					t.Errorf("%q numbered %d, a number of no piece", tc.texts[i], id)
				}
				for j := range i {
					if (tc.texts[i] == tc.texts[j]) != (id == got[0][j]) {
						t.Errorf("%q is %d and %q is %d", tc.texts[i], id, tc.texts[j], got[0][j])
					}
				}
			}
			if text := string(p.appendText(nil, got[0])); text != strings.Join(tc.texts, "") {
				t.Errorf("text of the key %q, want %q", text, strings.Join(tc.texts, ""))
			}
		})
	}
}

// TestKeySums: keys are summed apart even when their hashes collide,
// through the tables' growth; idle keys are dropped and counted nowhere;
// two keys of one text are written as one line.
// keySumsAdd is one add of TestKeySums.
type keySumsAdd struct {
	key []string // the texts of its root and pieces
	h   uint64   // 0: keyHash
	n   int64
}

func TestKeySums(t *testing.T) {
	type add = keySumsAdd
	many := func() []add {
		var out []add
		for i := range 3000 {
			out = append(out, add{key: []string{"r", fmt.Sprintf(";f%d", i%1000)}, n: 1})
		}
		return out
	}
	tests := []struct {
		name   string
		noIdle bool
		adds   []add
		want   string // the output's first lines
	}{
		{"collisions", false, []add{
			{[]string{"a", ";b"}, 7, 1}, {[]string{"c", ";d"}, 7, 2}, {[]string{"a", ";b"}, 7, 3}, {[]string{"c"}, 7, 4},
		}, "a;b 4\nc 4\nc;d 2\n"},
		{"one text", false, []add{
			{[]string{"a", ";b;c"}, 0, 1}, {[]string{"a", ";b", ";c"}, 0, 2}, {[]string{"a", ";b;c"}, 0, 4},
		}, "a;b;c 7\n"},
		{"idle", true, []add{
			{[]string{"swapper", ";do_idle"}, 0, 1}, {[]string{"swapper", ";do_idle", ";sysvec_x"}, 0, 2}, {[]string{"swapper", ";do_idle"}, 0, 4},
		}, "swapper;do_idle;sysvec_x 2\n"},
		{"not idle", false, []add{
			{[]string{"swapper", ";do_idle"}, 0, 1}, {[]string{"swapper", ";do_idle"}, 0, 4},
		}, "swapper;do_idle 5\n"},
		{"zero weight", false, []add{{[]string{"a"}, 0, 0}}, "a 0\n"},
		{"growth", false, many(), "r;f0 3\nr;f1 3\nr;f10 3\n"},
	}
	// Each case is added to the table itself, and through a worker's
	// keyCache (keys of one hash share its slot: they leave it and come
	// back).
	for _, tc := range tests {
		for _, cached := range []bool{false, true} {
			testKeySums(t, tc.name, tc.noIdle, tc.adds, tc.want, cached)
		}
	}
}

func testKeySums(t *testing.T, name string, noIdle bool, adds []keySumsAdd, want string, cached bool) {
	if cached {
		name += "/cached"
	}
	t.Run(name, func(t *testing.T) {
		p := newPieceTable()
		k := newKeySums(p, noIdle)
		var c keyCache
		for _, a := range adds {
			var key []uint32
			h := keySeed
			for _, s := range a.key {
				id := p.intern([]byte(s))
				key = append(key, id)
				h = keyHash(h, id)
			}
			if a.h != 0 {
				h = a.h
			}
			idle := noIdle && strings.HasPrefix(a.key[0], "swapper") && len(a.key) == 2
			var got bool
			if cached {
				got = c.add(k, key, h, a.n)
			} else {
				got = k.add(key, h, a.n)
			}
			if got == idle {
				t.Errorf("add(%q) = %v", a.key, got)
			}
		}
		c.flush(k)
		var out strings.Builder
		if err := k.ordered().writeTo(&out, 1); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(out.String(), want) {
			t.Errorf("got:\n%s\nwant it to start with:\n%s", out.String(), want)
		}
		if strings.HasPrefix(name, "growth") && strings.Count(out.String(), "\n") != 1000 {
			t.Errorf("%d lines, want 1000", strings.Count(out.String(), "\n"))
		}
	})
}

// TestCompareKeys: keys compare as their texts do, before and after the
// texts are ranked, among pieces that start one another (";a", ";a;b",
// ";ab"), roots that do ("x", "x_y", ""), and keys that are the start of
// others.
func TestCompareKeys(t *testing.T) {
	tests := []struct {
		name   string
		roots  []string
		pieces []string
	}{
		{"prefixes", []string{"x", "x_y", ""}, []string{";a", ";a;b", ";ab", ";a_[k]", ";b", ";a;"}},
		{"no prefixes", []string{"bash", "java"}, []string{";main", ";run", ";Lcom/x/Y:::run"}},
		{"punctuation", []string{"a", "a-1/2", "a-1"}, []string{";!", ";+", ";~", ";f", ";f!"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := newPieceTable()
			var keys [][]uint32
			for _, r := range tc.roots {
				root := p.intern([]byte(r))
				keys = append(keys, []uint32{root})
				for _, a := range tc.pieces {
					pa := p.intern([]byte(a))
					keys = append(keys, []uint32{root, pa})
					for _, b := range tc.pieces {
						keys = append(keys, []uint32{root, pa, p.intern([]byte(b))})
					}
				}
			}
			for _, ranked := range []bool{false, true} {
				if ranked {
					p.rank()
				}
				for _, a := range keys {
					for _, b := range keys {
						ta, tb := p.appendText(nil, a), p.appendText(nil, b)
						if got, want := p.compareKeys(a, b), strings.Compare(string(ta), string(tb)); got != want {
							t.Fatalf("ranked %v: compareKeys(%q, %q) = %d, want %d", ranked, ta, tb, got, want)
						}
					}
				}
			}
		})
	}
}

// TestCompareKeysEnds: once ranked, keys compare as their texts where a
// key ends on a piece that starts others, some sorting before it
// (";f.isra", ";f!", ";f0") and some after (";fa", ";f_[k]"), and where
// the pieces hold no ';' but the one they start with, so that the ranks
// decide; and ordered() writes them in the order of their texts.
func TestCompareKeysEnds(t *testing.T) {
	roots := []string{"a", "a.b", "a!", "ab", ""}
	pieces := []string{";f", ";f.isra", ";f!", ";f0", ";fa", ";f_[k]", ";g", ";f.i"}
	p := newPieceTable()
	var keys [][]uint32
	var gen func(key []uint32, depth int)
	gen = func(key []uint32, depth int) {
		keys = append(keys, slices.Clone(key))
		if depth == 3 {
			return
		}
		for _, s := range pieces {
			gen(append(key, p.intern([]byte(s))), depth+1)
		}
	}
	for _, r := range roots {
		gen([]uint32{p.intern([]byte(r))}, 0)
	}
	p.rank()
	for _, a := range keys {
		for _, b := range keys {
			ta, tb := p.appendText(nil, a), p.appendText(nil, b)
			if got, want := p.compareKeys(a, b), strings.Compare(string(ta), string(tb)); got != want {
				t.Fatalf("compareKeys(%q, %q) = %d, want %d", ta, tb, got, want)
			}
		}
	}
	k := newKeySums(p, false)
	for _, key := range keys {
		k.add(key, hashKey(key), 1)
	}
	var out strings.Builder
	if err := k.ordered().writeTo(&out, 1); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != len(keys) || !slices.IsSorted(lines) {
		t.Errorf("%d lines (want %d), sorted: %v", len(lines), len(keys), slices.IsSorted(lines))
	}
}
