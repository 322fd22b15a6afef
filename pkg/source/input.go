package source

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"flamekit/pkg/folded"
	"flamekit/pkg/source/decompress"
)

// Options say how inputs are opened.
type Options struct {
	// Stdin is what the name "-" reads: a command passes its standard
	// input. When it is nil, "-" is ErrNoStdin.
	Stdin io.Reader
	// Format, when not Unknown, is the kind of every input (--format);
	// the content is sniffed all the same (Input.Sniffed), so that a
	// command can refuse a mistake.
	Format Kind
	// TempDir is where the copies of streams and the decompressed copies
	// of perf.data files are made; "" is os.TempDir() ($TMPDIR).
	TempDir string
}

// ErrNoStdin is the error of the name "-" when Options.Stdin is nil.
var ErrNoStdin = errors.New(`"-" names standard input, and none was given`)

// Input is one input, opened and recognised: a regular file, which can be
// read as often as wanted, or a stream (standard input, a pipe, a FIFO
// such as bash's <(cmd), a device), which is read once, from where its
// first bytes were sniffed: nothing is lost, nothing is opened twice. A
// stream that must be read twice is copied as it is first read (Keep).
//
// Its content is what Open returns: decompressed when it is gzip or zstd.
type Input struct {
	Name     string            // as given: a path, or "-" for standard input
	Display  string            // as messages name it ("<stdin>" for "-")
	Kind     Kind              // Options.Format, or else Sniffed
	Sniffed  Kind              // what the content says
	Method   decompress.Method // how the input is compressed
	Stream   bool              // it can be read only once (but see Keep)
	Head     []byte            // the first KeptHead bytes of the content (fewer at its end), for messages
	Text     bool              // the first PeekSize bytes of the content are text (IsText)
	Complete bool              // the first PeekSize bytes are the whole content
	TempDir  string            // where copies are made: Options.TempDir, until changed

	gzTime time.Time                     // the MTIME of the gzip header, if any
	file   string                        // the path of a regular file
	reopen func() (io.ReadCloser, error) // the raw bytes, again (nil for a stream)

	mu       sync.Mutex
	raw      *bufio.Reader // a stream not read yet, its first bytes buffered
	rawClose io.Closer     // closes the stream (nil: the caller's)
	keep     bool          // copy the stream as it is read
	used     bool          // the stream has been opened
	spool    *tempFile     // the copy of the stream
	whole    bool          // the copy holds all of the stream
	copy     *tempFile     // the decompressed copy Path made
	cut      error         // the compressed input is cut short: the copy holds what came before
}

// Open opens the input called name: "-" is Options.Stdin, anything else a
// path. The first bytes are read to recognise the input; a regular file
// is then closed (and opened again by each read), a stream is kept open
// for its one read.
//
// A regular file is read as often as a command wants, each read opening it
// again. Anything else (standard input, a pipe, a FIFO, bash's <(cmd), a
// device) is a stream, read exactly once, from the bytes that were sniffed:
// none is lost, nothing is opened twice. A command that must read a stream
// twice (timeslice placing a relative window) calls Input.Keep first: the
// stream is copied to a temporary file (in Options.TempDir, else $TMPDIR)
// as it is first read, and read again from there. Input.Path makes a
// decompressed copy when the input is compressed or a stream;
// Input.Close removes the copies.
//
// Options.Format (a command's --format) forces the kind; the content is
// sniffed all the same (Input.Sniffed), so that a mistake can be refused
// rather than read as garbage. Input.Check gives an input of no known kind
// an error that says what it looks like.
func Open(name string, opt Options) (*Input, error) {
	if name == "-" {
		if opt.Stdin == nil {
			return nil, ErrNoStdin
		}
		return newStream(name, opt.Stdin, nil, opt)
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	switch {
	case st.IsDir():
		f.Close()
		return nil, fmt.Errorf("%s: is a directory", name)
	case !st.Mode().IsRegular():
		return newStream(name, f, f, opt) // <(cmd), a FIFO, /dev/stdin
	}
	in := newInput(name, opt)
	in.file = name
	in.reopen = func() (io.ReadCloser, error) { return os.Open(name) }
	err = in.sniff(bufio.NewReaderSize(f, PeekSize))
	f.Close()
	if err != nil {
		return nil, err
	}
	return in, nil
}

// OpenReader returns an input read once from r, such as a network stream;
// name is shown in messages.
func OpenReader(name string, r io.Reader, opt Options) (*Input, error) {
	in, err := newStream(name, r, nil, opt)
	if err != nil {
		return nil, err
	}
	in.Display = name
	return in, nil
}

// OpenFunc returns an input read through open, which returns its bytes
// (compressed or not) from the start each time it is called: a file, or
// any storage a program has. name is shown in messages.
func OpenFunc(name string, open func() (io.ReadCloser, error), opt Options) (*Input, error) {
	in := newInput(name, opt)
	in.Display = name
	in.reopen = open
	rc, err := open()
	if err != nil {
		return nil, err
	}
	err = in.sniff(bufio.NewReaderSize(rc, PeekSize))
	rc.Close()
	if err != nil {
		return nil, err
	}
	return in, nil
}

func newInput(name string, opt Options) *Input {
	return &Input{Name: name, Display: folded.DisplayName(name), TempDir: opt.TempDir, Kind: opt.Format}
}

func newStream(name string, r io.Reader, closer io.Closer, opt Options) (*Input, error) {
	in := newInput(name, opt)
	in.Stream = true
	in.raw = bufio.NewReaderSize(r, PeekSize)
	in.rawClose = closer
	if err := in.sniff(in.raw); err != nil {
		if closer != nil {
			closer.Close()
		}
		return nil, err
	}
	return in, nil
}

// sniff peeks at the first bytes of br (leaving them in it), decompresses
// them and recognises the content.
func (in *Input) sniff(br *bufio.Reader) error {
	raw, err := br.Peek(PeekSize)
	if err != nil && err != io.EOF {
		return fmt.Errorf("%s: %w", in.Display, err)
	}
	head, whole, m, err := decompress.Head(raw, PeekSize)
	if err != nil {
		return fmt.Errorf("%s: %w", in.Display, err)
	}
	in.Method = m
	in.gzTime = gzipTime(raw)
	// Only the start is kept: an input is sniffed when opened, and a
	// night of hundreds of files must not hold 64 KiB of each.
	in.Head = bytes.Clone(head[:min(len(head), KeptHead)])
	in.Text = IsText(head)
	in.Complete = len(raw) < PeekSize && whole
	in.Sniffed = Sniff(head, in.Complete)
	if in.Kind == Unknown {
		in.Kind = in.Sniffed
	}
	return nil
}

// Check returns nil for an input of a known kind (or empty), and for one
// of no known kind an error that says what it looks like and what was
// expected.
func (in *Input) Check() error {
	if in.Kind != Unknown {
		return nil
	}
	return unknownError(in.Display, in.Head, in.Method)
}

// Keep asks for a copy of a stream to be made as it is first read, in
// TempDir, so that it can be read again (a file is read again
// from the file: Keep does nothing). It must be called before the first
// Open; Close removes the copy.
func (in *Input) Keep() {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.reopen == nil && !in.used {
		in.keep = true
	}
}

// Spool copies a stream whole into its copy now (as Keep, then a reading
// to its end), so that it reads as a file from then on: its head can be
// read first, the whole read after, and again (Rereadable). It does nothing
// for a file or a stream already copied whole; a stream already read
// without a copy is an error.
func (in *Input) Spool() error {
	if in.Rereadable() {
		return nil
	}
	in.Keep()
	_, closer, t, err := in.openRaw()
	if err != nil {
		return err
	}
	if t == nil {
		closer.Close()
		return fmt.Errorf("%s can be read only once: it is a stream and was read before a copy of it was asked for", in.Display)
	}
	err = t.drain()
	if cerr := closer.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("%s: %w", in.Display, err)
	}
	return nil
}

// Rereadable reports whether the input can be read again: a file, or a
// stream whose copy is whole (see Keep and Spool).
func (in *Input) Rereadable() bool {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.reopen != nil || in.spool != nil && in.whole
}

// Open returns the content of the input from its start, decompressed: a
// file is opened again; a stream is read on from its sniffed head the
// first time, and from its copy (see Keep) after that.
func (in *Input) Open() (io.ReadCloser, error) {
	return in.open(decompress.NewReader)
}

// OpenLight is Open for reading a little of the input (its first lines),
// or many inputs at once: decompression runs on the reader's goroutine,
// with small buffers (see decompress.NewLightReader).
func (in *Input) OpenLight() (io.ReadCloser, error) {
	return in.open(decompress.NewLightReader)
}

func (in *Input) open(newReader func(io.Reader) (io.ReadCloser, decompress.Method, error)) (io.ReadCloser, error) {
	raw, closer, tee, err := in.openRaw()
	if err != nil {
		return nil, err
	}
	rc, _, err := newReader(raw)
	if err != nil {
		closer.Close()
		return nil, fmt.Errorf("%s: %w", in.Display, err)
	}
	return &content{rc: rc, raw: closer, tee: tee}, nil
}

// openRaw returns the raw bytes of the input from the start.
func (in *Input) openRaw() (io.Reader, io.Closer, *tee, error) {
	in.mu.Lock()
	defer in.mu.Unlock()
	switch {
	case in.reopen != nil:
		rc, err := in.reopen()
		if err != nil {
			return nil, nil, nil, err
		}
		return rc, rc, nil, nil
	case !in.used:
		in.used = true
		br, closer := in.raw, in.rawClose
		in.raw = nil
		if closer == nil {
			closer = nopCloser{}
		}
		if !in.keep {
			return br, closer, nil, nil
		}
		tf, err := createTemp(in.TempDir, "flamekit-*.spool")
		if err != nil {
			closer.Close()
			return nil, nil, nil, fmt.Errorf("%s: cannot keep a copy of the stream to read it again (set TMPDIR to a directory with room): %w", in.Display, err)
		}
		in.spool = tf
		t := &tee{in: in, src: br, f: tf.f}
		return t, closer, t, nil
	case in.spool != nil && in.whole:
		f, err := os.Open(in.spool.path)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("%s: reading the copy of the stream: %w", in.Display, err)
		}
		return f, f, nil, nil
	case in.spool != nil:
		return nil, nil, nil, fmt.Errorf("%s: the copy of the stream is incomplete (its first reading stopped before the end): it cannot be read again", in.Display)
	}
	return nil, nil, nil, fmt.Errorf("%s can be read only once: it is a stream (standard input, a pipe, a FIFO) and no copy of it was kept", in.Display)
}

// Path returns the path of a file that holds the content of the input,
// decompressed: the input itself when it is an uncompressed regular file,
// the copy of an uncompressed stream spooled whole (see Spool), else a
// temporary copy (made once; Close removes it). For readers that
// read at offsets (perf.data). A compressed input cut short gives a copy
// of what came before the cut, and Cut says so.
func (in *Input) Path() (string, error) {
	if in.file != "" && in.Method == decompress.None {
		return in.file, nil
	}
	in.mu.Lock()
	var p string
	switch {
	case in.copy != nil:
		p = in.copy.path
	case in.Method == decompress.None && in.spool != nil && in.whole:
		p = in.spool.path // the copy of an uncompressed stream is its content
	}
	in.mu.Unlock()
	if p != "" {
		return p, nil
	}
	rc, err := in.Open()
	if err != nil {
		return "", err
	}
	defer rc.Close()
	tf, err := createTemp(in.TempDir, "flamekit-*.data")
	if err != nil {
		return "", fmt.Errorf("%s: a decompressed copy is needed to read it, and cannot be made (set TMPDIR to a directory with room): %w", in.Display, err)
	}
	var cut error
	if _, err = io.Copy(tf.f, rc); errors.Is(err, decompress.ErrTruncated) {
		// A perf.data.gz cut off (a copy interrupted, a full disk):
		// the copy holds the content up to the cut, which a reader of
		// a perf.data cut short reads to its last complete record, as
		// it reads the same cut uncompressed.
		cut, err = err, nil
	}
	if err != nil {
		name := tf.f.Name()
		tf.close()
		return "", fmt.Errorf("%s: making a decompressed copy in %s: %w", in.Display, name, err)
	}
	if t, ok := in.ModTime(); ok {
		// The copy is dated as its content (perf script prints it as
		// "captured on").
		os.Chtimes(tf.path, t, t)
	}
	in.mu.Lock()
	in.copy, in.cut = tf, cut
	in.mu.Unlock()
	return tf.path, nil
}

// Cut returns why the decompressed copy Path made holds less than the
// input should (a compressed stream cut short: what came before the cut
// is there, whole), nil when it is whole or none was made.
func (in *Input) Cut() error {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.cut
}

// ModTime returns when the content was written, for the readers that
// date a capture by it (perf.data's "captured on"): an uncompressed
// file's modification time; for a gzip input, file or stream, the time its
// header records (the original file's, as gzip keeps it). Anything else
// has none (false): a stream not gzipped (standard input), gzip -n, zstd,
// whose frames hold no time. A compressed file's own time is not used:
// it is the original's only when gzip or zstd made it in place (not with
// -c, nor after a copy or a checkout). Path's copies have the time of
// copying, never the content's.
func (in *Input) ModTime() (time.Time, bool) {
	switch {
	case !in.gzTime.IsZero():
		return in.gzTime, true
	case in.file == "" || in.Method != decompress.None:
		return time.Time{}, false
	}
	st, err := os.Stat(in.file)
	if err != nil {
		return time.Time{}, false
	}
	return st.ModTime(), true
}

// gzipTime returns the MTIME of a gzip header at the start of raw (zero
// for none, or 0: "no time stamp", gzip -n or a stream).
func gzipTime(raw []byte) time.Time {
	if len(raw) < 8 || raw[0] != 0x1f || raw[1] != 0x8b || raw[2] != 8 {
		return time.Time{}
	}
	if sec := binary.LittleEndian.Uint32(raw[4:8]); sec != 0 {
		return time.Unix(int64(sec), 0)
	}
	return time.Time{}
}

// Size returns the size in bytes of a regular file as stored
// (compressed or not), 0 for other inputs: a hint for buffers.
func (in *Input) Size() int64 {
	if in.file == "" {
		return 0
	}
	st, err := os.Stat(in.file)
	if err != nil {
		return 0
	}
	return st.Size()
}

// Close closes a stream never read and removes the copies made.
func (in *Input) Close() error {
	in.mu.Lock()
	defer in.mu.Unlock()
	var errs []error
	if in.raw != nil && in.rawClose != nil {
		errs = append(errs, in.rawClose.Close())
	}
	in.raw = nil
	for _, p := range []**tempFile{&in.spool, &in.copy} {
		if *p != nil {
			errs = append(errs, (*p).close())
			*p = nil
		}
	}
	in.whole = false
	return errors.Join(errs...)
}

// content is what Open returns: the decompressed reader over the raw one.
type content struct {
	rc  io.ReadCloser // decompressed
	raw io.Closer     // the raw source
	tee *tee          // the copy being made, if any
}

func (c *content) Read(p []byte) (int, error) {
	n, err := c.rc.Read(p)
	if err == io.EOF && c.tee != nil {
		// The content has ended: copy what is left of the raw
		// stream (a trailer, padding) so that the copy is whole.
		if derr := c.tee.drain(); derr != nil {
			return n, fmt.Errorf("%s: %w", c.tee.in.Display, derr)
		}
	}
	return n, err
}

func (c *content) Close() error {
	return errors.Join(c.rc.Close(), c.raw.Close())
}

// tee copies a stream into the spool file as it is read.
type tee struct {
	in  *Input
	src io.Reader
	f   *os.File
	eof bool
	err error
}

func (t *tee) Read(p []byte) (int, error) {
	if t.err != nil {
		return 0, t.err
	}
	n, err := t.src.Read(p)
	if n > 0 {
		if _, werr := t.f.Write(p[:n]); werr != nil {
			t.err = fmt.Errorf("keeping a copy of the stream in %s: %w", t.f.Name(), werr)
			return n, t.err
		}
	}
	if err == io.EOF && !t.eof {
		t.eof = true
		t.in.mu.Lock()
		t.in.whole = t.in.spool != nil && t.in.spool.f == t.f
		t.in.mu.Unlock()
	}
	return n, err
}

// drain reads the rest of the stream into the copy.
func (t *tee) drain() error {
	if t.eof {
		return t.err
	}
	_, err := io.Copy(io.Discard, t)
	return err
}

type nopCloser struct{}

func (nopCloser) Close() error { return nil }

// Inputs are the inputs of one run.
type Inputs []*Input

// ErrStdinTwice is the error of a command line naming standard input ("-")
// more than once: it can be read only once.
var ErrStdinTwice = errors.New("standard input (-) is named more than once: it can be read only once")

// CheckNames returns ErrStdinTwice when names hold "-" more than once.
func CheckNames(names []string) error {
	n := 0
	for _, name := range names {
		if name == "-" {
			n++
		}
	}
	if n > 1 {
		return fmt.Errorf("%w (%d times)", ErrStdinTwice, n)
	}
	return nil
}

// OpenAll opens the named inputs, in order (no names: standard input),
// after CheckNames. On an error, the inputs opened are closed.
func OpenAll(names []string, opt Options) (Inputs, error) {
	if len(names) == 0 {
		names = []string{"-"}
	}
	if err := CheckNames(names); err != nil {
		return nil, err
	}
	ins := make(Inputs, 0, len(names))
	for _, name := range names {
		in, err := Open(name, opt)
		if err != nil {
			ins.Close()
			return nil, err
		}
		ins = append(ins, in)
	}
	return ins, nil
}

// Close closes every input (see Input.Close).
func (ins Inputs) Close() error {
	var errs []error
	for _, in := range ins {
		errs = append(errs, in.Close())
	}
	return errors.Join(errs...)
}
