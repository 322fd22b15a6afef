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
// block; only a record across two blocks is joined in a buffer of its own.
type readAhead struct {
	full chan block    // blocks read, in order; closed after the last
	free chan []byte   // blocks consumed, for reuse
	done chan struct{} // closed by close: the goroutine stops
	once sync.Once

	cur  []byte // the bytes to read next
	own  []byte // the block cur is in; nil when cur is the join
	rest []byte // when cur is the join: the rest of the block after it
	rown []byte // rest's block
	join []byte // a record across blocks
	err  error  // why no block follows (io.EOF at the end)
}

// block is one block read, and the error that ended the reading there.
type block struct {
	b   []byte
	err error
}

// newReadAhead reads n bytes of r from off, in blocks of size, nblocks
// of them read ahead at most.
func newReadAhead(r io.ReaderAt, off, n int64, size, nblocks int) *readAhead {
	ra := &readAhead{
		full: make(chan block, nblocks),
		free: make(chan []byte, nblocks),
		done: make(chan struct{}),
	}
	for range nblocks {
		ra.free <- make([]byte, size)
	}
	go ra.run(r, off, n)
	return ra
}

func (ra *readAhead) run(r io.ReaderAt, off, n int64) {
	defer close(ra.full)
	for n > 0 {
		var buf []byte
		select {
		case buf = <-ra.free:
		case <-ra.done:
			return
		}
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
		case ra.full <- block{buf[:m], err}:
		case <-ra.done:
			return
		}
		if err != nil {
			return
		}
	}
}

// recv returns the next block; false at the end (ra.err says why).
func (ra *readAhead) recv() ([]byte, bool) {
	if ra.err != nil {
		return nil, false
	}
	bl, ok := <-ra.full
	if !ok {
		ra.err = io.EOF
		return nil, false
	}
	if bl.err != nil {
		ra.err = bl.err
		if len(bl.b) == 0 {
			return nil, false
		}
	}
	return bl.b, true
}

// release gives a consumed block back to the goroutine.
func (ra *readAhead) release(b []byte) {
	if b != nil {
		ra.free <- b[:cap(b)]
	}
}

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
	b, ok := ra.recv()
	if !ok {
		ra.cur = nil
		return false
	}
	ra.cur, ra.own = b, b
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
			b, ok := ra.recv()
			if !ok {
				ra.join, ra.cur = j, j
				return j, ra.err
			}
			src, srcOwn = b, b
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
