package perfscript

import (
	"bytes"
	"regexp"
)

var (
	// A sample header: comm (any text, not starting with a blank), ids,
	// an optional [cpu], and the time "SECONDS.FRACTION:" (right-aligned,
	// so indented, when perf printed no call graph).
	sniffHeaderRE = regexp.MustCompile(`^\s*\S.*\s(?:\[\d+\]\s+)?\d+\.\d+:(?:\s|$)`)
	// A frame line: indented hex address, symbol, (dso).
	sniffFrameRE = regexp.MustCompile(`^\s+[0-9a-f]+\s+.*\(.*\)\s*$`)
)

// preamble are the starts of the lines of a perf script --header block
// that no other input has.
var preamble = [][]byte{
	[]byte("# ========"), []byte("# captured on"), []byte("# hostname :"),
	[]byte("# os release :"), []byte("# perf version :"), []byte("# cmdline :"),
	[]byte("# event : "),
}

// IsPreambleLine reports whether line is one of the lines of the block
// perf script --header prints first ("# captured on : ...", "# cmdline :
// ..."): package source takes one as proof that an input is perf script
// text.
func IsPreambleLine(line []byte) bool {
	if len(line) == 0 || line[0] != '#' {
		return false
	}
	for _, p := range preamble {
		if bytes.HasPrefix(line, p) {
			return true
		}
	}
	return false
}

// LooksLikeLine reports whether line, one line of an input whose format
// is not known yet, looks like a sample header or a frame line of perf
// script text. Package source counts such lines to recognise perf script
// text.
func LooksLikeLine(line []byte) bool {
	if len(line) == 0 {
		return false
	}
	if line[0] == ' ' || line[0] == '\t' {
		return sniffHeaderRE.Match(line) || sniffFrameRE.Match(line)
	}
	return sniffHeaderRE.Match(line)
}
