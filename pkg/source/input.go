package source

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

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
	Head     []byte            // the first PeekSize bytes of the content (fewer at its end)
	Complete bool              // Head is the whole content
	TempDir  string            // where copies are made: Options.TempDir, until changed

	file   string                        // the path of a regular file
	reopen func() (io.ReadCloser, error) // the raw bytes, again (nil for a stream)

	mu       sync.Mutex
	raw      *bufio.Reader // a stream not read yet, its first bytes buffered
	rawClose io.Closer     // closes the stream (nil: the caller's)
	keep     bool          // copy the stream as it is read
	used     bool          // the stream has been opened
	spool    string        // the copy of the stream
	whole    bool          // the copy holds all of the stream
	copyPath string        // the decompressed copy Path made
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
	in.Head = bytes.Clone(head)
	in.Complete = len(raw) < PeekSize && whole
	in.Sniffed = Sniff(in.Head, in.Complete)
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
	return in.reopen != nil || in.spool != "" && in.whole
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
		f, err := createTemp(in.TempDir, "flamekit-*.spool")
		if err != nil {
			closer.Close()
			return nil, nil, nil, fmt.Errorf("%s: cannot keep a copy of the stream to read it again (set TMPDIR to a directory with room): %w", in.Display, err)
		}
		in.spool = f.Name()
		t := &tee{in: in, src: br, f: f}
		return t, closers{t, closer}, t, nil
	case in.spool != "" && in.whole:
		f, err := os.Open(in.spool)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("%s: reading the copy of the stream: %w", in.Display, err)
		}
		return f, f, nil, nil
	case in.spool != "":
		return nil, nil, nil, fmt.Errorf("%s: the copy of the stream is incomplete (its first reading stopped before the end): it cannot be read again", in.Display)
	}
	return nil, nil, nil, fmt.Errorf("%s can be read only once: it is a stream (standard input, a pipe, a FIFO) and no copy of it was kept", in.Display)
}

// Path returns the path of a file that holds the content of the input,
// decompressed: the input itself when it is an uncompressed regular file,
// the copy of an uncompressed stream spooled whole (see Spool), else a
// temporary copy (made once; Close removes it). For readers that
// read at offsets (perf.data).
func (in *Input) Path() (string, error) {
	if in.file != "" && in.Method == decompress.None {
		return in.file, nil
	}
	in.mu.Lock()
	p := in.copyPath
	if p == "" && in.Method == decompress.None && in.spool != "" && in.whole {
		p = in.spool // the copy of an uncompressed stream is its content
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
	f, err := createTemp(in.TempDir, "flamekit-*.data")
	if err != nil {
		return "", fmt.Errorf("%s: a decompressed copy is needed to read it, and cannot be made (set TMPDIR to a directory with room): %w", in.Display, err)
	}
	_, err = io.Copy(f, rc)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		removeTemp(f.Name())
		return "", fmt.Errorf("%s: making a decompressed copy in %s: %w", in.Display, f.Name(), err)
	}
	in.mu.Lock()
	in.copyPath = f.Name()
	in.mu.Unlock()
	return f.Name(), nil
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
	for _, p := range []*string{&in.spool, &in.copyPath} {
		if *p != "" {
			if err := removeTemp(*p); err != nil && !errors.Is(err, os.ErrNotExist) {
				errs = append(errs, err)
			}
			*p = ""
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
		t.in.whole = t.in.spool == t.f.Name()
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

func (t *tee) Close() error { return t.f.Close() }

type nopCloser struct{}

func (nopCloser) Close() error { return nil }

type closers []io.Closer

func (cs closers) Close() error {
	var errs []error
	for _, c := range cs {
		errs = append(errs, c.Close())
	}
	return errors.Join(errs...)
}

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
