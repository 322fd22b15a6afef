package timeslice

import (
	"os"
	"strings"
	"testing"

	"flamekit/pkg/folded"
)

// readString slices text (an uncompressed input) with opts and returns
// the Slicer's stats.
func readString(t testing.TB, text string, opts Options) Stats {
	t.Helper()
	in, err := ProbeReaderAt("in", strings.NewReader(text), int64(len(text)))
	if err != nil {
		t.Fatal(err)
	}
	return readStats(t, in, opts)
}

// readStats reads a probed input with opts and returns the Slicer's stats.
func readStats(t testing.TB, in *Input, opts Options) Stats {
	t.Helper()
	s := &Slicer{Opts: opts, Sink: SinkFunc(func(*folded.Record) error { return nil })}
	if err := s.Read(in); err != nil {
		t.Fatal(err)
	}
	return s.Stats
}

func TestSkippedQuotesWholeCharacters(t *testing.T) {
	// A malformed line whose 80th byte falls inside "€": the message cuts
	// before the character instead of showing broken bytes.
	long := strings.Repeat("a", 79) + "€€€ x"
	st := readString(t, "main 1 @1.0\n"+long+"\nmain 1 @2.0\n", Options{})
	if st.Malformed.Count != 1 {
		t.Fatalf("malformed %+v, want one line", st.Malformed)
	}
	if want := `in:2: ` + folded.ErrNoCount.Error() + `: "` + strings.Repeat("a", 79) + `"...`; st.Malformed.First != want {
		t.Errorf("first malformed line:\n got %s\nwant %s", st.Malformed.First, want)
	}
}

func TestSkippedUntimedFirst(t *testing.T) {
	st := readString(t, "main 1 @1.0\nmain;a 2\nmain;b 3\nmain 1 @2.0\n", Options{NeedTime: true})
	if want := `in:2: untimed classic line "main;a 2"`; st.Untimed.Count != 2 || st.Untimed.First != want {
		t.Errorf("untimed %+v, want 2 lines, first %s", st.Untimed, want)
	}
}

// Timed input with classic lines in the middle (say, two captures
// concatenated, one made with --no-time): every classic line is skipped.
func BenchmarkSkipUntimed(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("app;main;work 1 @1.000000\n")
	for i := 0; i < 100000; i++ {
		sb.WriteString("app;main;work;compute_something_long 1\n")
	}
	sb.WriteString("app;main;work 1 @2.000000\n")
	text := sb.String()
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		readString(b, text, Options{NeedTime: true})
	}
}

func TestProbeStdinLeavesItOpen(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	saved := os.Stdin
	os.Stdin = r
	defer func() { os.Stdin = saved }()
	go func() {
		w.WriteString("main 1 @1.5\nmain 1 @2.5\n")
		w.Close()
	}()
	in, err := Probe("-")
	if err != nil {
		t.Fatal(err)
	}
	if in.Display != folded.StdinName || !in.HasFirstSeen || in.FirstSeen != sec("1.5") {
		t.Errorf("probed %+v, want <stdin> first seen at 1.5", in)
	}
	st := readStats(t, in, Options{})
	if st.Kept != 2 {
		t.Errorf("kept %d samples, want 2", st.Kept)
	}
	if _, err := r.Stat(); err != nil {
		t.Errorf("standard input closed by Probe(\"-\"): %v", err)
	}
}
