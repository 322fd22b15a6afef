package collapse

import (
	"sync/atomic"

	"flamekit/internal/base/hugepage"
	"flamekit/pkg/perf/sample"
)

// Frames is a reader's table of the distinct frames of one input, which
// its samples name by number (Sink.AddChain): the perf.data reader
// resolves and formats each distinct frame once, and a sample is the
// list of its frames' numbers. The worker then derives what a frame
// gives the folded stack once per number, and never copies a frame.
type Frames interface {
	// Frame returns frame n, not to be written. Equal numbers are
	// equal frames throughout the input; it is called from the worker
	// goroutines at once.
	Frame(n uint32) *sample.Frame
}

// AddChain folds s, whose frames are those of fs numbered chain, leaf
// first (s.Frames is not read, and may be overwritten). The sample, the
// chain and the frames are not kept.
//
// Such a sample (the perf.data reader's deferred frames) is folded without
// a frame copied, each number named once per worker as the number of a
// piece of text shared by the workers. Its classic sums go by key, the
// numbers of its root and pieces: the text of each distinct stack is made
// once, as it is written (see keysums.go). Frames that carry an ID
// (sample.Frame.ID) are likewise named once per ID and worker; the classic
// sums of other samples hash each stack from the hashes of its frames'
// names, and a worker adds the weights of nearby equal stacks before the
// shared table.
func (k *Sink) AddChain(s *sample.Sample, chain []uint32, fs Frames) {
	k.w.foldChain(k.b, s, chain, fs)
}

// foldChain is foldSample for a sample given as frame numbers. The plain
// on-CPU samples of a run without --inline or --srcline fold through the
// frames' numbers; the others are made into frames, then foldSample.
func (w *worker) foldChain(b *batch, s *sample.Sample, chain []uint32, fs Frames) {
	opt := &w.st.opt
	if w.kindOf(b, s.Event) != kindPlain || w.st.offCPU || opt.Inline || opt.Srcline {
		frames := s.Frames[:0]
		for _, n := range chain {
			frames = append(frames, *fs.Frame(n))
		}
		s.Frames = frames
		w.foldSample(b, s)
		return
	}
	s.Frames = s.Frames[:0]
	w.chain, w.fs = chain, fs
	w.foldSample(b, s)
	w.chain, w.fs = nil, nil
}

// foldStack folds the stack of s (or of w.chain when set) into w.stack.
func (w *worker) foldStack(s *sample.Sample) []byte {
	w.stack = w.foldStackTo(w.stack[:0], s)
	return w.stack
}

// foldStackTo appends the folded stack of s (or of w.chain when set) to
// dst.
func (w *worker) foldStackTo(dst []byte, s *sample.Sample) []byte {
	if w.addrs != nil {
		return w.foldAddrs(dst, s) // addrs.go
	}
	if w.fs != nil {
		return w.fold.foldChain(dst, s, w.chain, w.fs)
	}
	return w.fold.fold(dst, s)
}

// countSymbols counts the frames of s (or of w.chain when set) for the
// symbol check.
func (w *worker) countSymbols(b *batch, s *sample.Sample) {
	if fs := w.fs; fs != nil {
		chain := w.chain
		f := &w.fold
		b.sym.countAt(s.Comm, len(chain), func(i int) *sample.Frame { return fs.Frame(chain[i]) },
			func(i int) frameClass { return f.chainClass(chain[i], fs) })
		return
	}
	b.sym.count(s.Comm, s.Frames)
}

// foldChain is fold for frames given by number: the piece a number's
// frame gives is found once per number (and whether the comm starts
// with "java"), then copied. It leaves f.h alone: the classic sums of
// chains go by key (sumChain), and timed lines need no hash.
func (f *folder) foldChain(dst []byte, s *sample.Sample, chain []uint32, fs Frames) []byte {
	dst, j := f.root(dst, s)
	f.chainJ = j
	return f.appendPieces(dst, chain, fs, j)
}

// appendPieces appends the pieces the frames of chain give, outermost
// (last) first, under java rule j: chainPiece and the piece's text, by
// hand (this is the loop of each frame of each timed line).
func (f *folder) appendPieces(dst []byte, chain []uint32, fs Frames, j int) []byte {
	m := f.chains
	for i := len(chain) - 1; i >= 0; i-- {
		n := chain[i]
		p := m.load(j, n) & pieceMask
		if p == pieceUnknown {
			p = f.pieceOf(n, fs, j)
		}
		if p == pieceEmpty {
			continue
		}
		if int(p) < len(f.local) {
			if r := f.local[p]; r.end != 0 {
				dst = append(dst, f.localText[r.start:r.end]...)
				continue
			}
		}
		dst = append(dst, f.learnText(p)...)
	}
	return dst
}

// sumChain adds a plain on-CPU sample given as w.chain, of weight weight,
// to the classic sums: by key, its text made once per distinct stack at
// the end (see keysums.go).
func (w *worker) sumChain(b *batch, s *sample.Sample, weight int64) {
	key, h := w.chainKey(s)
	w.sumKey(b, s, key, h, weight)
}

// sumFrames is sumChain for a sample given as frame lines (perf script
// text): its key is made of the pieces its frames give, each found
// through the memo that folds them into text.
func (w *worker) sumFrames(b *batch, s *sample.Sample, weight int64) {
	key, h, j := w.rootKey(s)
	for i := len(s.Frames) - 1; i >= 0; i-- {
		p := w.fold.framePiece(&s.Frames[i], j == 1)
		if p == pieceEmpty {
			continue
		}
		key = append(key, p)
		h = keyHash(h, p)
	}
	w.key = key
	w.sumKey(b, s, key, h, weight)
}

// sumKey adds a plain on-CPU sample, whose stack is key (of hash h), of
// weight weight, to the classic sums.
func (w *worker) sumKey(b *batch, s *sample.Sample, key []uint32, h uint64, weight int64) {
	if !w.keyc.add(w.st.keys, key, h, weight) { // an idle CPU's stack, with --no-idle
		b.events.add(s.Event, false)
		return
	}
	b.events.add(s.Event, true)
	if symSampled(s) {
		w.countSymbols(b, s)
	}
	b.samples++
	b.weight = addSat(b.weight, weight)
}

// chainKey returns the key of the stack of s, given as w.chain: the
// number of its root frame, then those of its frames' pieces, outermost
// first, empty pieces left out; and its hash (keyHash).
func (w *worker) chainKey(s *sample.Sample) ([]uint32, uint64) {
	key, h, j := w.rootKey(s)
	w.fold.chainJ = j
	for i := len(w.chain) - 1; i >= 0; i-- {
		p := w.fold.chainPiece(w.chain[i], w.fs, j)
		if p == pieceEmpty {
			continue
		}
		key = append(key, p)
		h = keyHash(h, p)
	}
	w.key = key
	return key, h
}

// rootKey starts the key of the stack of s in w.key: the number of its
// root frame; it returns the key, its hash, and 1 when the root starts
// with "java" (the Java naming rules apply), else 0.
func (w *worker) rootKey(s *sample.Sample) ([]uint32, uint64, int) {
	root, j := w.fold.root(w.stack[:0], s)
	w.stack = root
	id, ok := w.roots[string(root)]
	if !ok {
		id = w.st.keys.pieces.intern(root)
		if w.roots == nil {
			w.roots = make(map[string]uint32)
		}
		w.roots[string(root)] = id
	}
	return append(w.key[:0], id), keyHash(keySeed, id), j
}

// chainPiece returns the number of the piece frame number n of fs gives
// (see pieceOf), from the input's memo once known.
func (f *folder) chainPiece(n uint32, fs Frames, j int) uint32 {
	if v := f.chains.load(j, n); v != pieceUnknown {
		return v & pieceMask
	}
	return f.pieceOf(n, fs, j)
}

// chainClass returns the class (symbol check) of frame number n of fs, in
// the stack folded last (f.chainJ), from the input's memo once known: the
// entry its fold just read, rather than a table of its own.
func (f *folder) chainClass(n uint32, fs Frames) frameClass {
	if v := f.chains.load(f.chainJ, n); v != pieceUnknown {
		return frameClass(v >> pieceBits)
	}
	return classOf(fs.Frame(n))
}

// pieceBits is how many low bits of an entry of a chainMemo hold the
// piece; the high bits hold the frame's class (symbol check).
const (
	pieceBits = 28
	pieceMask = 1<<pieceBits - 1
)

// pieceOf returns the number (pieceTable) of the piece frame number n
// of fs gives a stack whose root starts with "java" (j 1) or not (j 0),
// the rules run for it, and keeps it in the input's memo with the
// frame's class (but for frame numbers past 2^26 or pieces past 2^28),
// its text in f.localText.
func (f *folder) pieceOf(n uint32, fs Frames, j int) uint32 {
	fr := fs.Frame(n)
	f.buf = f.frameRules(f.buf[:0], fr, j == 1)
	p := uint32(pieceEmpty)
	if len(f.buf) > 0 {
		p = f.table.intern(f.buf)
		if r := f.localPiece(p); r.end == 0 {
			r.start = uint32(len(f.localText))
			f.localText = append(hugepage.Grow(f.localText, len(f.buf)), f.buf...)
			r.end = uint32(len(f.localText))
		}
	}
	if p <= pieceMask {
		f.chains.store(j, n, p|uint32(classOf(fr))<<pieceBits)
	}
	return p
}

// localPiece returns where the text of piece p is in f.localText (end 0:
// not there yet), f.local grown to hold it.
func (f *folder) localPiece(p uint32) *localPiece {
	if int(p) >= len(f.local) {
		f.local = append(f.local, make([]localPiece, max(int(p)+1, 2*len(f.local), 1024)-len(f.local))...)
	}
	return &f.local[p]
}

// learnText returns the text of piece p, not in f.localText yet (another
// worker's fold made the memo entry that named it): copied there from
// the pieceTable, once per piece and worker.
func (f *folder) learnText(p uint32) []byte {
	r := f.localPiece(p)
	r.start = uint32(len(f.localText))
	f.localText = f.table.appendText(hugepage.Grow(f.localText, 256), []uint32{p})
	r.end = uint32(len(f.localText))
	return f.localText[r.start:r.end]
}

// chainMemo is what the frames of one input's reader give a stack, by
// frame number, shared by the workers that fold the input's samples: an
// entry holds the number of the piece (pieceTable) a frame gives a stack
// whose root starts with "java" or not, and the frame's class (symbol
// check) above pieceBits; 0 (pieceUnknown) while no worker made it. A
// frame's rules thus run once per input, not once per worker. Two
// workers may make one entry at once: they store the same value, the
// pieceTable's numbers being the same for all. Its blocks are made as
// frame numbers reach them.
type chainMemo struct {
	blocks [2][memoBlocks]atomic.Pointer[memoBlock]
}

// A chainMemo keeps frame numbers below 2^26, in blocks of
// 2^memoBlockBits entries.
const (
	memoBlockBits = 14
	memoBlocks    = 1 << (26 - memoBlockBits)
)

type memoBlock [1 << memoBlockBits]atomic.Uint32

// load returns the entry of frame number n for java rule j, 0 when not
// known.
func (m *chainMemo) load(j int, n uint32) uint32 {
	if n >= memoBlocks<<memoBlockBits {
		return pieceUnknown
	}
	if b := m.blocks[j][n>>memoBlockBits].Load(); b != nil {
		return b[n&(1<<memoBlockBits-1)].Load()
	}
	return pieceUnknown
}

// store sets the entry of frame number n for java rule j to v (nothing
// for numbers too large to keep).
func (m *chainMemo) store(j int, n, v uint32) {
	if n >= memoBlocks<<memoBlockBits {
		return
	}
	bp := &m.blocks[j][n>>memoBlockBits]
	b := bp.Load()
	if b == nil {
		b = new(memoBlock)
		if !bp.CompareAndSwap(nil, b) {
			b = bp.Load()
		}
	}
	b[n&(1<<memoBlockBits-1)].Store(v)
}
