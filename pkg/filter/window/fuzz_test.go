package window

import (
	"bytes"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"flamekit/pkg/fold/capture"
	"flamekit/pkg/folded"
	"flamekit/pkg/source"
)

// tally is what a read kept: samples and the sum of their counts.
type tally struct {
	n   int64
	sum float64
}

// oracle counts, with folded.Reader alone, the timed lines of data that
// fall in w: the answer every way of reading data must give.
func oracle(t *testing.T, data []byte, w *Window) tally {
	rd := folded.NewReader(bytes.NewReader(data), "oracle")
	rd.Lenient = true
	var k tally
	for rd.Next() {
		if r := rd.Record(); r.Kind == folded.Timed && w.Contains(r.Time) {
			k.n++
			k.sum += r.Count
		}
	}
	if err := rd.Err(); err != nil {
		t.Fatal(err)
	}
	return k
}

// slice reads the inputs with a Slicer and returns what it kept.
func slice(t *testing.T, ins Inputs, w *Window) tally {
	var k tally
	s := &Slicer{Opts: Options{Window: w, NeedTime: true}, Sink: SinkFunc(func(r *folded.Record) error {
		if r.Kind != folded.Timed || !w.Contains(r.Time) {
			t.Fatalf("kept %+v outside the window", r)
		}
		k.n++
		k.sum += r.Count
		return nil
	})}
	for _, in := range ins {
		if err := s.Read(in); err != nil {
			t.Fatal(err)
		}
	}
	return k
}

// lines splits data after its newlines.
func lines(data []byte) [][]byte {
	var out [][]byte
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			i = len(data) - 1
		}
		out = append(out, data[:i+1])
		data = data[i+1:]
	}
	return out
}

// parts cuts data into n pieces at line boundaries chosen by seed.
func parts(data []byte, n int, seed uint64) [][]byte {
	ls := lines(data)
	var out [][]byte
	start := 0
	for i := 1; i < n && start < len(ls); i++ {
		seed = seed*6364136223846793005 + 1442695040888963407
		end := start + 1 + int(seed>>33)%max(1, len(ls)-start)
		out = append(out, bytes.Join(ls[start:end], nil))
		start = end
	}
	return append(out, bytes.Join(ls[start:], nil))
}

// files returns the pieces as re-readable inputs, as files are.
func files(pieces [][]byte) Inputs {
	var ins Inputs
	for i, p := range pieces {
		src, err := source.OpenFunc("part"+strconv.Itoa(i), func() (io.ReadCloser, error) {
			return io.NopCloser(bytes.NewReader(p)), nil
		}, source.Options{})
		if err != nil {
			panic(err)
		}
		ins = append(ins, FromSource(src, capture.Options{}))
	}
	return ins
}

// stdin returns data as the one input "-", standard input: a stream.
func stdin(data []byte) Inputs {
	src, err := source.Open("-", source.Options{Stdin: bytes.NewReader(data)})
	if err != nil {
		panic(err)
	}
	return Inputs{FromSource(src, capture.Options{})}
}

// FuzzSlice: any input, read as one file, as several files in either
// order and as a stream, keeps exactly the timed lines of the window that
// folded.Reader finds in it; and a window split in two keeps as much as
// the whole.
func FuzzSlice(f *testing.F) {
	f.Add([]byte("# flamekit v1 timed first=\"1.0\" last=\"3.0\"\na;b 1 @1.0\na;c 1 @2.0\nbad line\nx 3\na;b 1 @3.0\n"), int64(2e9), int64(3e9), uint64(3))
	f.Add([]byte("a 1 @5.5\nb 1 @1.5\nc 1 @9\n# flamekit v1 timed first=\"1.5\" last=\"9\"\n"), int64(5e9), int64(1e10), uint64(7))
	f.Add([]byte("a 1 @0.000001\r\nb 2 @0.000002\n\n#c\n"), int64(1500), int64(0), uint64(1))
	// The failing input of issue 10: a sample after one far past the
	// window was lost.
	f.Add([]byte(" 0 @0\n 0 @10\n 0 @0"), int64(0), int64(2000000200), uint64(2))
	// Two captures concatenated later first (cat B A), with metadata.
	f.Add([]byte("# flamekit v1 timed first=\"545.8\" last=\"548.8\" samples=\"2\"\nA;x 1 @546\nA;y 1 @548\n# flamekit v1 timed first=\"413.4\" last=\"443.4\"\nB;x 1 @420\nB;y 1 @440\n"), int64(415e9), int64(425e9), uint64(5))
	f.Fuzz(func(t *testing.T, data []byte, from, to int64, seed uint64) {
		if len(data) > 1<<16 {
			return
		}
		windows := []*Window{
			{},
			{From: folded.Time(from), HasFrom: true},
			{To: folded.Time(from), HasTo: true},
			{From: folded.Time(from), To: folded.Time(to), HasFrom: true, HasTo: true},
		}
		n := 2 + int(seed%4)
		pieces := parts(data, n, seed)
		reversed := slices.Clone(pieces)
		slices.Reverse(reversed)
		for i, w := range windows {
			want := oracle(t, data, w)
			reads := map[string]tally{
				"one file":               slice(t, files([][]byte{data}), w),
				"several files":          slice(t, files(pieces), w),
				"several files reversed": slice(t, files(reversed), w),
				"stream":                 slice(t, stdin(data), w),
			}
			for how, got := range reads {
				if got != want {
					t.Fatalf("window %d (%+v) read as %s keeps %+v, want %+v", i, w, how, got, want)
				}
			}
		}
		// The two halves of a split add up to the whole.
		all := oracle(t, data, windows[0])
		lo := slice(t, stdin(data), windows[2])
		hi := slice(t, stdin(data), windows[1])
		if lo.n+hi.n != all.n {
			t.Fatalf("%d before %v + %d after != %d in all", lo.n, folded.Time(from), hi.n, all.n)
		}
	})
}

// TestSurveyThenReadStream checks that a stream surveyed for its clock is
// read again from its spooled copy, and that the copy is removed.
func TestSurveyThenReadStream(t *testing.T) {
	data := []byte("# flamekit v1 timed first=\"1.0\" last=\"3.0\"\na 1 @1.0\nb 1 @2.0\nc 1 @3.0\n")
	ins := stdin(data)
	dir := t.TempDir()
	if err := ins.Survey(dir); err != nil {
		t.Fatal(err)
	}
	if c := ins.Clock(); !c.HasOrigin || c.Origin != folded.Time(1e9) {
		t.Fatalf("clock %+v, want origin @1", c)
	}
	// The copy is unlinked as soon as it is made (issue 34): it is read
	// again through its open file, and never has a name in dir.
	if spools, _ := filepath.Glob(filepath.Join(dir, "*")); len(spools) != 0 {
		t.Errorf("the copy of the stream has a name: %v", spools)
	}
	if got := slice(t, ins, &Window{From: 2e9, HasFrom: true}); got.n != 2 {
		t.Errorf("kept %d samples from the spooled stream, want 2", got.n)
	}
	if err := ins.Close(); err != nil {
		t.Fatal(err)
	}
	if spools, _ := filepath.Glob(filepath.Join(dir, "*")); len(spools) != 0 {
		t.Errorf("left behind: %v", spools)
	}
}
