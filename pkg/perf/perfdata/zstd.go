package perfdata

import (
	"errors"
	"io"

	"github.com/klauspost/compress/zstd"
)

// perf record -z writes COMPRESSED records whose payloads, concatenated,
// form one zstd stream: perf compresses with ZSTD_compressStream and
// ZSTD_flushStream, so every record ends on a block boundary but no
// record is a frame of its own. The stream is decoded by a decoder that
// runs in its own goroutine and reads the payloads one at a time; after a
// payload is used up, every byte that payload makes decodable has been
// returned (the decoder works block by block, without reading ahead), so
// the records of one COMPRESSED record are known before the next file
// record is read, as perf processes them.

// maxZstdWindow caps the history a compressed stream may ask for
// (zstd level 22 uses 128 MiB).
var maxZstdWindow uint64 = 1 << 27

type zmsg struct {
	data    []byte
	starved bool // the decoder wants the next payload
	err     error
}

type zstdStream struct {
	in   chan []byte
	out  chan zmsg
	ack  chan struct{}
	done chan struct{}
	cur  []byte
	dead bool
}

// feed is the decoder's input: the payloads, one after the other.
type feed struct{ z *zstdStream }

func (f feed) Read(p []byte) (int, error) {
	z := f.z
	for len(z.cur) == 0 {
		select {
		case z.out <- zmsg{starved: true}:
		case <-z.done:
			return 0, io.EOF
		}
		select {
		case b, ok := <-z.in:
			if !ok {
				return 0, io.EOF
			}
			z.cur = b
		case <-z.done:
			return 0, io.EOF
		}
	}
	n := copy(p, z.cur)
	z.cur = z.cur[n:]
	return n, nil
}

func newZstdStream() *zstdStream {
	z := &zstdStream{in: make(chan []byte), out: make(chan zmsg), ack: make(chan struct{}), done: make(chan struct{})}
	go z.run()
	// The decoder first asks for input.
	if m := <-z.out; !m.starved {
		z.dead = true
	}
	return z
}

func (z *zstdStream) run() {
	dec, err := zstd.NewReader(feed{z}, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(maxZstdWindow))
	if err != nil {
		select {
		case z.out <- zmsg{err: err}:
		case <-z.done:
		}
		return
	}
	defer dec.Close()
	buf := make([]byte, 256<<10)
	for {
		n, err := dec.Read(buf)
		if n > 0 {
			select {
			case z.out <- zmsg{data: buf[:n]}:
			case <-z.done:
				return
			}
			select {
			case <-z.ack:
			case <-z.done:
				return
			}
		}
		if err != nil {
			if err == io.EOF {
				err = errors.New("zstd stream ended")
			}
			select {
			case z.out <- zmsg{err: err}:
			case <-z.done:
			}
			return
		}
	}
}

// maxRatio bounds what one payload may decode to (perf's records compress
// about tenfold), so that a hostile file cannot make the reader allocate
// without bound.
const maxRatio = 4096

// decode feeds one payload and appends what it decodes to dst.
func (z *zstdStream) decode(dst, payload []byte) ([]byte, error) {
	limit := len(dst) + 1<<20 + maxRatio*len(payload)
	if z.dead {
		return dst, errors.New("zstd stream failed earlier")
	}
	if len(payload) == 0 {
		return dst, nil
	}
	select {
	case z.in <- payload:
	case <-z.done:
		return dst, errors.New("zstd stream closed")
	}
	for {
		m := <-z.out
		switch {
		case m.starved:
			return dst, nil
		case m.err != nil:
			z.dead = true
			return dst, m.err
		default:
			if len(dst)+len(m.data) > limit {
				z.dead = true
				z.close()
				return dst, errors.New("compressed record decodes to more than 4096 times its size")
			}
			dst = append(dst, m.data...)
			z.ack <- struct{}{}
		}
	}
}

// close stops the decoder goroutine.
func (z *zstdStream) close() {
	select {
	case <-z.done:
	default:
		close(z.done)
	}
}
