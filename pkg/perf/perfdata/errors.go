package perfdata

import (
	"errors"
	"fmt"
)

// UnsupportedError is returned for a perf.data file that is valid but that
// this package cannot turn into the samples perf script would print: pipe
// mode, --call-graph dwarf of another architecture than x86-64, LBR call
// stacks, a big-endian file, a capture
// whose binaries cannot be found on this machine. The caller can run
// `perf script` on the file instead.
type UnsupportedError struct {
	File   string // the file's name as given to Open
	Reason string // why, for a message ("pipe mode (perf record -o -)")
	Pipe   bool   // a pipe-mode file: ScanPipe tells whether it was cut
}

func (e *UnsupportedError) Error() string {
	return fmt.Sprintf("%s: %s: needs perf script", e.File, e.Reason)
}

// FormatError reports a file that is not a well-formed perf.data file, or a
// record that cannot be read, with its place in the file.
type FormatError struct {
	File   string
	Offset int64  // byte offset in the file of the bad part (-1 if unknown)
	What   string // what was wrong
}

func (e *FormatError) Error() string {
	if e.Offset < 0 {
		return fmt.Sprintf("%s: %s", e.File, e.What)
	}
	return fmt.Sprintf("%s: offset %#x: %s", e.File, e.Offset, e.What)
}

// errShort is the cause of a read past the end of a section or record.
var errShort = errors.New("truncated")
