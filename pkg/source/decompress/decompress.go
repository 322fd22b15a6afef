// Package decompress reads compressed streams as what they hold: gzip (one
// member or several, as cat a.gz b.gz makes) and zstd, each told by its
// magic bytes, never by a file name, so that a pipe, a FIFO or a file
// called out.txt is read whatever it holds. Data with neither magic is
// passed through.
//
// It is the one place where flamekit checks compression magic; package
// source builds its inputs on it, and packages that read a file of their
// own (tests, examples) open it with [Open].
package decompress

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/klauspost/pgzip"
)

// Method is how a stream is compressed.
type Method uint8

// The compressions recognised.
const (
	None Method = iota // not compressed (or not in a way recognised here)
	Gzip               // gzip, RFC 1952: 1f 8b
	Zstd               // zstd, RFC 8878: 28 b5 2f fd
)

// String returns "gzip", "zstd", or "uncompressed" for None.
func (m Method) String() string {
	switch m {
	case Gzip:
		return "gzip"
	case Zstd:
		return "zstd"
	}
	return "uncompressed"
}

// MagicSize is how many bytes Detect needs.
const MagicSize = 4

var (
	gzipMagic = []byte{0x1f, 0x8b}
	zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}
)

// Detect returns the compression whose magic bytes start b (at least
// MagicSize bytes, or the whole input when it is shorter).
func Detect(b []byte) Method {
	switch {
	case bytes.HasPrefix(b, gzipMagic):
		return Gzip
	case bytes.HasPrefix(b, zstdMagic):
		return Zstd
	}
	return None
}

// bufSize is the buffer of the compressed side of a full-speed reader.
const bufSize = 256 << 10

// NewReader returns a reader of what r holds: r's bytes decompressed when
// they start with a compression magic, else r's bytes as they are, and
// the method found. Gzip is decompressed with pgzip (on other cores, ahead
// of the reader), zstd with its concurrent decoder: for inputs read whole.
// Closing the result releases the decompressor; it does not close r.
func NewReader(r io.Reader) (io.ReadCloser, Method, error) {
	return newReader(r, bufSize, false)
}

// NewLightReader is NewReader for reading a little of an input (its first
// lines), or many inputs at once: decompression runs on the caller's
// goroutine, a block at a time, with small buffers.
func NewLightReader(r io.Reader) (io.ReadCloser, Method, error) {
	return newReader(r, 16<<10, true)
}

func newReader(r io.Reader, size int, light bool) (io.ReadCloser, Method, error) {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReaderSize(r, size)
	}
	magic, err := br.Peek(MagicSize)
	if err != nil && err != io.EOF {
		return nil, None, err
	}
	m := Detect(magic)
	switch m {
	case Gzip:
		var zr io.ReadCloser
		if light {
			zr, err = gzip.NewReader(br)
		} else {
			// pgzip.NewReaderN(r, size, 1) fails its checksum on
			// long inputs: never fewer than 2 blocks.
			zr, err = pgzip.NewReader(br)
		}
		if err != nil {
			return nil, m, fmt.Errorf("reading the gzip header: %w", err)
		}
		return &reader{r: zr, close: zr.Close, m: m}, m, nil
	case Zstd:
		opts := []zstd.DOption{zstd.WithDecoderLowmem(light)}
		if light {
			opts = append(opts, zstd.WithDecoderConcurrency(1))
		}
		zr, err := zstd.NewReader(br, opts...)
		if err != nil {
			return nil, m, fmt.Errorf("reading the zstd header: %w", err)
		}
		return &reader{r: zr, close: func() error { zr.Close(); return nil }, m: m}, m, nil
	}
	return &reader{r: br, m: None}, None, nil
}

// reader names the end of a compressed stream cut short in its errors.
type reader struct {
	r     io.Reader
	close func() error
	m     Method
}

func (d *reader) Read(p []byte) (int, error) {
	n, err := d.r.Read(p)
	if err != nil && err != io.EOF && d.m != None {
		err = describe(d.m, err)
	}
	return n, err
}

func (d *reader) Close() error {
	if d.close == nil {
		return nil
	}
	c := d.close
	d.close = nil
	return c()
}

// ErrTruncated is what the error of a compressed stream cut short is
// (errors.Is): what was decompressed before the cut is the content's
// start, whole.
var ErrTruncated = errors.New("truncated (unexpected end of file)")

// describe makes the error of a compressed stream say what is wrong in
// words a user acts on.
func describe(m Method, err error) error {
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("%s data is %w", m, ErrTruncated)
	}
	if strings.HasPrefix(err.Error(), m.String()+":") {
		return err
	}
	return fmt.Errorf("%s: %w", m, err)
}

// Head decompresses what raw, the first bytes of a compressed input,
// holds: at most max bytes. whole reports that the compressed stream ended
// within raw and gave fewer than max bytes. A stream cut by the end of
// raw is not an error; a corrupt one is. For m None, raw is returned.
func Head(raw []byte, max int) (out []byte, whole bool, m Method, err error) {
	m = Detect(raw)
	var zr io.Reader
	switch m {
	case None:
		if len(raw) > max {
			return raw[:max], false, m, nil
		}
		return raw, true, m, nil
	case Gzip:
		g, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			if errors.Is(err, io.ErrUnexpectedEOF) || err == io.EOF {
				return nil, false, m, nil // cut inside the header
			}
			return nil, false, m, fmt.Errorf("reading the gzip header: %w", err)
		}
		zr = g
	case Zstd:
		d, err := zstd.NewReader(bytes.NewReader(raw), zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true))
		if err != nil {
			return nil, false, m, fmt.Errorf("reading the zstd header: %w", err)
		}
		defer d.Close()
		zr = d
	}
	out, err = io.ReadAll(io.LimitReader(zr, int64(max)))
	switch {
	case err == nil:
		return out, len(out) < max, m, nil
	case errors.Is(err, io.ErrUnexpectedEOF), err == io.EOF:
		return out, false, m, nil // cut by the end of raw
	}
	return out, false, m, describe(m, err)
}

// Open opens the file at path for reading, decompressed as NewReader
// does. Closing the result closes the file.
func Open(path string) (io.ReadCloser, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	rc, _, err := NewReader(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return struct {
		io.Reader
		io.Closer
	}{rc, closers{rc, f}}, nil
}

// closers closes each of its members in turn and returns their errors
// joined.
type closers []io.Closer

func (cs closers) Close() error {
	var errs []error
	for _, c := range cs {
		errs = append(errs, c.Close())
	}
	return errors.Join(errs...)
}
