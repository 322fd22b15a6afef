package folded

import (
	"bufio"
	"fmt"
	"io"
	"iter"
	"strconv"
	"unicode/utf8"
)

// ParseError is a malformed line, with where it was found.
type ParseError struct {
	File string // input name ("-" or "<stdin>" for standard input)
	Line int    // 1-based line number
	Text string // the start of the offending line, for the message
	Err  error  // what is wrong, e.g. ErrNoCount
}

func (e *ParseError) Error() string {
	return fmt.Sprintf("%s:%d: %v: %s", e.File, e.Line, e.Err, e.Text)
}

func (e *ParseError) Unwrap() error { return e.Err }

// QuoteLine quotes the start of a line (at most 80 bytes, cut at a
// character boundary, "..." after a cut) for an error message.
func QuoteLine(line []byte) string {
	const max = 80
	cut := len(line) > max
	if cut {
		line = line[:max]
		for len(line) > 0 && !utf8.Valid(line) {
			line = line[:len(line)-1]
		}
	}
	s := strconv.Quote(string(line))
	if cut {
		s += "..."
	}
	return s
}

// Skips counts the lines a lenient Reader passed over.
type Skips struct {
	Count int         // lines skipped
	First *ParseError // the first of them
}

// Add records one more skipped line.
func (s *Skips) Add(e *ParseError) {
	s.Count++
	if s.First == nil {
		s.First = e
	}
}

// Note counts one more skipped line: line number line of file, whose
// text is text, skipped for err. Only the first skipped line is kept (and
// its text quoted), so counting the others costs nothing.
func (s *Skips) Note(file string, line int, text []byte, err error) {
	s.Count++
	if s.First == nil {
		s.First = &ParseError{File: file, Line: line, Text: QuoteLine(text), Err: err}
	}
}

// Merge adds the counts of o to s.
func (s *Skips) Merge(o Skips) {
	s.Count += o.Count
	if s.First == nil {
		s.First = o.First
	}
}

// String summarises the skips for a one-line message on stderr, or returns
// "" when nothing was skipped: "skipped 3 malformed lines (first:
// FILE:LINE: reason: "text")". Every flamekit tool but flamegraph (which
// keeps flamegraph.pl's wording) reports skipped lines in this form.
func (s Skips) String() string { return s.Describe("malformed") }

// Describe is String with another word for the kind of lines skipped
// ("untimed").
func (s Skips) Describe(kind string) string {
	if s.Count == 0 {
		return ""
	}
	lines := "lines"
	if s.Count == 1 {
		lines = "line"
	}
	return fmt.Sprintf("skipped %d %s %s (first: %v)", s.Count, kind, lines, s.First)
}

// Reader reads folded lines from a stream, one Record at a time, in the
// manner of bufio.Scanner:
//
//	rd := folded.NewReader(f, "profile.folded")
//	for rd.Next() {
//		rec := rd.Record()
//		...
//	}
//	if err := rd.Err(); err != nil { ... }
//
// Lines may be of any length. Metadata lines are collected (see Meta) and
// not returned as records. A metadata line says the kind of the lines
// after it (timed or classic, Kind), which wins over guessing: after one,
// "java;Evil 5 7" is a classic line of count 7 whose leaf is "Evil 5";
// before any (the Perl tools' output, difffolded's), it is differential,
// as flamegraph.pl reads it (ParseLineIn).
type Reader struct {
	// Lenient makes the Reader skip malformed and blank lines, counting
	// them in Skips, instead of stopping with a *ParseError.
	Lenient bool

	name  string
	br    *bufio.Reader
	long  []byte
	line  int
	text  []byte // the last line read
	rec   Record
	err   error
	skips Skips
	meta  []Meta
	kind  Kind // the kind the last metadata line says, 0 before one
}

// NewReader returns a Reader reading from r; name is used in errors.
func NewReader(r io.Reader, name string) *Reader {
	return NewReaderSize(r, name, 256<<10)
}

// NewReaderSize is NewReader with a buffer of at least size bytes, for
// callers that read only a few lines (the head of an input) and want to
// read little more than those. A *bufio.Reader brings its own buffer,
// which is used when big enough.
func NewReaderSize(r io.Reader, name string, size int) *Reader {
	br, ok := r.(*bufio.Reader)
	if !ok || br.Size() < size {
		br = bufio.NewReaderSize(r, size)
	}
	return &Reader{name: name, br: br}
}

// Name returns the input name given to NewReader.
func (r *Reader) Name() string { return r.name }

// Line returns the number of the last line read.
func (r *Reader) Line() int { return r.line }

// Skips returns what a lenient Reader has skipped so far.
func (r *Reader) Skips() Skips { return r.skips }

// Meta returns the metadata lines read so far.
func (r *Reader) Meta() []Meta { return r.meta }

// Kind returns the kind of stream the last metadata line read says
// (Timed or Classic; 0 before the first): how the lines after it are read
// (ParseLineIn).
func (r *Reader) Kind() Kind { return r.kind }

// Text returns the last line read, without its newline: the line of the
// current record. It is valid until the next call to Next.
func (r *Reader) Text() []byte { return r.text }

// Record returns the record read by the last successful call to Next. It
// and its Stack are valid until the next call to Next.
func (r *Reader) Record() *Record { return &r.rec }

// Err returns the first error other than io.EOF met by Next.
func (r *Reader) Err() error { return r.err }

// readLine returns the next raw line without its newline. The slice is
// valid until the next call. It returns io.EOF after the last line.
func (r *Reader) readLine() ([]byte, error) {
	line, err := r.br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		r.long = append(r.long[:0], line...)
		for err == bufio.ErrBufferFull {
			line, err = r.br.ReadSlice('\n')
			r.long = append(r.long, line...)
		}
		line = r.long
	}
	if len(line) > 0 {
		r.line++
		if line[len(line)-1] == '\n' {
			line = line[:len(line)-1]
		} else if err == io.EOF {
			err = nil // last line without a newline
		}
		if err == nil {
			return line, nil
		}
	}
	if err != nil && err != io.EOF {
		err = fmt.Errorf("%s: line %d: %w", r.name, r.line+1, err)
	}
	return nil, err
}

// Next reads the next record. It returns false at the end of the input or
// on an error, which Err then reports.
func (r *Reader) Next() bool {
	if r.err != nil {
		return false
	}
	for {
		line, err := r.readLine()
		if err != nil {
			if err != io.EOF {
				r.err = err
			}
			return false
		}
		r.text = line
		if IsMeta(line) {
			m, err := ParseMeta(line)
			if err == nil {
				m.Line = r.line
				r.meta = append(r.meta, m)
				r.kind = Timed
				if m.Classic {
					r.kind = Classic
				}
				continue
			}
			if r.fail(line, err) {
				return false
			}
			continue
		}
		if err := ParseLineIn(line, &r.rec, r.kind); err != nil {
			if r.fail(line, err) {
				return false
			}
			continue
		}
		return true
	}
}

// All returns the records of r as an iterator: each step is a Next, the
// record valid for that step; Err then reports what ended it.
func (r *Reader) All() iter.Seq[*Record] {
	return func(yield func(*Record) bool) {
		for r.Next() {
			if !yield(&r.rec) {
				return
			}
		}
	}
}

// fail handles a malformed line; it reports whether reading must stop.
func (r *Reader) fail(line []byte, err error) bool {
	if r.Lenient {
		r.skips.Note(r.name, r.line, line, err)
		return false
	}
	r.err = &ParseError{File: r.name, Line: r.line, Text: QuoteLine(line), Err: err}
	return true
}

// StdinName is the name "-" is shown as in messages.
const StdinName = "<stdin>"

// DisplayName returns the name of an input as messages show it.
func DisplayName(name string) string {
	if name == "-" {
		return StdinName
	}
	return name
}
