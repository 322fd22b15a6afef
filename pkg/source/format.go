package source

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"flamekit/pkg/folded"
	"flamekit/pkg/source/decompress"
)

// PeekSize is how many bytes of an input (decompressed) Sniff looks at: a
// perf script --header preamble fits in it, and so do many lines of every
// text format.
const PeekSize = 64 << 10

// KeptHead is how much of that an Input keeps (Input.Head), for the
// messages that quote an input's first line.
const KeptHead = 4 << 10

// Kind is a kind of input: one entry of the table of formats, or Unknown
// or Empty.
type Kind uint8

// The kinds of input. Each but Unknown and Empty has its entry in the
// table (see Formats).
const (
	Unknown      Kind = iota // none of the others
	Empty                    // no bytes, or only blank lines
	PerfData                 // the file perf record writes (package perfdata)
	PerfDataPipe             // perf record -o - (pipe mode): read by perf script
	Pprof                    // pprof's profile.proto (package pprof)
	PerfScript               // the text perf script prints (package perfscript)
	Bpftrace                 // the maps bpftrace prints at exit (package bpftrace)
	Folded                   // folded stacks: classic, differential or timed (package folded)
)

// Format is one entry of the table: a kind of input and how to recognise
// it. Binary formats are recognised by their first bytes (Binary); text
// formats by their lines: a Marker line decides at once (the first one
// met wins), otherwise each line counts for the first format whose Line
// takes it, and the format whose Wins accepts its count of the lines read
// is chosen, in table order.
type Format struct {
	Kind Kind
	Name string // for messages: "perf script text"
	Flag string // its --format value, "" when it is only recognised

	// Binary reports whether head (decompressed, at most PeekSize bytes)
	// starts an input of this format.
	Binary func(head []byte) bool
	// Marker reports whether a line is one only this format has.
	Marker func(line []byte) bool
	// Line reports whether a line is typical of this format.
	Line func(line []byte) bool
	// Wins decides from the count of typical lines among all lines read.
	Wins func(typical, lines int) bool
	// LongLine reports whether b, the start of a first line longer than
	// the head, starts a line of this format.
	LongLine func(b []byte) bool
}

// table is the one list of the formats flamekit reads. Adding a format is
// adding its entry here, with its recognisers (sniffers.go), and its
// package, which reads it.
var table = []Format{
	{Kind: PerfDataPipe, Name: "perf.data file in pipe mode", Binary: func(b []byte) bool {
		ok, pipe := isPerfData(b)
		return ok && pipe
	}},
	{Kind: PerfData, Name: "perf.data file", Flag: "perf-data", Binary: func(b []byte) bool {
		ok, _ := isPerfData(b)
		return ok
	}},
	{Kind: Pprof, Name: "pprof profile", Flag: "pprof", Binary: func(b []byte) bool {
		return !IsText(b) && isProfileProto(b) // text is never a profile
	}},
	{Kind: PerfScript, Name: "perf script text", Flag: "perf",
		Marker: isPerfPreamble, Line: isPerfLine,
		Wins: func(n, lines int) bool { return n > 0 && 2*n >= lines }},
	{Kind: Bpftrace, Name: "bpftrace map dump", Flag: "bpftrace", Marker: isBpftraceLine},
	{Kind: Folded, Name: "folded stacks", Flag: "folded",
		Marker: folded.IsMeta, Line: isFoldedLine,
		Wins:     func(n, lines int) bool { return 2*n > lines },
		LongLine: isFoldedLongLine},
}

// Formats returns the table of formats, in the order they are tried:
// perf.data files (and their pipe mode), pprof profiles (gzipped or not),
// perf script text, bpftrace map dumps and folded stacks (classic,
// differential or timed: stackcollapse's output, bcc's -f,
// async-profiler's collapsed). An input's kind is told by its first
// PeekSize bytes, decompressed. Adding a format is adding its entry to the
// table, and its package.
func Formats() []Format { return append([]Format(nil), table...) }

func lookup(k Kind) *Format {
	for i := range table {
		if table[i].Kind == k {
			return &table[i]
		}
	}
	return nil
}

// String returns a human name for k: "perf script text", "pprof profile"…
func (k Kind) String() string {
	switch k {
	case Unknown:
		return "unknown input"
	case Empty:
		return "empty input"
	}
	if f := lookup(k); f != nil {
		return f.Name
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Flag returns the --format value that names k ("perf", "perf-data",
// "pprof", "bpftrace", "folded"), or "" for Unknown, Empty and the kinds
// that are only recognised. A perf.data file in pipe mode is read as
// --format perf-data says.
func (k Kind) Flag() string {
	if k == PerfDataPipe {
		k = PerfData
	}
	if f := lookup(k); f != nil {
		return f.Flag
	}
	return ""
}

// IsPerfData reports whether k is a perf.data file, in either mode.
func (k Kind) IsPerfData() bool { return k == PerfData || k == PerfDataPipe }

// FormatFlags lists the --format values ParseFormat accepts.
func FormatFlags() string {
	flags := []string{"auto"}
	for _, f := range table {
		if f.Flag != "" {
			flags = append(flags, f.Flag)
		}
	}
	return strings.Join(flags, ", ")
}

// ParseFormat reads a --format value. "auto" (or "") gives Unknown,
// meaning: recognise each input by its content.
func ParseFormat(s string) (Kind, error) {
	if s == "" || s == "auto" {
		return Unknown, nil
	}
	for _, f := range table {
		if f.Flag != "" && f.Flag == s {
			return f.Kind, nil
		}
	}
	return Unknown, fmt.Errorf("unknown format %q (want one of: %s)", s, FormatFlags())
}

// ErrUnknown is wrapped by the error of an input of no known kind.
var ErrUnknown = errors.New("not an input flamekit reads")

// Sniff returns the kind of an input whose first bytes (decompressed)
// are head; complete says that head is the whole input, so that its last
// line is whole.
func Sniff(head []byte, complete bool) Kind {
	if len(bytes.TrimSpace(head)) == 0 {
		if complete || len(head) == 0 {
			return Empty
		}
		return Unknown
	}
	for _, f := range table {
		if f.Binary != nil && f.Binary(head) {
			return f.Kind
		}
	}
	if !IsText(head) {
		return Unknown
	}
	return sniffText(head, complete)
}

// maxLines is how many lines sniffText looks at.
const maxLines = 2000

// sniffText tells the text formats apart by their lines.
func sniffText(b []byte, complete bool) Kind {
	counts := make([]int, len(table))
	seen, lines := 0, 0 // lines seen; lines that count (not comments)
	for len(b) > 0 && seen < maxLines {
		var line []byte
		i := bytes.IndexByte(b, '\n')
		switch {
		case i >= 0:
			line, b = b[:i], b[i+1:]
		case complete:
			line, b = b, nil
		case seen == 0:
			return longLine(b)
		default:
			b = nil // a cut last line says nothing reliable
			continue
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		seen++
		for _, f := range table {
			if f.Marker != nil && f.Marker(line) {
				return f.Kind
			}
		}
		if line[0] == '#' {
			continue // a comment: says nothing
		}
		lines++
		for j, f := range table {
			if f.Line != nil && f.Line(line) {
				counts[j]++
				break
			}
		}
	}
	if lines == 0 {
		return Unknown
	}
	for j, f := range table {
		if f.Wins != nil && f.Wins(counts[j], lines) {
			return f.Kind
		}
	}
	return Unknown
}

// longLine judges an input whose first line is longer than the head.
func longLine(b []byte) Kind {
	for _, f := range table {
		if f.LongLine != nil && f.LongLine(b) {
			return f.Kind
		}
	}
	return Unknown
}

// IsText reports whether b is text: UTF-8 in which at most one byte in
// ten is a control character other than tab, newline, carriage return and
// form feed, or not valid UTF-8 (perf prints names as it finds them, a NUL
// byte included; binary formats are full of such bytes: a quarter of a
// pprof profile, more than half of a perf.data file or an ELF binary). A
// character cut at the end of b is allowed.
func IsText(b []byte) bool {
	bad := 0
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			if c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' || c == 0x7f {
				bad++
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size <= 1 {
			if len(b)-i < utf8.UTFMax && !utf8.FullRune(b[i:]) {
				break // cut at the end
			}
			bad++
		}
		i += size
	}
	return bad*10 <= len(b)
}

// unknownError is the error for an input of no known kind: it says what
// the input looks like and what was expected.
func unknownError(name string, head []byte, m decompress.Method) error {
	var kinds []string
	for _, f := range table {
		if f.Flag != "" {
			kinds = append(kinds, f.Name)
		}
	}
	kinds[len(kinds)-1] = "or " + kinds[len(kinds)-1] + ` ("frame;frame count")`
	what := describe(head)
	if m != decompress.None {
		what = m.String() + " data holding " + what
	}
	return fmt.Errorf("%s: %w: it looks like %s; expected %s", name, ErrUnknown, what, strings.Join(kinds, ", "))
}

// describe says in a few words what an unrecognised input looks like.
func describe(head []byte) string {
	switch m := decompress.Detect(head); {
	case m != decompress.None:
		return m.String() + " data inside compressed data"
	case len(head) == 0:
		return "nothing"
	case !IsText(head):
		n := min(len(head), 8)
		return fmt.Sprintf("binary data starting % x", head[:n])
	}
	line := head
	if i := bytes.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	if len(line) > 60 {
		line = append(bytes.Clone(line[:60]), "..."...)
	}
	return fmt.Sprintf("text starting %s", strconv.Quote(strings.TrimRight(string(line), "\r")))
}
