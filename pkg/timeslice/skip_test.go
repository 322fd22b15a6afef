package timeslice

import (
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
