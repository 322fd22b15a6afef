package detect

import (
	"bytes"
	"errors"
	"regexp"

	"flamekit/pkg/folded"
)

// maxLines is how many lines detectText looks at.
const maxLines = 2000

var (
	// A perf script sample header: comm (any text, not starting with a
	// blank), ids, an optional [cpu], and the time "SECONDS.FRACTION:".
	// (right-aligned, so indented, when perf printed no call graph).
	perfHeaderRE = regexp.MustCompile(`^\s*\S.*\s(?:\[\d+\]\s+)?\d+\.\d+:(?:\s|$)`)
	// A perf script frame line: indented hex address, symbol, (dso).
	perfFrameRE = regexp.MustCompile(`^\s+[0-9a-f]+\s+.*\(.*\)\s*$`)
	// A bpftrace map entry: "@name[" or "@name:".
	bpftraceMapRE = regexp.MustCompile(`^@[A-Za-z0-9_]*[\[:]`)
	// bpftrace's first line.
	bpftraceAttachRE = regexp.MustCompile(`^Attaching \d+ probes?\.\.\.`)
)

// perfComments are the starts of the lines of a perf script --header
// preamble.
var perfComments = [][]byte{
	[]byte("# ========"), []byte("# captured on"), []byte("# hostname :"),
	[]byte("# os release :"), []byte("# perf version :"), []byte("# cmdline :"),
	[]byte("# event : "),
}

// detectText tells the text formats apart by their lines.
func detectText(b []byte, complete bool) Kind {
	var perf, foldedLines, other int
	n := 0
	for len(b) > 0 && n < maxLines {
		var line []byte
		i := bytes.IndexByte(b, '\n')
		if i >= 0 {
			line, b = b[:i], b[i+1:]
		} else {
			if !complete {
				if n == 0 {
					return cutLine(b)
				}
				break // a cut last line says nothing reliable
			}
			line, b = b, nil
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		n++
		if folded.IsMeta(line) {
			return Folded
		}
		if line[0] == '#' {
			for _, c := range perfComments {
				if bytes.HasPrefix(line, c) {
					return PerfScript
				}
			}
			continue
		}
		if bpftraceMapRE.Match(line) || bpftraceAttachRE.Match(line) {
			return Bpftrace
		}
		indented := line[0] == ' ' || line[0] == '\t'
		switch {
		case perfHeaderRE.Match(line):
			perf++
		case indented && perfFrameRE.Match(line):
			perf++
		case !indented && isFoldedLine(line):
			foldedLines++
		default:
			other++
		}
	}
	total := perf + foldedLines + other
	switch {
	case total == 0:
		return Unknown
	case perf > 0 && 2*perf >= total:
		return PerfScript
	case 2*foldedLines > total:
		return Folded
	}
	return Unknown
}

// cutLine judges an input whose first line is longer than the head: only
// a folded stack (tens of kilobytes of frames) has such lines.
func cutLine(b []byte) Kind {
	if b[0] != ' ' && b[0] != '\t' && b[0] != '#' && bytes.Count(b, []byte(";")) > 1 {
		return Folded
	}
	return Unknown
}

// isFoldedLine reports whether line is a folded line: a stack then a
// count (and a second count, or "@time"), the stack holding a ';' or no
// blank (so that prose ending in a number, "sleep for 30", is not one).
func isFoldedLine(line []byte) bool {
	var rec folded.Record
	if err := folded.ParseLine(line, &rec); err != nil {
		// A count beyond 2^53 is still a folded line (refused when read).
		return errors.Is(err, folded.ErrCountRange)
	}
	return bytes.IndexByte(rec.Stack, ';') >= 0 || !bytes.ContainsAny(rec.Stack, " \t")
}
