package perfdata

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"io"
)

// PipeEnd is what walking the records of a pipe-mode perf.data file
// (perf record -o -) by their headers finds: how much of it holds
// complete records. perf script reads such a file to its last complete
// record and says nothing of a cut; PipeEnd lets the caller say it.
type PipeEnd struct {
	// Complete is where the last complete record ends, Size the file's
	// size: Size-Complete bytes at the end hold no complete record.
	Complete, Size int64
	// Samples counts the complete sample records (those perf record -z
	// compressed are not counted).
	Samples int64
}

// Cut reports whether the file ends inside a record.
func (e PipeEnd) Cut() bool { return e.Complete < e.Size }

// ScanPipe walks the records of the pipe-mode perf.data file name read
// from r (from its start: the 16-byte pipe header, then the records), reading
// each record's 8-byte header and skipping its body. It returns an error
// only when r fails or does not hold a pipe-mode file; a file cut short is
// a PipeEnd that is Cut.
func ScanPipe(r io.Reader, name string) (PipeEnd, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	var e PipeEnd
	head := make([]byte, pipeHeaderSize)
	n, err := io.ReadFull(br, head)
	e.Size = int64(n)
	if err != nil || !bytes.Equal(head[:8], magicLE) || binary.LittleEndian.Uint64(head[8:]) != pipeHeaderSize {
		if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
			return e, err
		}
		return e, &FormatError{File: name, Offset: 0, What: "not a pipe-mode perf.data file"}
	}
	e.Complete = e.Size
	var rh [8]byte
	for {
		n, err := io.ReadFull(br, rh[:])
		e.Size += int64(n)
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return e, nil
		}
		if err != nil {
			return e, err
		}
		typ := binary.LittleEndian.Uint32(rh[:4])
		size := int64(binary.LittleEndian.Uint16(rh[6:]))
		if size < 8 {
			// No record is shorter than its header: what follows
			// cannot be walked (perf script stops here too).
			m, err := io.Copy(io.Discard, br)
			e.Size += m
			return e, err
		}
		m, err := br.Discard(int(size - 8))
		e.Size += int64(m)
		if err == io.EOF {
			return e, nil
		}
		if err != nil {
			return e, err
		}
		e.Complete = e.Size
		if typ == recSample {
			e.Samples++
		}
	}
}
