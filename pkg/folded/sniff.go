package folded

import "bytes"

// LooksLikeLine reports whether line, one line of an input whose format is
// not known yet, is a folded line: a stack then a count (and a second
// count, or "@time"), the stack holding a ';' or no blank, so that prose
// ending in a number ("sleep for 30") is not one. Package source counts
// such lines to recognise folded input.
func LooksLikeLine(line []byte) bool {
	var rec Record
	if ParseLine(line, &rec) != nil {
		return false
	}
	return bytes.IndexByte(rec.Stack, ';') >= 0 || !bytes.ContainsAny(rec.Stack, " \t")
}

// LooksLikeLongLine reports whether b, the start of an input's first line
// when that line is longer than all that was looked at, starts a folded
// line: of the text formats only a folded stack (tens of kilobytes of
// frames) has such lines.
func LooksLikeLongLine(b []byte) bool {
	return len(b) > 0 && b[0] != ' ' && b[0] != '\t' && b[0] != '#' && bytes.Count(b, []byte(";")) > 1
}
