package flamegraph

import (
	"flamekit/pkg/folded"
	"flamekit/pkg/svg"
)

// stackSet sums counts per distinct stack, like folded.Profile, but
// without hashing while the input comes in strictly increasing order (as
// stackcollapse writes it): then every line is a new stack, and the
// layout can skip the sort too. The first line out of order moves it to a
// map, so memory still grows with distinct stacks, never with lines.
type stackSet struct {
	entries []folded.Entry
	index   map[string]int // nil while the input is strictly increasing
	// inOrder: the entries are in svg.CompareStacks order (bytewise order
	// differs only where a stack is a prefix of the next one).
	inOrder bool
	total   float64
	// sizeHint is the size of the input in bytes, when known; with the
	// stack bytes and lines read so far, it sizes the map.
	sizeHint     int64
	bytes, lines int64
}

func newStackSet() *stackSet { return &stackSet{inOrder: true} }

// mapSize guesses how many distinct stacks the input holds, from its
// size and the length of the stacks read so far, within limits: a map
// made that size is not grown again and again.
func (s *stackSet) mapSize() int {
	n := 2 * len(s.entries)
	if s.sizeHint > 0 && s.lines > 0 && s.bytes > 0 {
		if guess := s.sizeHint / (s.bytes/s.lines + 8); guess > int64(n) {
			n = int(min(guess, 1<<18))
		}
	}
	return n
}

func (s *stackSet) add(rec *folded.Record) {
	s.total += rec.Count
	i := -1
	if s.index == nil {
		n := len(s.entries)
		if n == 0 || s.entries[n-1].Stack < string(rec.Stack) {
			s.entries = append(s.entries, folded.Entry{Stack: string(rec.Stack)})
			if n > 0 && s.inOrder && svg.CompareStacks(s.entries[n-1].Stack, s.entries[n].Stack) >= 0 {
				s.inOrder = false
			}
			i = n
		} else {
			s.index = make(map[string]int, s.mapSize())
			for k := range s.entries {
				s.index[s.entries[k].Stack] = k
			}
			s.inOrder = false
		}
	}
	if i < 0 {
		var ok bool
		i, ok = s.index[string(rec.Stack)]
		if !ok {
			i = len(s.entries)
			st := string(rec.Stack)
			s.index[st] = i
			s.entries = append(s.entries, folded.Entry{Stack: st})
		}
	}
	e := &s.entries[i]
	e.Count += rec.Count
	if rec.Kind == folded.Diff {
		e.Before += rec.Before
		e.Diff = true
	}
}

// readStacks reads every record of fs into a stackSet. One goroutine
// parses the input while this one sums the stacks: the records are
// passed in batches, their stacks copied into the batch's buffer.
func readStacks(fs *folded.Files, sizeHint int64) *stackSet {
	set := newStackSet()
	set.sizeHint = sizeHint
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
		for fs.Next() {
			r := fs.Record()
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
		set.bytes += int64(len(b.buf))
		set.lines += int64(len(b.recs))
		for i := range b.recs {
			x := &b.recs[i]
			r.Stack, r.Count, r.Before, r.Kind = b.buf[x.off:x.end], x.count, x.before, x.kind
			set.add(&r)
		}
		free <- b
	}
	return set
}
