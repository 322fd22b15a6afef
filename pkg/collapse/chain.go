package collapse

import (
	"bytes"

	"flamekit/pkg/sample"
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
	pid, tid := ids(s)
	start := len(dst)
	dst = appendRoot(dst, f.opt, s.Comm, pid, tid)
	j := 0
	if bytes.HasPrefix(dst[start:], []byte("java")) {
		j = 1
	}
	f.chainJ = j
	for i := len(chain) - 1; i >= 0; i-- {
		if p := f.chainPiece(chain[i], fs, j); p != pieceEmpty {
			r := f.local[p]
			dst = append(dst, f.localText[r.start:r.end]...)
		}
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
	if !w.st.keys.add(key, h, weight) { // an idle CPU's stack, with --no-idle
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
	pid, tid := ids(s)
	root := appendRoot(w.stack[:0], w.fold.opt, s.Comm, pid, tid)
	w.stack = root
	id, ok := w.roots[string(root)]
	if !ok {
		id = w.st.keys.pieces.intern(root)
		if w.roots == nil {
			w.roots = make(map[string]uint32)
		}
		w.roots[string(root)] = id
	}
	j := 0
	if bytes.HasPrefix(root, []byte("java")) {
		j = 1
	}
	return append(w.key[:0], id), keyHash(keySeed, id), j
}

// chainPiece returns the number of the piece frame number n of fs gives
// (see pieceOf), from f.pieces once known.
func (f *folder) chainPiece(n uint32, fs Frames, j int) uint32 {
	if tab := f.pieces[j]; int(n) < len(tab) {
		if v := tab[n]; v != pieceUnknown {
			return v & pieceMask
		}
	}
	return f.pieceOf(n, fs, j)
}

// chainClass returns the class (symbol check) of frame number n of fs, in
// the stack folded last (f.chainJ), from f.pieces once known: the entry
// its fold just read, rather than a table of its own.
func (f *folder) chainClass(n uint32, fs Frames) frameClass {
	if tab := f.pieces[f.chainJ]; int(n) < len(tab) {
		if v := tab[n]; v != pieceUnknown {
			return frameClass(v >> pieceBits)
		}
	}
	return classOf(fs.Frame(n))
}

// pieceBits is how many low bits of an entry of f.pieces hold the piece;
// the high bits hold the frame's class (symbol check).
const (
	pieceBits = 28
	pieceMask = 1<<pieceBits - 1
)

// pieceOf returns the number (pieceTable) of the piece frame number n
// of fs gives a stack whose root starts with "java" (j 1) or not (j 0),
// the rules run for it, and keeps it in f.pieces with the frame's class
// (but for frame numbers past 2^26 or pieces past 2^28), its text in
// f.localText.
func (f *folder) pieceOf(n uint32, fs Frames, j int) uint32 {
	fr := fs.Frame(n)
	f.buf = f.frameRules(f.buf[:0], fr, j == 1)
	p := uint32(pieceEmpty)
	if len(f.buf) > 0 {
		p = f.table.intern(f.buf)
		if int(p) >= len(f.local) {
			f.local = append(f.local, make([]localPiece, max(int(p)+1, 2*len(f.local), 1024)-len(f.local))...)
		}
		if r := &f.local[p]; r.end == 0 {
			r.start = uint32(len(f.localText))
			f.localText = append(f.localText, f.buf...)
			r.end = uint32(len(f.localText))
		}
	}
	tab := &f.pieces[j]
	if int(n) >= len(*tab) {
		if n >= 1<<26 || p > pieceMask {
			return p
		}
		m := max(int(n)+1, 2*len(*tab), 1024)
		*tab = append(*tab, make([]uint32, m-len(*tab))...)
	}
	if p > pieceMask {
		return p
	}
	(*tab)[n] = p | uint32(classOf(fr))<<pieceBits
	return p
}
