package perfdata

import (
	"slices"
	"sync/atomic"
)

// This file is perf's ordered-events queue (tools/perf/util/ordered-events.c):
// records with a time wait in the queue and are delivered in time order
// when a FINISHED_ROUND record says that no later record can be older than
// what the previous round held. Records wait in chunks that are reused
// once every record in them was delivered, so that memory is bounded by
// what two rounds hold, not by the size of the file.
//
// A large data section is read ahead in blocks that are chunks of the
// queue (readAhead): a record wholly inside a block stays where it was
// read, queued as a slice of the block (pushIn), which is read into again
// only once none of its records is queued and no batch pins it. A record
// across two blocks, one decompressed from a COMPRESSED record, and every
// record of a small section (read through a bufio.Reader, whose buffer is
// reused) are copied into the queue's current chunk (pushCut), a stack
// dump without its unused bytes (Reader.pushSample).
//
// perf writes each CPU's buffer in turn, each in time order: the records
// arrive as runs whose times do not decrease. The queue keeps them so,
// each run a list in arrival order, and merges the runs: a heap of runs
// by their first record, in the order perf's queue delivers (time, then
// arrival), holding a few runs where perf's holds every record.

const chunkSize = 1 << 20

// chunk holds queued records: the queue's current chunk, which records
// are copied into, or a read-ahead block. A chunk is reused once it is
// not open (being filled, or read by the Reader), none of its records is
// queued (live) and no batch of samples holds a stack dump in it (pins:
// see Reader.keepUnwind, Samples.Reset): a chunk whose records were all
// delivered while pinned waits in the queue's parked list.
type chunk struct {
	b    []byte
	live int
	pins atomic.Int32
	open bool
}

// queued is one record waiting in the queue.
type queued struct {
	time uint64
	seq  uint64 // arrival order: equal times keep it
	rec  []byte // the whole record, header included
	ck   *chunk
}

// run is records that arrived one after the other, times not decreasing:
// those not delivered are ents[head:].
type run struct {
	ents []queued
	head int
}

func (r *run) first() *queued { return &r.ents[r.head] }

type queue struct {
	chunk  int    // chunk size: chunkSize, or less for a small file
	runs   []*run // a heap by first record
	last   *run   // the run the last record joined, while queued
	spare  []*run // empty runs, for reuse
	n      int    // records queued
	cur    *chunk // the chunk records are copied into
	free   []*chunk
	parked []*chunk // delivered, but pinned when they were
	seq    uint64
	// perf's ordered_events state
	maxTime   uint64 // oe->max_timestamp
	nextFlush uint64 // oe->next_flush
	lastFlush uint64 // oe->last_flush
	unordered int64
}

// round is perf's end of a round (PERF_RECORD_FINISHED_ROUND): it
// returns the time up to which the queue may now deliver, the previous
// round's maximum, and remembers this round's.
func (q *queue) round() uint64 {
	to := q.nextFlush
	q.nextFlush = q.maxTime
	return to
}

// push copies rec into the queue.
func (q *queue) push(t uint64, rec []byte) { q.pushCut(t, rec, len(rec), len(rec)) }

// pushCut copies rec into the queue without its bytes from from to to,
// and returns the copy, for the caller to mend.
func (q *queue) pushCut(t uint64, rec []byte, from, to int) []byte {
	n := len(rec) - (to - from)
	if q.cur == nil || len(q.cur.b)+n > cap(q.cur.b) {
		if q.cur != nil {
			q.retire(q.cur)
		}
		q.cur = q.newChunk()
		if n > cap(q.cur.b) {
			q.cur.b = make([]byte, 0, n) // larger than a chunk: this record's own
		}
	}
	ck := q.cur
	start := len(ck.b)
	ck.b = append(append(ck.b, rec[:from]...), rec[to:]...)
	return q.add(t, ck.b[start:len(ck.b):len(ck.b)], ck)
}

// pushIn queues rec where it is, in chunk ck (a read-ahead block).
func (q *queue) pushIn(t uint64, rec []byte, ck *chunk) {
	q.add(t, rec[:len(rec):len(rec)], ck)
}

// add queues rec, in ck.
func (q *queue) add(t uint64, rec []byte, ck *chunk) []byte {
	if t < q.lastFlush {
		q.unordered++
	}
	if q.n == 0 || t >= q.maxTime {
		q.maxTime = t
	}
	ck.live++
	q.seq++
	q.n++
	e := queued{time: t, seq: q.seq, rec: rec, ck: ck}
	if r := q.last; r != nil && t >= r.ents[len(r.ents)-1].time {
		// Later than the run's last record, and so than its first: the
		// run keeps its place in the heap.
		r.ents = append(r.ents, e)
		return e.rec
	}
	var r *run
	if n := len(q.spare); n > 0 {
		r = q.spare[n-1]
		q.spare = q.spare[:n-1]
	} else {
		r = &run{}
	}
	r.ents = append(r.ents, e)
	q.last = r
	q.runs = append(q.runs, r)
	q.up(len(q.runs) - 1)
	return e.rec
}

// newChunk returns an open chunk, empty, of the queue's chunk size:
// a free one, an unpinned parked one, or a new one.
func (q *queue) newChunk() *chunk {
	ck := q.reuse()
	if ck == nil {
		n := q.chunk
		if n <= 0 {
			n = chunkSize
		}
		ck = &chunk{b: make([]byte, 0, n)}
	}
	ck.open = true
	return ck
}

func (q *queue) reuse() *chunk {
	if n := len(q.free); n > 0 {
		ck := q.free[n-1]
		q.free = q.free[:n-1]
		ck.b = ck.b[:0]
		return ck
	}
	for i, ck := range q.parked {
		if ck.pins.Load() == 0 {
			q.parked = slices.Delete(q.parked, i, i+1)
			ck.b = ck.b[:0]
			return ck
		}
	}
	return nil
}

// retire closes ck, filled or read: it is free, parked, or waits for its
// last record's release.
func (q *queue) retire(ck *chunk) {
	ck.open = false
	switch {
	case ck.live > 0:
	case ck.pins.Load() == 0:
		q.free = append(q.free, ck)
	default:
		q.parked = append(q.parked, ck)
	}
}

// peek returns the oldest record's time.
func (q *queue) peek() (uint64, bool) {
	if len(q.runs) == 0 {
		return 0, false
	}
	return q.runs[0].first().time, true
}

// pop removes the oldest record. Its bytes stay valid until the next pop
// or push.
func (q *queue) pop() queued {
	r := q.runs[0]
	top := *r.first()
	r.ents[r.head] = queued{}
	r.head++
	q.n--
	switch {
	case r.head == len(r.ents):
		// The run is delivered: out of the heap, kept for reuse.
		r.ents, r.head = r.ents[:0], 0
		q.spare = append(q.spare, r)
		if q.last == r {
			q.last = nil
		}
		n := len(q.runs) - 1
		q.runs[0] = q.runs[n]
		q.runs[n] = nil
		q.runs = q.runs[:n]
	case r.head >= 1024 && 2*r.head >= len(r.ents):
		// Most of the run is delivered: its records move to the front,
		// so that a run that keeps growing stays as long as what it
		// holds.
		k := copy(r.ents, r.ents[r.head:])
		clear(r.ents[k:])
		r.ents, r.head = r.ents[:k], 0
	}
	if len(q.runs) > 1 {
		q.down(0)
	}
	q.lastFlush = top.time
	return top
}

// release gives back the chunk space of a popped record.
func (q *queue) release(e queued) {
	e.ck.live--
	if e.ck.live == 0 && !e.ck.open {
		q.retire(e.ck)
	}
}

func less(a, b *queued) bool {
	if a.time != b.time {
		return a.time < b.time
	}
	return a.seq < b.seq
}

func (q *queue) up(i int) {
	h := q.runs
	for i > 0 {
		p := (i - 1) / 2
		if !less(h[i].first(), h[p].first()) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

func (q *queue) down(i int) {
	h := q.runs
	n := len(h)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && less(h[r].first(), h[l].first()) {
			m = r
		}
		if !less(h[m].first(), h[i].first()) {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}
