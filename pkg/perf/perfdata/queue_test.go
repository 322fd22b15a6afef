package perfdata

import (
	"bytes"
	"encoding/binary"
	"testing"
)

// heapQueue is the ordered-events queue as it was before runs: one heap
// of every record by (time, arrival). The queue must deliver what it
// delivers, in its order.
type heapQueue struct {
	heap []queued
	seq  uint64
}

func (h *heapQueue) push(t uint64, rec []byte) {
	h.seq++
	h.heap = append(h.heap, queued{time: t, seq: h.seq, rec: append([]byte(nil), rec...)})
	for i := len(h.heap) - 1; i > 0; {
		p := (i - 1) / 2
		if !less(&h.heap[i], &h.heap[p]) {
			break
		}
		h.heap[i], h.heap[p] = h.heap[p], h.heap[i]
		i = p
	}
}

func (h *heapQueue) peek() (uint64, bool) {
	if len(h.heap) == 0 {
		return 0, false
	}
	return h.heap[0].time, true
}

func (h *heapQueue) pop() queued {
	top := h.heap[0]
	n := len(h.heap) - 1
	h.heap[0] = h.heap[n]
	h.heap = h.heap[:n]
	for i := 0; ; {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && less(&h.heap[r], &h.heap[l]) {
			m = r
		}
		if !less(&h.heap[m], &h.heap[i]) {
			break
		}
		h.heap[i], h.heap[m] = h.heap[m], h.heap[i]
		i = m
	}
	return top
}

// queueOp is a record pushed with its time, or a flush (a FINISHED_ROUND:
// deliver what is queued up to the previous round's maximum), or the end
// (deliver everything).
type queueOp struct {
	flush, end bool
	time       uint64
	size       int // the record's size, 8 at least
}

// runQueue applies ops to the queue and to the reference heap as the
// Reader does, and fails at the first record delivered otherwise, or at
// a difference in perf's counts.
func runQueue(t *testing.T, ops []queueOp, chunk int) {
	t.Helper()
	q := &queue{chunk: chunk}
	var ref heapQueue
	var flushTo uint64
	var n uint32
	delivered := 0
	deliver := func(final bool) {
		for {
			rt, rok := ref.peek()
			qt, qok := q.peek()
			if rok != qok || rt != qt {
				t.Fatalf("after %d records: queue's first %d %v, heap's %d %v", delivered, qt, qok, rt, rok)
			}
			if !rok || (!final && rt > flushTo) {
				return
			}
			want, got := ref.pop(), q.pop()
			if got.time != want.time || got.seq != want.seq || string(got.rec) != string(want.rec) {
				t.Fatalf("record %d: time %d seq %d %x, the heap's time %d seq %d %x",
					delivered, got.time, got.seq, got.rec, want.time, want.seq, want.rec)
			}
			q.release(got)
			delivered++
		}
	}
	for _, op := range ops {
		switch {
		case op.end:
			deliver(true)
		case op.flush:
			flushTo = q.round()
			deliver(false)
		default:
			n++
			rec := make([]byte, max(op.size, 8))
			binary.LittleEndian.PutUint32(rec, n)
			binary.LittleEndian.PutUint64(rec[len(rec)-8:], op.time)
			q.push(op.time, rec)
			ref.push(op.time, rec)
		}
	}
	deliver(true)
	if len(q.runs) != 0 || q.n != 0 || q.last != nil {
		t.Fatalf("queue not empty at the end: %d runs, %d records", len(q.runs), q.n)
	}
	for _, ck := range append(q.free, q.cur) {
		if ck != nil && ck.live != 0 {
			t.Fatalf("a chunk holds %d records at the end", ck.live)
		}
	}
}

// recs returns the pushes of times, records of 8 bytes.
func recs(times ...uint64) []queueOp {
	ops := make([]queueOp, len(times))
	for i, tm := range times {
		ops[i] = queueOp{time: tm, size: 8}
	}
	return ops
}

var (
	flush = queueOp{flush: true}
	end   = queueOp{end: true}
)

func cat(parts ...[]queueOp) []queueOp {
	var ops []queueOp
	for _, p := range parts {
		ops = append(ops, p...)
	}
	return ops
}

// TestQueueOrder checks the queue of runs against the heap of records on
// inputs that make runs hard: equal times within and across runs, times
// going back, records of one round held past the next flush, runs that
// keep growing while they are delivered, and records larger than a chunk.
func TestQueueOrder(t *testing.T) {
	long := make([]uint64, 5000)
	for i := range long {
		long[i] = uint64(i / 3)
	}
	var growing []queueOp
	for round := range 40 {
		for i := range 100 {
			growing = append(growing, queueOp{time: uint64(round*100 + i), size: 8})
		}
		growing = append(growing, flush)
	}
	var zigzag []queueOp
	for i := range 2000 {
		zigzag = append(zigzag, queueOp{time: uint64(1000 + (i%2)*500 - i/2), size: 24})
		if i%300 == 299 {
			zigzag = append(zigzag, flush)
		}
	}
	cases := []struct {
		name  string
		ops   []queueOp
		chunk int
	}{
		{"empty", nil, 0},
		{"one", recs(5), 0},
		{"sorted", recs(1, 2, 3, 4, 5), 0},
		{"reversed", recs(5, 4, 3, 2, 1), 0},
		{"all equal", recs(7, 7, 7, 7, 7, 7), 0},
		{"equal across runs", recs(1, 5, 5, 9, 2, 5, 5, 8, 5, 5), 0},
		{"two cpus", recs(10, 20, 30, 40, 15, 25, 35, 45), 0},
		{"runs of equal heads", recs(3, 4, 3, 4, 3, 4, 3, 4), 0},
		{"flush between", cat(recs(10, 20, 30), []queueOp{flush}, recs(15, 25, 35), []queueOp{flush}, recs(5, 40), []queueOp{flush, flush}), 0},
		{"straddling rounds", cat(recs(100, 200, 300, 50), []queueOp{flush}, recs(250, 150, 400), []queueOp{flush}, recs(310, 290, 500), []queueOp{flush}, recs(600), []queueOp{flush, flush}), 0},
		{"older than delivered", cat(recs(10, 20), []queueOp{flush}, recs(30), []queueOp{flush}, recs(5, 1, 40), []queueOp{flush, flush}), 0},
		{"end mid round", cat(recs(3, 1, 2), []queueOp{flush}, recs(9, 8), []queueOp{end}, recs(4, 4)), 0},
		{"time zero and max", recs(0, ^uint64(0), 0, ^uint64(0)-1, 1), 0},
		{"long ties", recs(long...), 0},
		{"growing run", growing, 0},
		{"zigzag", zigzag, 0},
		{"small chunks", cat(recs(9, 8, 7, 6), []queueOp{flush}, recs(5, 10), []queueOp{flush}), 16},
		{"records larger than a chunk", []queueOp{{time: 3, size: 40}, {time: 1, size: 8}, {time: 2, size: 100}, flush, {time: 4, size: 64}}, 32},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { runQueue(t, c.ops, c.chunk) })
	}
}

// TestQueueMemory checks that a run that keeps growing while it is
// delivered does not keep what it delivered: one CPU's records, a flush
// every 100.
func TestQueueMemory(t *testing.T) {
	q := &queue{chunk: 1 << 12}
	rec := make([]byte, 16)
	for i := range 200000 {
		q.push(uint64(i), rec)
		if i%100 == 99 {
			drainRound(q)
		}
	}
	if len(q.runs) != 1 {
		t.Fatalf("%d runs, not 1", len(q.runs))
	}
	if r := q.runs[0]; cap(r.ents) > 4096 {
		t.Errorf("the run holds %d records in %d entries of room", len(r.ents)-r.head, cap(r.ents))
	}
}

// FuzzQueue checks the queue of runs against the heap of records on
// arbitrary pushes and flushes: each byte pair is an op, a flush when the
// first byte is 0xff, the end when 0xfe, else a record whose time is the
// second byte plus 256 times the first's low bits (many ties and
// reversals) and whose size depends on the first's high bits.
func FuzzQueue(f *testing.F) {
	f.Add([]byte{0, 10, 0, 20, 0, 5, 0xff, 0, 0, 1, 0xff, 0})
	f.Add([]byte{1, 0, 0, 9, 0, 9, 0x40, 9, 0xff, 0, 0, 3, 0xfe, 0, 0, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		var ops []queueOp
		for i := 0; i+1 < len(data); i += 2 {
			switch data[i] {
			case 0xff:
				ops = append(ops, flush)
			case 0xfe:
				ops = append(ops, end)
			default:
				ops = append(ops, queueOp{time: uint64(data[i]&7)<<8 | uint64(data[i+1]), size: 8 + int(data[i]>>3)*8})
			}
		}
		runQueue(t, ops, 64)
	})
}

// BenchmarkQueue pushes and delivers the records of two CPUs' buffers,
// rounds of 2 × 1000 records, as perf writes them.
func BenchmarkQueue(b *testing.B) {
	rec := make([]byte, 64)
	q := &queue{chunk: 1 << 20}
	var tm uint64
	b.SetBytes(int64(len(rec)))
	n := 0
	for b.Loop() {
		// CPU n%2's buffer: 1000 records from the round's start.
		cpu := uint64(n / 1000 % 2)
		q.push(tm+2*uint64(n%1000)+cpu, rec)
		n++
		if n%2000 == 0 {
			tm += 2000
			drainRound(q)
		}
	}
}

// drainRound ends a round of q and delivers what it allows, as the
// reader does.
func drainRound(q *queue) {
	to := q.round()
	for {
		t, ok := q.peek()
		if !ok || t > to {
			return
		}
		q.release(q.pop())
	}
}

// TestQueuePins checks that a chunk pinned by a batch of samples (see
// Reader.keepUnwind) is not reused while pinned, though all its records
// were delivered, and is reused once unpinned.
func TestQueuePins(t *testing.T) {
	q := &queue{chunk: 64}
	rec := func(b byte) []byte { return bytes.Repeat([]byte{b}, 32) }
	q.push(1, rec('a'))
	q.push(2, rec('b'))
	a := q.pop()
	pinned := a.ck
	pinned.pins.Add(1)
	q.release(a)
	q.release(q.pop())
	// The pinned chunk is full and delivered: the next records go
	// elsewhere, however many.
	for i := range 8 {
		q.push(uint64(3+i), rec('c'+byte(i)))
		e := q.pop()
		if e.ck == pinned {
			t.Fatalf("record %d queued in the pinned chunk", i)
		}
		q.release(e)
	}
	if !bytes.Equal(a.rec, rec('a')) {
		t.Fatalf("a pinned record changed: %q", a.rec)
	}
	// Unpinned, it is the next chunk the queue takes.
	pinned.pins.Add(-1)
	reused := false
	for i := range 4 {
		q.push(uint64(20+i), rec('k'))
	}
	for q.n > 0 {
		e := q.pop()
		reused = reused || e.ck == pinned
		q.release(e)
	}
	if !reused {
		t.Error("the chunk unpinned is not reused")
	}
	if len(q.parked) != 0 {
		t.Errorf("%d chunks parked, none pinned", len(q.parked))
	}
}
