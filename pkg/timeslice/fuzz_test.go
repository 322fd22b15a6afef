package timeslice

import (
	"bytes"
	"testing"

	"flamekit/pkg/folded"
)

// sliceCount slices data (read at offsets, as an uncompressed file, or as
// a stream) and returns the number of samples kept.
func sliceCount(t *testing.T, data []byte, w *Window, stream bool) int64 {
	var in *Input
	var err error
	if stream {
		in, err = ProbeStream("fuzz", nopCloser{bytes.NewReader(data)})
	} else {
		in, err = ProbeReaderAt("fuzz", bytes.NewReader(data), int64(len(data)))
	}
	if err != nil {
		t.Fatal(err)
	}
	if in.Empty {
		return 0
	}
	var n int64
	s := &Slicer{Opts: Options{Window: w, NeedTime: true}, Sink: SinkFunc(func(r *folded.Record) error {
		if r.Kind != folded.Timed || !w.Contains(r.Time) {
			t.Fatalf("kept %v outside the window", r)
		}
		n++
		return nil
	})}
	if err := s.Read(in); err != nil {
		t.Fatal(err)
	}
	return n
}

type nopCloser struct{ *bytes.Reader }

func (nopCloser) Close() error { return nil }

// FuzzSlice: any input, split at any time into two windows, gives as many
// samples as the whole, read either way, and never panics.
func FuzzSlice(f *testing.F) {
	f.Add([]byte("# flamekit v1 timed first=\"1.0\" last=\"3.0\"\na;b 1 @1.0\na;c 1 @2.0\nbad line\nx 3\na;b 1 @3.0\n"), int64(2e9))
	f.Add([]byte("a 1 @5.5\nb 1 @1.5\nc 1 @9\n# flamekit v1 timed first=\"1.5\" last=\"9\"\n"), int64(5e9))
	f.Add([]byte("a 1 @0.000001\r\nb 2 @0.000002\n\n#c\n"), int64(1500))
	f.Fuzz(func(t *testing.T, data []byte, cut int64) {
		all := &Window{}
		lo := &Window{To: folded.Time(cut), HasTo: true}
		hi := &Window{From: folded.Time(cut), HasFrom: true}
		for _, stream := range []bool{false, true} {
			whole := sliceCount(t, data, all, stream)
			a, b := sliceCount(t, data, lo, stream), sliceCount(t, data, hi, stream)
			if a+b != whole {
				t.Fatalf("stream %v: %d before %v + %d after != %d in all", stream, a, folded.Time(cut), b, whole)
			}
		}
	})
}
