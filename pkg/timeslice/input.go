package timeslice

import (
	"errors"
	"fmt"
	"io"
	"os"

	"flamekit/pkg/folded"
)

// Input is one input of a run: a regular file, which can be read again,
// or a stream (standard input, a pipe, a FIFO), which can be read once.
// What reading it found (its metadata lines and the span of its samples)
// is kept on it, for the window and the messages.
type Input struct {
	// Name is the name given on the command line ("-" is standard input).
	Name string
	// Display is the name shown in messages ("<stdin>" for "-").
	Display string
	// Metas are the metadata lines read from the input.
	Metas []folded.Meta
	// Seen is the span of the timed samples read, and Samples their
	// number; Kept is the number a Slicer kept.
	Seen          folded.Span
	Samples, Kept int64
	// Untimed counts the lines without a time (classic or differential).
	Untimed folded.Skips
	// Read is set once the input has been read whole.
	Read bool

	head head // what Heads read

	raw    func() (io.ReadCloser, error) // opens the input's bytes (maybe gzipped)
	stream bool                          // readable once (stdin, pipe, FIFO)
	spool  *os.File                      // a copy of a stream, made by Survey
	used   bool                          // a stream without a spool has been read
}

// NewInput returns an input read through open, which returns its bytes
// (gzipped or not) each time it is called: a file, or any storage a
// program has. name is shown in messages.
func NewInput(name string, open func() (io.ReadCloser, error)) *Input {
	return &Input{Name: name, Display: name, raw: open}
}

// NewStream returns an input that can be read only once, such as a
// network stream; a window that needs two passes keeps a copy of it in a
// temporary file (see Survey).
func NewStream(name string, r io.Reader) *Input {
	return &Input{Name: name, Display: name, stream: true, raw: func() (io.ReadCloser, error) { return io.NopCloser(r), nil }}
}

// Inputs are the inputs of one run, in the order they were named.
type Inputs []*Input

// NewInputs returns the named inputs ("-" is standard input, read from
// stdin; it may be named only once). Nothing is read yet; a name that
// cannot be opened is reported when it is read.
func NewInputs(names []string, stdin io.Reader) Inputs {
	ins := make(Inputs, 0, len(names))
	for _, name := range names {
		var in *Input
		if name == "-" {
			in = NewStream(name, stdin)
		} else {
			in = NewInput(name, func() (io.ReadCloser, error) { return os.Open(name) })
			if st, err := os.Stat(name); err == nil && !st.Mode().IsRegular() {
				in.stream = true // a pipe or FIFO (<(cmd), mkfifo)
			}
		}
		in.Display = folded.DisplayName(name)
		ins = append(ins, in)
	}
	return ins
}

// Close removes the spooled copies of streams.
func (ins Inputs) Close() error {
	var errs []error
	for _, in := range ins {
		if in.spool != nil {
			errs = append(errs, in.spool.Close(), os.Remove(in.spool.Name()))
			in.spool = nil
		}
	}
	return errors.Join(errs...)
}

// open opens the input for a full read: the file, the stream the first
// time, or the stream's spooled copy.
func (in *Input) open() (io.ReadCloser, error) {
	if in.spool != nil {
		if _, err := in.spool.Seek(0, io.SeekStart); err != nil {
			return nil, fmt.Errorf("%s: rereading the copy of the input: %w", in.Display, err)
		}
		return folded.Decompress(io.NopCloser(in.spool))
	}
	if in.stream && in.used {
		return nil, fmt.Errorf("%s can be read only once", in.Display)
	}
	in.used = in.used || in.stream
	raw, err := in.raw()
	if err != nil {
		return nil, err
	}
	rc, err := folded.Decompress(raw)
	if err != nil {
		raw.Close()
		return nil, fmt.Errorf("%s: %w", in.Display, err)
	}
	return rc, nil
}

// reset forgets what an earlier read found, before the input is read again.
func (in *Input) reset() {
	in.Metas, in.Seen, in.Samples, in.Kept, in.Untimed, in.Read = nil, folded.Span{}, 0, 0, folded.Skips{}, false
}

// String describes the input and the span of its samples, for messages.
func (in *Input) String() string {
	switch {
	case !in.Read:
		return in.Display + " (not read)"
	case !in.Seen.OK:
		return in.Display + " (no timed samples)"
	}
	return fmt.Sprintf("%s @%v to @%v (%s s, %d samples)", in.Display, in.Seen.First, in.Seen.Last, formatSeconds(in.Seen.Last-in.Seen.First), in.Samples)
}

// head is what the start of an input says: the metadata lines before its
// first timed line, and that line's time.
type head struct {
	metas []folded.Meta
	first folded.Time
	ok    bool // first is set
	read  bool // the head was read
}

// headLookahead is how many untimed lines Heads reads before it gives up
// looking for the first timed one.
const headLookahead = 1000

// Heads reads the first lines of each input that can be read again (files),
// up to its first timed line: enough for Clock to guess where relative
// times start and how to reach the wall clock, before the inputs are read
// whole. Streams are left alone. The guess is only a guess: a later part
// of an input may hold earlier samples or other captures, which only a
// full read shows (see Clock).
func (ins Inputs) Heads() error {
	for _, in := range ins {
		if in.stream || in.Read || in.head.read {
			continue
		}
		raw, err := in.raw()
		if err != nil {
			return err
		}
		rc, err := folded.DecompressHead(raw)
		if err != nil {
			raw.Close()
			return fmt.Errorf("%s: %w", in.Display, err)
		}
		rd := folded.NewReaderSize(rc, in.Display, 16<<10)
		rd.Lenient = true
		for n := 0; n < headLookahead && rd.Next(); n++ {
			if rec := rd.Record(); rec.Kind == folded.Timed {
				in.head.first, in.head.ok = rec.Time, true
				break
			}
		}
		err = rd.Err()
		rc.Close()
		if err != nil {
			return err
		}
		in.head.metas, in.head.read = rd.Meta(), true
	}
	return nil
}

// HasStream reports whether an input can be read only once.
func (ins Inputs) HasStream() bool {
	for _, in := range ins {
		if in.stream {
			return true
		}
	}
	return false
}

// Survey reads every input whole, once, for what a window needs to be
// placed: the first sample of all (relative windows) and the clock
// references (wall-clock windows) of every capture, wherever they are in
// the input. Streams are copied into a temporary file in dir ("" means
// os.TempDir()) as they are read, so that a Slicer can read them again.
func (ins Inputs) Survey(dir string) error {
	for _, in := range ins {
		if err := in.survey(dir); err != nil {
			return err
		}
	}
	return nil
}

func (in *Input) survey(dir string) error {
	in.reset()
	var src io.ReadCloser
	if in.stream && in.spool == nil {
		f, err := os.CreateTemp(dir, "timeslice-*.spool")
		if err != nil {
			return fmt.Errorf("%s: cannot keep a copy of the stream to read it twice (set TMPDIR, or give the window on perf's clock, --at @SECONDS±W, which needs one pass): %w", in.Display, err)
		}
		in.spool = f
		raw, err := in.raw()
		if err != nil {
			return err
		}
		defer raw.Close()
		in.used = true
		rc, err := folded.Decompress(io.NopCloser(io.TeeReader(raw, spoolWriter{f, in.Display})))
		if err != nil {
			return fmt.Errorf("%s: %w", in.Display, err)
		}
		src = rc
	} else {
		rc, err := in.open()
		if err != nil {
			return err
		}
		src = rc
	}
	defer src.Close()
	rd := folded.NewReader(src, in.Display)
	rd.Lenient = true
	for rd.Next() {
		if rec := rd.Record(); rec.Kind == folded.Timed {
			in.Seen.Add(rec.Time)
			in.Samples++
		} else {
			in.Untimed.Note(in.Display, rd.Line(), rd.Text(), ErrUntimed)
		}
	}
	if err := rd.Err(); err != nil {
		return err
	}
	if in.spool != nil {
		// Read what a reader stopping at the end of the folded text left
		// (a gzip trailer), so the copy is whole.
		if _, err := io.Copy(io.Discard, src); err != nil {
			return fmt.Errorf("%s: %w", in.Display, err)
		}
	}
	in.Metas = rd.Meta()
	in.Read = true
	return nil
}

// spoolWriter names a failed write to the spool file in its error.
type spoolWriter struct {
	f    *os.File
	name string
}

func (s spoolWriter) Write(p []byte) (int, error) {
	n, err := s.f.Write(p)
	if err != nil {
		err = fmt.Errorf("%s: keeping a copy of the stream in %s: %w", s.name, s.f.Name(), err)
	}
	return n, err
}
