package flamegraph

import (
	"iter"

	"flamekit/pkg/folded"
)

// readStacks reads every record of recs into a Profile. One goroutine
// reads the input while this one sums the stacks: the records are
// passed in batches, their stacks copied into the batch's buffer.
func readStacks(recs iter.Seq[*folded.Record], sizeHint int64) *folded.Profile {
	set := &folded.Profile{HintBytes: sizeHint}
	type rec struct {
		off, end      int
		count, before float64
		kind          folded.Kind
	}
	type batch struct {
		buf  []byte
		recs []rec
	}
	const batchBytes = 256 << 10
	full := make(chan *batch, 2)
	free := make(chan *batch, 3)
	for range 3 {
		free <- &batch{buf: make([]byte, 0, batchBytes+4096), recs: make([]rec, 0, 1024)}
	}
	go func() {
		defer close(full)
		b := <-free
		for r := range recs {
			off := len(b.buf)
			b.buf = append(b.buf, r.Stack...)
			b.recs = append(b.recs, rec{off, len(b.buf), r.Count, r.Before, r.Kind})
			if len(b.buf) >= batchBytes {
				full <- b
				b = <-free
				b.buf, b.recs = b.buf[:0], b.recs[:0]
			}
		}
		full <- b
	}()
	var r folded.Record
	for b := range full {
		for i := range b.recs {
			x := &b.recs[i]
			r.Stack, r.Count, r.Before, r.Kind = b.buf[x.off:x.end], x.count, x.before, x.kind
			set.Add(&r)
		}
		free <- b
	}
	return set
}
