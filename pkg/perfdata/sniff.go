package perfdata

import (
	"bytes"
	"encoding/binary"
)

// SniffSize is how many bytes Sniff looks at.
const SniffSize = 16

// Sniff reports whether head, the first bytes of an input (SniffSize or
// all of a shorter input), starts a perf.data file: the magic of a
// little-endian file ("PERFILE2"), of a big-endian one or of version 1
// (which Open refuses with an UnsupportedError that says why). pipe
// reports the header of the pipe mode (perf record -o -), which perf
// script reads and Open does not.
func Sniff(head []byte) (ok, pipe bool) {
	if len(head) < len(magicLE) {
		return false, false
	}
	switch m := head[:len(magicLE)]; {
	case bytes.Equal(m, magicLE):
		return true, len(head) >= 16 && binary.LittleEndian.Uint64(head[8:16]) == pipeHeaderSize
	case bytes.Equal(m, magicBE):
		return true, len(head) >= 16 && binary.BigEndian.Uint64(head[8:16]) == pipeHeaderSize
	case bytes.Equal(m, magicV1):
		return true, false
	}
	return false, false
}
