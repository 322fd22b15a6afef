// Package detect tells the kind of a profiling input from its first bytes:
// perf script text, a perf.data file, a pprof profile (profile.proto,
// gzipped or not), a bpftrace map dump, or folded stacks (classic, timed or
// differential, from stackcollapse, the bcc tools, async-profiler…).
//
// It decides by content only, never by file name: tools are fed from
// pipes, and a file called out.txt may hold anything. Gzip is looked
// through: a gzipped input is told by what it holds.
//
//	br := bufio.NewReaderSize(f, detect.PeekSize)
//	head, _ := br.Peek(detect.PeekSize) // fewer bytes at the end of input
//	kind, err := detect.Check(head, len(head) < detect.PeekSize, "in.txt")
package detect

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// PeekSize is how many bytes Detect needs to decide: a perf script
// --header preamble fits in it, and so do many lines of every text format.
const PeekSize = 64 << 10

// Kind is a kind of input.
type Kind uint8

// The kinds of input.
const (
	Unknown    Kind = iota // none of the others
	Empty                  // no bytes, or only blank lines
	PerfScript             // text printed by perf script
	PerfData               // the binary file perf record writes
	Pprof                  // pprof's profile.proto, gzipped or not
	Bpftrace               // the maps bpftrace prints at exit
	Folded                 // folded stacks: "frame;frame count"
)

var kindNames = [...]struct{ name, flag string }{
	Unknown:    {"unknown input", ""},
	Empty:      {"empty input", ""},
	PerfScript: {"perf script text", "perf"},
	PerfData:   {"perf.data file", "perf-data"},
	Pprof:      {"pprof profile", "pprof"},
	Bpftrace:   {"bpftrace map dump", "bpftrace"},
	Folded:     {"folded stacks", "folded"},
}

// String returns a human name for k: "perf script text", "pprof profile"…
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k].name
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Flag returns the --format value that names k ("perf", "perf-data",
// "pprof", "bpftrace", "folded"), or "" for Unknown and Empty.
func (k Kind) Flag() string {
	if int(k) < len(kindNames) {
		return kindNames[k].flag
	}
	return ""
}

// Formats lists the --format values ParseFormat accepts.
const Formats = "auto, perf, bpftrace, pprof, perf-data, folded"

// ParseFormat reads a --format value. "auto" (or "") gives Unknown,
// meaning: detect the kind of each input.
func ParseFormat(s string) (Kind, error) {
	if s == "" || s == "auto" {
		return Unknown, nil
	}
	for k := range kindNames {
		if kindNames[k].flag != "" && kindNames[k].flag == s {
			return Kind(k), nil
		}
	}
	return Unknown, fmt.Errorf("unknown format %q (want one of: %s)", s, Formats)
}

// ErrUnknown is wrapped by the error Check returns for an input of no
// known kind.
var ErrUnknown = errors.New("not an input flamekit reads")

// Check is Detect returning an error for Unknown that says what the input
// looks like and what was expected; name is the input's name for the
// message.
func Check(head []byte, complete bool, name string) (Kind, error) {
	k := Detect(head, complete)
	if k != Unknown {
		return k, nil
	}
	return k, fmt.Errorf("%s: %w: it looks like %s; expected perf script text, a perf.data file, a pprof profile, a bpftrace map dump or folded stacks (\"frame;frame count\")",
		name, ErrUnknown, describe(head))
}

// Detect returns the kind of an input whose first bytes are head. complete
// says that head is the whole input (shorter than PeekSize, say), so that
// its last line is whole. A gzip stream is decompressed (as far as head
// goes) and judged by its content.
func Detect(head []byte, complete bool) Kind {
	if isGzip(head) {
		inner, whole := gunzipHead(head)
		if isGzip(inner) { // gzip in gzip: not something a profiler writes
			return Unknown
		}
		return detect(inner, complete && whole)
	}
	return detect(head, complete)
}

func isGzip(b []byte) bool { return len(b) >= 2 && b[0] == 0x1f && b[1] == 0x8b }

// gunzipHead decompresses what head holds of a gzip stream, up to
// PeekSize bytes. whole reports that the stream ended within head.
func gunzipHead(head []byte) (out []byte, whole bool) {
	zr, err := gzip.NewReader(bytes.NewReader(head))
	if err != nil {
		return nil, false
	}
	zr.Multistream(false)
	out, err = io.ReadAll(io.LimitReader(zr, PeekSize))
	return out, err == nil && len(out) < PeekSize
}

func detect(b []byte, complete bool) Kind {
	switch {
	case len(bytes.TrimSpace(b)) == 0:
		if complete || len(b) == 0 {
			return Empty
		}
		return Unknown
	case bytes.HasPrefix(b, []byte("PERFILE2")), bytes.HasPrefix(b, []byte("PERFFILE")):
		return PerfData
	case !IsText(b):
		if isProfileProto(b) {
			return Pprof
		}
		return Unknown
	}
	return detectText(b, complete)
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

// describe says in a few words what an unrecognised input looks like.
func describe(head []byte) string {
	switch {
	case len(head) >= 4 && bytes.Equal(head[:4], []byte{0x28, 0xb5, 0x2f, 0xfd}):
		return "zstd-compressed data (decompress it first: zstd -d)"
	case isGzip(head):
		inner, _ := gunzipHead(head)
		if isGzip(inner) {
			return "gzip data inside gzip data"
		}
		return "gzip data holding " + describe(inner)
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
