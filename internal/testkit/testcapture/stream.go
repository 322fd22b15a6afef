package testcapture

import (
	"bytes"
	"testing"

	"flamekit/pkg/folded"
)

// Stream is folded text read back: its metadata lines and its records,
// each with its own copy of its stack.
type Stream struct {
	Metas []folded.Meta
	Recs  []folded.Record
}

// ReadStream reads the folded text b (strictly: a malformed line fails
// the test).
func ReadStream(t testing.TB, b []byte) Stream {
	t.Helper()
	var s Stream
	rd := folded.NewReader(bytes.NewReader(b), "folded")
	for rd.Next() {
		r := *rd.Record()
		r.Stack = bytes.Clone(r.Stack)
		s.Recs = append(s.Recs, r)
	}
	if err := rd.Err(); err != nil {
		t.Fatal(err)
	}
	s.Metas = rd.Meta()
	return s
}

// Total returns the sum of the records' counts.
func (s Stream) Total() float64 {
	var n float64
	for _, r := range s.Recs {
		n += r.Count
	}
	return n
}
