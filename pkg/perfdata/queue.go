package perfdata

// This file is perf's ordered-events queue (tools/perf/util/ordered-events.c):
// records with a time wait in the queue and are delivered in time order
// when a FINISHED_ROUND record says that no later record can be older than
// what the previous round held. Records are copied into chunks that are
// reused once every record in them was delivered, so that memory is bounded
// by what two rounds hold, not by the size of the file.

const chunkSize = 1 << 20

type chunk struct {
	b    []byte
	live int
}

// queued is one record waiting in the queue.
type queued struct {
	time uint64
	seq  uint64 // arrival order: equal times keep it
	rec  []byte // the whole record, header included
	ck   *chunk
}

type queue struct {
	chunk int // chunk size: chunkSize, or less for a small file
	heap  []queued
	cur   *chunk
	free  []*chunk
	seq   uint64
	// perf's ordered_events state
	maxTime   uint64 // oe->max_timestamp
	nextFlush uint64 // oe->next_flush
	lastFlush uint64 // oe->last_flush
	unordered int64
}

// push copies rec into the queue.
func (q *queue) push(t uint64, rec []byte) {
	if t < q.lastFlush {
		q.unordered++
	}
	if len(q.heap) == 0 || t >= q.maxTime {
		q.maxTime = t
	}
	if q.cur == nil || len(q.cur.b)+len(rec) > cap(q.cur.b) || len(rec) > cap(q.cur.b) {
		if q.cur != nil && q.cur.live == 0 {
			q.cur.b = q.cur.b[:0]
		} else {
			q.cur = q.newChunk()
		}
	}
	ck := q.cur
	start := len(ck.b)
	ck.b = append(ck.b, rec...)
	ck.live++
	q.seq++
	q.heap = append(q.heap, queued{time: t, seq: q.seq, rec: ck.b[start:len(ck.b):len(ck.b)], ck: ck})
	q.up(len(q.heap) - 1)
}

func (q *queue) newChunk() *chunk {
	if n := len(q.free); n > 0 {
		ck := q.free[n-1]
		q.free = q.free[:n-1]
		ck.b = ck.b[:0]
		return ck
	}
	n := q.chunk
	if n <= 0 {
		n = chunkSize
	}
	return &chunk{b: make([]byte, 0, n)}
}

// peek returns the oldest record's time.
func (q *queue) peek() (uint64, bool) {
	if len(q.heap) == 0 {
		return 0, false
	}
	return q.heap[0].time, true
}

// pop removes the oldest record. Its bytes stay valid until the next pop
// or push.
func (q *queue) pop() queued {
	top := q.heap[0]
	n := len(q.heap) - 1
	q.heap[0] = q.heap[n]
	q.heap[n] = queued{}
	q.heap = q.heap[:n]
	if n > 0 {
		q.down(0)
	}
	q.lastFlush = top.time
	return top
}

// release gives back the chunk space of a popped record.
func (q *queue) release(e queued) {
	e.ck.live--
	if e.ck.live == 0 && e.ck != q.cur {
		q.free = append(q.free, e.ck)
	}
}

func less(a, b *queued) bool {
	if a.time != b.time {
		return a.time < b.time
	}
	return a.seq < b.seq
}

func (q *queue) up(i int) {
	h := q.heap
	for i > 0 {
		p := (i - 1) / 2
		if !less(&h[i], &h[p]) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

func (q *queue) down(i int) {
	h := q.heap
	n := len(h)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && less(&h[r], &h[l]) {
			m = r
		}
		if !less(&h[m], &h[i]) {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}
