package perfdata

import (
	"bufio"
	"io"
	"sync"
)

// peeker is how a Reader reads the records of its data section:
// *bufio.Reader, or a readAhead for a large section.
type peeker interface {
	// Peek returns the next n bytes without consuming them, valid until
	// the next call; fewer with an error at the end of the input.
	Peek(n int) ([]byte, error)
	// Discard skips the next n bytes.
	Discard(n int) (int, error)
}

var _ peeker = (*bufio.Reader)(nil)

// readAheadMin is the size of a data section from which a Reader reads it
// ahead (readAhead): a --call-graph dwarf capture carries kilobytes of
// stack per sample, and copying them from the page cache took a third of
// its reading's CPU, on the reader's goroutine.
var readAheadMin int64 = 32 << 20

// readAhead reads a section of a file ahead of its reader, in blocks, on
// another goroutine, so that the copying from the file overlaps the
// parsing of what was read. Its Peek and Discard are bufio.Reader's, but
// a record within a block is not copied again: Peek returns it in the
// block, which is a chunk of the Reader's queue (see queue.go) that the
// queue can hold it in; only a record across two blocks is joined in a
// buffer of its own. The blocks come from the queue's pool and go back to
// it once read: the queue reuses one when none of its records is queued
// nor pinned, for the goroutine to read into again.
type readAhead struct {
	full chan block    // blocks read, in order; closed after the last
	free chan *chunk   // blocks for the goroutine to read into
	done chan struct{} // closed by close: the goroutine stops
	once sync.Once
	pool *queue

	cur  []byte // the bytes to read next
	own  *chunk // the block cur is in; nil when cur is the join
	rest []byte // when cur is the join: the rest of the block after it
	rown *chunk // rest's block
	join []byte // a record across blocks
	err  error  // why no block follows (io.EOF at the end)
}

// block is one block read: n bytes of ck, and the error that ended the
// reading there.
type block struct {
	ck  *chunk
	n   int
	err error
}

// newReadAhead reads n bytes of r from off, in blocks of pool's chunk
// size taken from pool, nblocks of them read ahead at most.
func newReadAhead(r io.ReaderAt, off, n int64, pool *queue, nblocks int) *readAhead {
	ra := &readAhead{
		full: make(chan block, nblocks),
		free: make(chan *chunk, nblocks),
		done: make(chan struct{}),
		pool: pool,
	}
	for range nblocks {
		ra.free <- pool.newChunk()
	}
	go ra.run(r, off, n)
	return ra
}

func (ra *readAhead) run(r io.ReaderAt, off, n int64) {
	defer close(ra.full)
	for n > 0 {
		var ck *chunk
		select {
		case ck = <-ra.free:
		case <-ra.done:
			return
		}
		buf := ck.b[:cap(ck.b)]
		k := int(min(int64(len(buf)), n))
		m, err := r.ReadAt(buf[:k], off)
		off, n = off+int64(m), n-int64(m)
		switch {
		case m == k:
			err = nil
		case err == nil || err == io.EOF:
			err = io.ErrUnexpectedEOF
		}
		select {
		case ra.full <- block{ck, m, err}:
		case <-ra.done:
			return
		}
		if err != nil {
			return
		}
	}
}

// recv returns the next block, and gives the goroutine another to read
// ahead into; false at the end (ra.err says why).
func (ra *readAhead) recv() (*chunk, bool) {
	if ra.err != nil {
		return nil, false
	}
	bl, ok := <-ra.full
	if !ok {
		ra.err = io.EOF
		return nil, false
	}
	if bl.err != nil {
		ra.err = bl.err // the goroutine stopped
	} else {
		ra.free <- ra.pool.newChunk()
	}
	bl.ck.b = bl.ck.b[:bl.n]
	if bl.n == 0 {
		ra.release(bl.ck)
		return nil, false
	}
	return bl.ck, true
}

// release gives a block read to the queue.
func (ra *readAhead) release(ck *chunk) {
	if ck != nil {
		ra.pool.retire(ck)
	}
}

// block returns the block the bytes the last Peek returned are in, which
// the queue may hold them in; nil when they were joined.
func (ra *readAhead) block() *chunk { return ra.own }

// advance makes cur hold the next bytes when it is empty: the rest of a
// joined block, or the next block. False at the end.
func (ra *readAhead) advance() bool {
	if len(ra.cur) > 0 {
		return true
	}
	ra.release(ra.own)
	ra.own = nil
	if ra.rest != nil {
		ra.cur, ra.own, ra.rest, ra.rown = ra.rest, ra.rown, nil, nil
		return len(ra.cur) > 0 || ra.advance()
	}
	ck, ok := ra.recv()
	if !ok {
		ra.cur = nil
		return false
	}
	ra.cur, ra.own = ck.b, ck
	return true
}

func (ra *readAhead) Peek(n int) ([]byte, error) {
	if len(ra.cur) >= n {
		return ra.cur[:n], nil
	}
	if len(ra.cur) == 0 && !ra.advance() {
		return nil, ra.err
	}
	if len(ra.cur) >= n {
		return ra.cur[:n], nil
	}
	// Join cur and the start of the blocks after it.
	j := append(ra.join[:0], ra.cur...)
	ra.release(ra.own)
	ra.own, ra.cur = nil, nil
	for len(j) < n {
		src, srcOwn := ra.rest, ra.rown
		ra.rest, ra.rown = nil, nil
		if src == nil {
			ck, ok := ra.recv()
			if !ok {
				ra.join, ra.cur = j, j
				return j, ra.err
			}
			src, srcOwn = ck.b, ck
		}
		take := min(n-len(j), len(src))
		j = append(j, src[:take]...)
		if take < len(src) {
			ra.rest, ra.rown = src[take:], srcOwn
		} else {
			ra.release(srcOwn)
		}
	}
	ra.join, ra.cur = j, j
	return j, nil
}

func (ra *readAhead) Discard(n int) (int, error) {
	done := 0
	for done < n {
		if len(ra.cur) == 0 && !ra.advance() {
			return done, ra.err
		}
		k := min(n-done, len(ra.cur))
		ra.cur = ra.cur[k:]
		done += k
	}
	return done, nil
}

// close stops the goroutine.
func (ra *readAhead) close() {
	ra.once.Do(func() { close(ra.done) })
}
