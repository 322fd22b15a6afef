package source

import (
	"bytes"
	"encoding/binary"
	"errors"
	"regexp"

	"flamekit/pkg/folded"
)

// The recognisers of the table's formats. Each reads the head of an input
// (decompressed) or one of its lines, and nothing else: the packages that
// read the formats are not needed to tell them apart.

// perf.data: the magic of a little-endian file ("PERFILE2"), of a
// big-endian one, or of version 1, which package perfdata refuses with an
// error that says why; then the header's size: 16 in pipe mode (perf
// record -o -), which perf script reads and the reader does not.
var (
	perfMagicLE = []byte("PERFILE2")
	perfMagicBE = []byte("2ELIFREP")
	perfMagicV1 = []byte("PERFFILE")
)

const perfPipeHeaderSize = 16

func isPerfData(b []byte) (ok, pipe bool) {
	if len(b) < len(perfMagicLE) {
		return false, false
	}
	switch m := b[:len(perfMagicLE)]; {
	case bytes.Equal(m, perfMagicLE):
		return true, len(b) >= 16 && binary.LittleEndian.Uint64(b[8:16]) == perfPipeHeaderSize
	case bytes.Equal(m, perfMagicBE):
		return true, len(b) >= 16 && binary.BigEndian.Uint64(b[8:16]) == perfPipeHeaderSize
	case bytes.Equal(m, perfMagicV1):
		return true, false
	}
	return false, false
}

// perf script text.
var (
	// A sample header: comm (any text, not starting with a blank), ids,
	// an optional [cpu], and the time "SECONDS.FRACTION:" (right-aligned,
	// so indented, when perf printed no call graph).
	perfHeaderRE = regexp.MustCompile(`^\s*\S.*\s(?:\[\d+\]\s+)?\d+\.\d+:(?:\s|$)`)
	// A frame line: indented hex address, symbol, (dso).
	perfFrameRE = regexp.MustCompile(`^\s+[0-9a-f]+\s+.*\(.*\)\s*$`)
	// The starts of the lines of a perf script --header block, which no
	// other input has.
	perfPreamble = [][]byte{
		[]byte("# ========"), []byte("# captured on"), []byte("# hostname :"),
		[]byte("# os release :"), []byte("# perf version :"), []byte("# cmdline :"),
		[]byte("# event : "),
	}
)

func isPerfPreamble(line []byte) bool {
	for _, p := range perfPreamble {
		if bytes.HasPrefix(line, p) {
			return true
		}
	}
	return false
}

func isPerfLine(line []byte) bool {
	if line[0] == ' ' || line[0] == '\t' {
		return perfHeaderRE.Match(line) || perfFrameRE.Match(line)
	}
	return perfHeaderRE.Match(line)
}

// bpftrace: its first line, "Attaching N probes...", and map entries,
// "@name[" or "@name:".
var (
	bpftraceMapRE    = regexp.MustCompile(`^@[A-Za-z0-9_]*[\[:]`)
	bpftraceAttachRE = regexp.MustCompile(`^Attaching \d+ probes?\.\.\.`)
)

func isBpftraceLine(line []byte) bool {
	return bpftraceMapRE.Match(line) || bpftraceAttachRE.Match(line)
}

// Folded stacks: a stack then a count (and a second count, or "@time"),
// the stack holding a ';' or no blank, so that prose ending in a number
// ("sleep for 30") is not one.
func isFoldedLine(line []byte) bool {
	var rec folded.Record
	if err := folded.ParseLine(line, &rec); err != nil {
		// A count beyond 2^53 is still a folded line (refused when read).
		return errors.Is(err, folded.ErrCountRange)
	}
	return bytes.IndexByte(rec.Stack, ';') >= 0 || !bytes.ContainsAny(rec.Stack, " \t")
}

// isFoldedLongLine judges a first line longer than the head: of the text
// formats only a folded stack (tens of kilobytes of frames) has such
// lines.
func isFoldedLongLine(b []byte) bool {
	return b[0] != ' ' && b[0] != '\t' && b[0] != '#' && bytes.Count(b, []byte(";")) > 1
}
