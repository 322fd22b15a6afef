package collapse

import (
	"bytes"

	"flamekit/pkg/folded"
	"flamekit/pkg/perf/sample"
)

// This file carries the addresses of a sample's frames to its timed
// record (Options.Addresses): the worker folds the stack frame by frame,
// with the rules every stack is folded with, and notes how many frames
// of the stack each address gave; the batch keeps them beside the record
// until it is given out.

// AddChainAddrs is AddChain for a sample whose frames have the addresses
// a (the input's reader found them: one AddrFrame per number of chain,
// in its order). With Options.Addresses its timed record carries them
// (folded.Record.Addrs), with the number of frames of the stack each
// gave; a is not kept.
func (k *Sink) AddChainAddrs(s *sample.Sample, chain []uint32, fs Frames, a *folded.Addrs) {
	if !k.w.st.opt.Addresses || len(a.Frames) != len(chain) {
		k.AddChain(s, chain, fs)
		return
	}
	k.w.addrs = a
	k.AddChain(s, chain, fs)
	k.w.addrs = nil
}

// foldAddrs is foldStackTo for a sample with addresses (w.addrs): the
// same stack, appended one frame at a time, each frame's address told
// how many frames of the stack it gave (their ';').
func (w *worker) foldAddrs(dst []byte, s *sample.Sample) []byte {
	f := &w.fold
	a := w.addrs
	dst, j := f.root(dst, s)
	java := j == 1
	if w.fs != nil {
		f.chainJ = j
		for i := len(w.chain) - 1; i >= 0; i-- {
			mark := len(dst)
			dst = f.appendPieces(dst, w.chain[i:i+1], w.fs, j)
			a.Frames[i].Names = int32(bytes.Count(dst[mark:], []byte{';'}))
		}
		return dst
	}
	for i := len(s.Frames) - 1; i >= 0; i-- {
		mark := len(dst)
		dst = f.frame(dst, &s.Frames[i], java)
		if i < len(a.Frames) {
			a.Frames[i].Names = int32(bytes.Count(dst[mark:], []byte{';'}))
		}
	}
	return dst
}

// batchAddrs are the addresses of the records of a batch (batch.recs):
// one span per record, empty for those without.
type batchAddrs struct {
	frames []folded.AddrFrame
	maps   []folded.Mapping
	spans  []addrSpan
}

// addrSpan is where the addresses of one record are in a batchAddrs.
type addrSpan struct {
	frames, maps [2]int32
	has          bool
}

// reset empties b, keeping its memory.
func (b batchAddrs) reset() batchAddrs {
	return batchAddrs{frames: b.frames[:0], maps: b.maps[:0], spans: b.spans[:0]}
}

// add adds the addresses of the next record (nil: none).
func (b *batchAddrs) add(a *folded.Addrs) {
	if a == nil {
		b.spans = append(b.spans, addrSpan{})
		return
	}
	sp := addrSpan{has: true}
	sp.frames[0], sp.maps[0] = int32(len(b.frames)), int32(len(b.maps))
	b.frames = append(b.frames, a.Frames...)
	b.maps = append(b.maps, a.Maps...)
	sp.frames[1], sp.maps[1] = int32(len(b.frames)), int32(len(b.maps))
	b.spans = append(b.spans, sp)
}

// at returns the addresses of record i in a (its slices shared with b),
// or nil when it has none.
func (b *batchAddrs) at(i int, a *folded.Addrs) *folded.Addrs {
	if i >= len(b.spans) || !b.spans[i].has {
		return nil
	}
	sp := b.spans[i]
	a.Frames = b.frames[sp.frames[0]:sp.frames[1]:sp.frames[1]]
	a.Maps = b.maps[sp.maps[0]:sp.maps[1]:sp.maps[1]]
	return a
}
