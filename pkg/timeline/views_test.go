package timeline_test

import (
	"bytes"
	"errors"
	"testing"

	"flamekit/pkg/folded"
	"flamekit/pkg/timeline"
)

// summed builds a one-cell timeline of text keyed by stack alone and
// writes it as classic folded lines.
func summed(t *testing.T, text []byte) (string, *timeline.Timeline) {
	t.Helper()
	b := timeline.NewBuilder(timeline.Options{Whole: true, Merge: timeline.MergeInputs | timeline.MergeThreads | timeline.MergeCPUs})
	rd := folded.NewReader(bytes.NewReader(text), "in")
	rd.Lenient = true
	for rd.Next() {
		if err := b.Add(rd.Record()); err != nil {
			t.Fatal(err)
		}
	}
	tl := b.Build()
	var out bytes.Buffer
	if _, err := tl.WriteFolded(&out); err != nil {
		t.Fatal(err)
	}
	return out.String(), tl
}

// profileOf is what folded.Profile writes of text: the summed slice as it
// was before the timeline, byte for byte.
func profileOf(text []byte) string {
	var p folded.Profile
	rd := folded.NewReader(bytes.NewReader(text), "in")
	rd.Lenient = true
	for rd.Next() {
		p.Add(rd.Record())
	}
	var out bytes.Buffer
	p.WriteTo(&out)
	return out.String()
}

// TestWriteFoldedIsProfile: the summed view of a one-cell timeline is
// folded.Profile's output byte for byte, with one entry per distinct
// stack, on a real capture and on odd lines (classic, differential,
// fractions, empty frames, sums up to 2^53).
func TestWriteFoldedIsProfile(t *testing.T) {
	tests := map[string][]byte{
		"burst":    collapse(t, "burst"),
		"classic":  []byte("b;c 3\na;b 2\nb;c 4\n"),
		"diff":     []byte("a;b 1 2\na;c 3\na;b 0.25 0.5\nx 0.1\nx 0.2\n"),
		"odd":      []byte(" 1 @1.0\n;x 1 @1.0\na;;b 1 @1.0\na;b; 1 @1.0\na 2\na;b 1\na;b1 1\na;b;c 1\n"),
		"prefixes": []byte("a;b 1\na;b1 1\na;b;c 1\na;b! 1\na;b.x;y 1\na 1\na! 1\n; 1\na;;b 1\nb;a 1\na;b;c;d 1\na;b;;x 1\na;b:1 1\na;b:;q 2\n"),
		"big":      []byte("a 9007199254740990 @1\na 1 @2\na 1 @3\nb 0.5\nb 0.25 @4\n"),
	}
	for name, text := range tests {
		got, tl := summed(t, text)
		if want := profileOf(text); got != want {
			t.Errorf("%s: summed view\n%s\nwant (folded.Profile)\n%s", name, got, want)
		}
		stacks := map[timeline.StackID]bool{}
		for _, e := range tl.Entries {
			if e.Cell != 0 || stacks[e.Stack] {
				t.Errorf("%s: entry %+v: want one entry per stack in cell 0", name, e)
			}
			stacks[e.Stack] = true
		}
	}
}

// TestWidthCells: cells of a width in nanoseconds start at whole multiples
// of it (Align), negative times included, and classic lines kept apart
// (Untimed) are in cell NoTime, which Span leaves out.
func TestWidthCells(t *testing.T) {
	b := timeline.NewBuilder(timeline.Options{Width: 100e6, Align: true, Untimed: true})
	for _, at := range []folded.Time{1_234_567_890, 1_299_999_999, 1_300_000_000, 1_000_000_001, -50} {
		if err := b.Add(&folded.Record{Stack: []byte("a;b"), Count: 1, Time: at, Kind: folded.Timed}); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Add(&folded.Record{Stack: []byte("c"), Count: 5, Kind: folded.Classic}); err != nil {
		t.Fatal(err)
	}
	tl := b.Build()
	if tl.Origin != 1_200_000_000 || tl.Classic != 1 || tl.Samples != 5 {
		t.Fatalf("origin %v, classic %d, samples %d", tl.Origin, tl.Classic, tl.Samples)
	}
	var starts []folded.Time
	for _, e := range tl.Entries {
		if e.Cell == timeline.NoTime {
			if tl.Stack(e.Stack) != "c" || e.Weight != 5 || e.Samples != 0 {
				t.Errorf("classic entry %+v", e)
			}
			continue
		}
		starts = append(starts, tl.CellStart(int64(e.Cell)))
	}
	want := []folded.Time{-100e6, 1_000_000_000, 1_200_000_000, 1_300_000_000}
	if len(starts) != len(want) {
		t.Fatalf("cells start at %v, want %v", starts, want)
	}
	for i := range want {
		if starts[i] != want[i] {
			t.Fatalf("cells start at %v, want %v", starts, want)
		}
	}
	if first, _, _ := tl.Span(); first != tl.CellOf(-50) {
		t.Errorf("span starts at cell %d", first)
	}
}

// TestWriteFoldedRefusesBeyondRange: a sum beyond 2^53, which no reader
// accepts, is an error of the timeline's view as of folded.Profile, not a
// rounded line.
func TestWriteFoldedRefusesBeyondRange(t *testing.T) {
	text := []byte("a 9007199254740992 @1\na 9007199254740992 @2\na 3 @3\nb 1 @4\n")
	b := timeline.NewBuilder(timeline.Options{Whole: true, Merge: timeline.MergeInputs | timeline.MergeThreads | timeline.MergeCPUs})
	var p folded.Profile
	rd := folded.NewReader(bytes.NewReader(text), "in")
	for rd.Next() {
		b.Add(rd.Record())
		p.Add(rd.Record())
	}
	var out bytes.Buffer
	_, err := b.Build().WriteFolded(&out)
	var se *folded.SumError
	if !errors.As(err, &se) || se.Stack != "a" || !errors.Is(err, folded.ErrCountRange) {
		t.Errorf("timeline: %v", err)
	}
	if _, err := p.WriteTo(&out); !errors.As(err, &se) || se.Sum != "18014398509481987" {
		t.Errorf("folded.Profile: %v", err)
	}
}
