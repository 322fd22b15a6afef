package bpftrace

import "regexp"

var (
	// A map entry: "@name[" or "@name:".
	sniffMapRE = regexp.MustCompile(`^@[A-Za-z0-9_]*[\[:]`)
	// bpftrace's first line.
	sniffAttachRE = regexp.MustCompile(`^Attaching \d+ probes?\.\.\.`)
)

// IsMarkerLine reports whether line is one that only bpftrace prints: its
// "Attaching N probes..." line, or the start of a map entry ("@name[" or
// "@name:"). Package source takes one as proof that an input is a
// bpftrace map dump.
func IsMarkerLine(line []byte) bool {
	return sniffMapRE.Match(line) || sniffAttachRE.Match(line)
}
