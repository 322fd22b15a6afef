package timeslice

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"flamekit/pkg/folded"
)

// burstFile is a real capture: 30 s system-wide, perf record -a -g -F 97,
// with a 2 s burst about 14 s in, collapsed to timed folded stacks.
const burstFile = "testdata/burst.folded.gz"

func TestMain(m *testing.M) {
	// Wall-clock times in messages and goldens are shown in the local
	// zone, and "captured on" is read in it: pin it.
	time.Local = time.UTC
	os.Exit(m.Run())
}

// virtualFile is an uncompressed timed folded file generated on the fly:
// a metadata line, then lines of fixed length, one sample every step from
// first. It counts the bytes read from it.
type virtualFile struct {
	head        []byte
	lines       int64
	first, step folded.Time
	read        atomic.Int64
}

const virtualLineLen = 64

func newVirtualFile(size int64, first, step folded.Time) *virtualFile {
	v := &virtualFile{first: first, step: step}
	v.lines = (size - 200) / virtualLineLen
	last := first + folded.Time(v.lines-1)*step
	v.head = fmt.Appendf(nil, "%s host=\"virtual\" first=\"%v\" last=\"%v\"\n", folded.MetaPrefix, first, last)
	return v
}

func (v *virtualFile) size() int64 { return int64(len(v.head)) + v.lines*virtualLineLen }

func (v *virtualFile) line(i int64) []byte {
	t := v.first + folded.Time(i)*v.step
	l := fmt.Appendf(nil, "app;main;f%03d;pad 1 @%v\n", i%7, t)
	pad := virtualLineLen - len(l)
	if pad < 0 {
		panic("virtual line too long")
	}
	out := make([]byte, 0, virtualLineLen)
	out = append(out, l[:len("app;main;f000;pad")]...)
	out = append(out, bytes.Repeat([]byte{'x'}, pad)...)
	return append(out, l[len("app;main;f000;pad"):]...)
}

func (v *virtualFile) ReadAt(p []byte, off int64) (int, error) {
	n := 0
	for n < len(p) && off < v.size() {
		var src []byte
		var in int64
		if off < int64(len(v.head)) {
			src, in = v.head, off
		} else {
			i := (off - int64(len(v.head))) / virtualLineLen
			src, in = v.line(i), (off-int64(len(v.head)))%virtualLineLen
		}
		c := copy(p[n:], src[in:])
		n += c
		off += int64(c)
	}
	v.read.Add(int64(n))
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

func TestSeekReadsLittleOfABigFile(t *testing.T) {
	// 1 GB, one sample per millisecond: 4.6 hours of samples.
	v := newVirtualFile(1<<30, sec("10000"), sec("0.001"))
	in, err := ProbeReaderAt("virtual", v, v.size())
	if err != nil {
		t.Fatal(err)
	}
	w := &Window{From: sec("15000"), To: sec("15005"), HasFrom: true, HasTo: true}
	var n int64
	var minT, maxT folded.Time = 1 << 62, 0
	s := &Slicer{Opts: Options{Window: w, NeedTime: true}, Sink: SinkFunc(func(r *folded.Record) error {
		n++
		minT, maxT = min(minT, r.Time), max(maxT, r.Time)
		return nil
	})}
	if err := s.Read(in); err != nil {
		t.Fatal(err)
	}
	if n != 5000 || minT != sec("15000") || maxT != sec("15004.999") {
		t.Errorf("kept %d samples from %v to %v, want 5000 from 15000 to 15004.999", n, minT, maxT)
	}
	read := v.read.Load()
	t.Logf("read %d bytes of %d (%.4f%%), stats %+v", read, v.size(), 100*float64(read)/float64(v.size()), s.Stats.BytesRead)
	if read > 4<<20 {
		t.Errorf("read %d bytes of a %d-byte file to slice 5 s; want under 4 MiB", read, v.size())
	}
	if len(s.Stats.Seeked) != 1 || len(s.Stats.Stopped) != 1 || len(s.Stats.Disordered) != 0 {
		t.Errorf("stats %+v: want one seek, one early stop, no disorder", s.Stats)
	}
}

func TestSeekWindowAtTheEdges(t *testing.T) {
	// Windows at the start, the end and across the whole of a file, on
	// lines of fixed length: counts are exact.
	v := newVirtualFile(8<<20, sec("100"), sec("0.001"))
	last := v.first + folded.Time(v.lines-1)*v.step
	for _, tt := range []struct {
		w    Window
		want int64
	}{
		{Window{From: sec("100"), To: sec("101"), HasFrom: true, HasTo: true}, 1000},
		{Window{From: last - sec("0.5"), HasFrom: true}, 501},
		{Window{To: sec("100.010"), HasTo: true}, 10},
		{Window{From: sec("50"), To: sec("100000"), HasFrom: true, HasTo: true}, v.lines},
		{Window{From: last + 1, HasFrom: true}, 0},
	} {
		in, err := ProbeReaderAt("virtual", v, v.size())
		if err != nil {
			t.Fatal(err)
		}
		var n int64
		s := &Slicer{Opts: Options{Window: &tt.w, NeedTime: true}, Sink: SinkFunc(func(*folded.Record) error { n++; return nil })}
		if err := s.Read(in); err != nil {
			t.Fatal(err)
		}
		if n != tt.want {
			t.Errorf("window %+v: %d samples, want %d", tt.w, n, tt.want)
		}
	}
}

func BenchmarkSlice5sOf1GB(b *testing.B) {
	v := newVirtualFile(1<<30, sec("10000"), sec("0.001"))
	w := &Window{From: sec("15000"), To: sec("15005"), HasFrom: true, HasTo: true}
	b.ReportAllocs()
	for b.Loop() {
		v.read.Store(0)
		in, err := ProbeReaderAt("virtual", v, v.size())
		if err != nil {
			b.Fatal(err)
		}
		var p folded.Profile
		s := &Slicer{Opts: Options{Window: w, NeedTime: true}, Sink: SinkFunc(func(r *folded.Record) error { p.Add(r); return nil })}
		if err := s.Read(in); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(v.read.Load()), "bytes-read/op")
}

// bigCapture writes the burst capture repeated n times, each copy shifted
// 30 s later, as an uncompressed and a gzipped file.
func bigCapture(b *testing.B, n int) (plain, gz string, size int64) {
	b.Helper()
	f, err := os.Open(burstFile)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		b.Fatal(err)
	}
	raw, _ := io.ReadAll(zr)
	var out bytes.Buffer
	for i := 0; i < n; i++ {
		shift := folded.Time(i) * sec("30")
		for line := range bytes.Lines(raw) {
			var r folded.Record
			if folded.ParseLine(bytes.TrimSuffix(line, []byte("\n")), &r) != nil {
				continue
			}
			r.Time += shift
			out.Write(folded.AppendRecord(nil, &r))
		}
	}
	dir := b.TempDir()
	plain = filepath.Join(dir, "big.folded")
	gz = plain + ".gz"
	os.WriteFile(plain, out.Bytes(), 0o644)
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(out.Bytes())
	zw.Close()
	os.WriteFile(gz, z.Bytes(), 0o644)
	return plain, gz, int64(out.Len())
}

func benchRead(b *testing.B, name string, size int64, w *Window) {
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		in, err := Probe(name)
		if err != nil {
			b.Fatal(err)
		}
		var p folded.Profile
		s := &Slicer{Opts: Options{Window: w}, Sink: SinkFunc(func(r *folded.Record) error { p.Add(r); return nil })}
		if err := s.Read(in); err != nil {
			b.Fatal(err)
		}
	}
}

// Whole-file conversion, timed -> classic: MB/s of uncompressed input.
func BenchmarkConvertPlain(b *testing.B) {
	plain, _, size := bigCapture(b, 100)
	benchRead(b, plain, size, nil)
}

func BenchmarkConvertGzip(b *testing.B) {
	_, gz, size := bigCapture(b, 100)
	benchRead(b, gz, size, nil)
}

// A 5 s window in the middle of a gzipped capture: read until just past
// it. MB/s are of the whole file's uncompressed size.
func BenchmarkSlice5sGzip(b *testing.B) {
	_, gz, size := bigCapture(b, 100)
	mid := sec("413") + 50*sec("30")
	benchRead(b, gz, size, &Window{From: mid, To: mid + sec("5"), HasFrom: true, HasTo: true})
}
