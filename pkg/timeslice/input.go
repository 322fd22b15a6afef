package timeslice

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"

	"flamekit/pkg/folded"
)

// Metadata keys of a --keep-time slice: its window on perf's clock, from
// (included) and to (excluded). Its first and last stay the capture's, so
// that relative times keep their meaning.
const (
	KeySliceFrom = "slice-from"
	KeySliceTo   = "slice-to"
)

// mode says how an input is read once it is selected.
type mode uint8

const (
	// modeSeek: an uncompressed regular file, read at offsets (seekable).
	modeSeek mode = iota + 1
	// modeReopen: a gzipped regular file, opened again and streamed.
	modeReopen
	// modeStream: standard input, a pipe or a FIFO: kept open after its
	// head was read and streamed on from there.
	modeStream
)

// Input is one timed folded input whose head (metadata lines and first
// sample) has been read.
type Input struct {
	// Name is the name given on the command line ("-" is standard input).
	Name string
	// Display is the name shown in messages.
	Display string
	// Metas are the metadata lines found in the head (and, for
	// uncompressed files without a declared end, in the tail).
	Metas []folded.Meta
	// Merged holds the fields of all Metas (later lines win), with first
	// and last set to the span.
	Merged folded.Meta

	// First and Last are the span declared by the metadata (HasSpan), the
	// earliest first and the latest last of all metadata lines.
	First, Last folded.Time
	HasSpan     bool
	// FirstSeen is the time of the first sample line (HasFirstSeen).
	FirstSeen    folded.Time
	HasFirstSeen bool
	// LastSeen is the time of the last sample line of an uncompressed
	// file, read from its tail when the metadata declares no end.
	LastSeen    folded.Time
	HasLastSeen bool
	// FirstKind is the kind of the first sample line, FirstWhere where it
	// is; Empty is set when the input has no sample line at all.
	FirstKind  folded.Kind
	FirstWhere string
	Empty      bool

	mode    mode
	ra      io.ReaderAt // modeSeek
	size    int64       // modeSeek
	headEnd int64       // modeSeek: offset of the first sample line
	file    *os.File
	// modeStream: the open stream, positioned after the first sample,
	// and that sample.
	lr      *lineReader
	closer  io.Closer
	pending []pendingLine
	// headRead counts the bytes read to probe the input (not counting
	// decompression).
	headRead int64
	// seen is the span of the samples a Slicer read (Slicer.Seen).
	seen span
}

// Origin returns the input's first sample: the declared first, else the
// first sample line.
func (in *Input) Origin() (folded.Time, bool) {
	switch {
	case in.HasSpan:
		if in.HasFirstSeen && in.FirstSeen < in.First {
			return in.FirstSeen, true
		}
		return in.First, true
	case in.HasFirstSeen && in.FirstKind == folded.Timed:
		return in.FirstSeen, true
	}
	if f, ok := in.Merged.Time(folded.KeyFirst); ok {
		return f, true
	}
	return 0, false
}

// Span returns the best known span of the input and whether it is
// declared by metadata (only declared spans are used to skip inputs). The
// span of a --keep-time slice is narrowed to the slice.
func (in *Input) Span() (first, last folded.Time, declared, ok bool) {
	if in.HasSpan {
		first, last = in.First, in.Last
		if in.HasFirstSeen && in.FirstKind == folded.Timed && in.FirstSeen < first {
			first = in.FirstSeen
		}
		if f, ok := in.Merged.Time(KeySliceFrom); ok && f > first {
			first = f
		}
		if t, ok := in.Merged.Time(KeySliceTo); ok && t-1 < last {
			last = t - 1
		}
		if last < first {
			last = first
		}
		return first, last, true, true
	}
	if in.HasFirstSeen && in.FirstKind == folded.Timed && in.HasLastSeen {
		first, last = in.FirstSeen, in.LastSeen
		if last < first {
			first, last = last, first
		}
		return first, last, false, true
	}
	return 0, 0, false, false
}

// Close releases what the input holds open.
func (in *Input) Close() error {
	var errs []error
	if in.closer != nil {
		errs = append(errs, in.closer.Close())
		in.closer = nil
	}
	if in.file != nil {
		errs = append(errs, in.file.Close())
		in.file = nil
	}
	return errors.Join(errs...)
}

// Probe opens the named input ("-" is os.Stdin) and reads its head:
// the metadata lines before its first sample, and that sample's time. An
// uncompressed regular file is then read at offsets only; a gzipped one
// is closed and opened again if it is selected; a stream stays open.
// Callers with their own standard input (the command's cli.Env) give it
// to ProbeStream instead.
func Probe(name string) (*Input, error) {
	if name == "-" {
		// As folded.Open: the process's standard input is not closed.
		return ProbeStream(name, io.NopCloser(os.Stdin))
	}
	in := &Input{Name: name, Display: folded.DisplayName(name)}
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return in, in.probeStream(f)
	}
	var magic [2]byte
	n, _ := f.ReadAt(magic[:], 0)
	if n == 2 && magic == [2]byte{0x1f, 0x8b} {
		defer f.Close()
		return in, in.probeGzip(f)
	}
	in.file = f
	if err := in.probeSeek(f, st.Size()); err != nil {
		f.Close()
		return nil, err
	}
	return in, nil
}

// ProbeReaderAt probes an uncompressed input of the given size read
// through r (for tests and for callers with their own storage).
func ProbeReaderAt(name string, r io.ReaderAt, size int64) (*Input, error) {
	in := &Input{Name: name, Display: name}
	return in, in.probeSeek(r, size)
}

// ProbeStream probes an input that can be read only once (standard input,
// a pipe); r may be gzipped. The Input keeps r open.
func ProbeStream(name string, r io.ReadCloser) (*Input, error) {
	in := &Input{Name: name, Display: folded.DisplayName(name)}
	return in, in.probeStream(r)
}

func (in *Input) probeStream(r io.ReadCloser) error {
	in.mode = modeStream
	rc, err := folded.Decompress(r)
	if err != nil {
		r.Close()
		return fmt.Errorf("%s: %w", in.Display, err)
	}
	in.closer = rc
	in.lr = newLineReader(rc, 256<<10, 0)
	return in.readHead(in.lr)
}

// pendingLine is a line of a stream read by Probe, to be read again.
type pendingLine struct {
	text []byte
	n    int // line number
}

// probeGzip reads the head of a gzipped file with compress/gzip, not
// folded.Decompress's pgzip, on purpose: the head is a few lines, and
// pgzip's reader allocates four 1 MiB blocks and decompresses up to 4 MiB
// ahead in a goroutine, for each of what may be hundreds of inputs of
// which most are then skipped. An input that is selected is opened again
// with folded.Open and read whole with pgzip, where the read-ahead pays.
func (in *Input) probeGzip(f *os.File) error {
	in.mode = modeReopen
	zr, err := gzip.NewReader(bufio.NewReaderSize(f, 32<<10))
	if err != nil {
		return fmt.Errorf("%s: reading gzip header: %w", in.Display, err)
	}
	defer zr.Close()
	lr := newLineReader(zr, 32<<10, 0)
	return in.readHead(lr)
}

func (in *Input) probeSeek(r io.ReaderAt, size int64) error {
	in.mode, in.ra, in.size = modeSeek, r, size
	lr := newLineReader(io.NewSectionReader(r, 0, size), 16<<10, 0)
	if err := in.readHead(lr); err != nil {
		return err
	}
	in.headRead = lr.read
	if in.Empty {
		in.headEnd = size
		return nil
	}
	if !in.HasSpan {
		if err := in.readTail(); err != nil {
			return err
		}
	}
	return nil
}

// headLookahead is how many untimed sample lines may start an input
// before it is taken for classic folded stacks.
const headLookahead = 1000

// readHead reads up to and including the first timed sample line,
// collecting metadata lines; it gives up after headLookahead untimed
// (classic or differential) lines. Lines of a stream are kept in pending
// to be read again.
func (in *Input) readHead(lr *lineReader) error {
	untimed := 0
	for {
		line, err := lr.next()
		if err == io.EOF {
			in.Empty = in.FirstKind == 0
			in.mergeMetas()
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", in.Display, gzipTruncated(err))
		}
		if folded.IsMeta(line) {
			if m, err := folded.ParseMeta(line); err == nil {
				m.Line = lr.line
				in.Metas = append(in.Metas, m)
			}
			continue
		}
		if in.mode == modeStream {
			in.pending = append(in.pending, pendingLine{bytes.Clone(line), lr.line})
		}
		var rec folded.Record
		if isComment(line) || folded.ParseLine(line, &rec) != nil {
			continue // comments, blank and malformed lines: counted when read
		}
		if in.FirstKind == 0 {
			in.FirstKind = rec.Kind
			in.FirstWhere = lr.where(in.Display)
			in.headEnd = lr.lineOff
		}
		if rec.Kind == folded.Timed {
			in.FirstKind = folded.Timed
			in.FirstSeen, in.HasFirstSeen = rec.Time, true
			in.mergeMetas()
			return nil
		}
		if untimed++; untimed >= headLookahead {
			in.mergeMetas()
			return nil
		}
	}
}

func isComment(line []byte) bool { return len(line) > 0 && line[0] == '#' }

func gzipTruncated(err error) error {
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return errors.New("gzip data is truncated (unexpected end of file)")
	}
	return err
}

// mergeMetas computes Merged and the declared span from Metas. A line
// whose first and last are equal (perf prints 0.000000 for both in
// --switch-output chunks) declares no span unless it counts one sample.
func (in *Input) mergeMetas() {
	var merged folded.Meta
	hasFirst, hasLast := false, false
	var first, last folded.Time
	for i := range in.Metas {
		m := &in.Metas[i]
		for _, f := range m.Fields {
			if f.Key != folded.KeyFirst && f.Key != folded.KeyLast {
				merged.Set(f.Key, f.Value)
			}
		}
		f, okF := m.Time(folded.KeyFirst)
		l, okL := m.Time(folded.KeyLast)
		if okF && okL && f >= l {
			if n, _ := m.Get(folded.KeySamples); f > l || n != "1" {
				continue
			}
		}
		if okF && (!hasFirst || f < first) {
			first, hasFirst = f, true
		}
		if okL && (!hasLast || l > last) {
			last, hasLast = l, true
		}
	}
	if hasFirst {
		merged.Set(folded.KeyFirst, first.String())
	}
	if hasLast {
		merged.Set(folded.KeyLast, last.String())
	}
	in.Merged = merged
	in.First, in.Last = first, last
	in.HasSpan = hasFirst && hasLast && first <= last
}

// readTail reads the end of an uncompressed file for trailing metadata
// lines and the time of the last sample line.
func (in *Input) readTail() error {
	const maxTail = 16 << 20
	for chunk := int64(64 << 10); ; chunk *= 4 {
		start := max(in.headEnd, in.size-chunk)
		buf := make([]byte, in.size-start)
		n, err := in.ra.ReadAt(buf, start)
		in.headRead += int64(n)
		if err != nil && err != io.EOF {
			return fmt.Errorf("%s: %w", in.Display, err)
		}
		buf = buf[:n]
		var metas []folded.Meta
		found := false
		lines := bytes.Split(bytes.TrimSuffix(buf, []byte("\n")), []byte("\n"))
		if start > in.headEnd {
			lines = lines[1:] // the first line of the chunk may be partial
		}
		for i := len(lines) - 1; i >= 0; i-- {
			line := lines[i]
			if folded.IsMeta(line) {
				if m, err := folded.ParseMeta(line); err == nil {
					metas = append(metas, m)
				}
				continue
			}
			var rec folded.Record
			if isComment(line) || folded.ParseLine(line, &rec) != nil || rec.Kind != folded.Timed {
				continue
			}
			in.LastSeen, in.HasLastSeen, found = rec.Time, true, true
			break
		}
		if found || start == in.headEnd || chunk >= maxTail {
			for i := len(metas) - 1; i >= 0; i-- {
				in.Metas = append(in.Metas, metas[i])
			}
			in.mergeMetas()
			return nil
		}
	}
}

// String describes the input's span for messages.
func (in *Input) String() string {
	first, last, declared, ok := in.Span()
	if !ok {
		if in.Empty {
			return in.Display + " (no samples)"
		}
		return in.Display + " (span unknown)"
	}
	how := ""
	if !declared {
		how = ", from its first and last lines"
	}
	return fmt.Sprintf("%s @%v to @%v (%s s%s)", in.Display, first, last, formatSeconds(last-first), how)
}
