package window

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"flamekit/pkg/folded"
)

// Clock returns what the inputs read so far say about time: where
// relative times count from (the earliest first sample that any metadata
// line declares or that was read) and the wall-clock reference of every
// capture whose metadata gives one. Once every input has been read whole
// (by a Slicer or Survey), it does not depend on the order of the inputs
// or of the lines in them; before, it is what their heads say (Heads).
func (ins Inputs) Clock() Clock {
	var c Clock
	origin := func(t folded.Time) {
		if !c.HasOrigin || t < c.Origin {
			c.Origin, c.HasOrigin = t, true
		}
	}
	for _, in := range ins {
		seen, metas := in.Seen, in.Metas
		if !in.Read && in.head.read {
			seen, metas = folded.Span{}, in.head.metas
			if in.head.ok {
				seen.Add(in.head.first)
			}
		}
		if seen.OK {
			origin(seen.First)
		}
		for i := range metas {
			m := &metas[i]
			first, last, ok := declaredSpan(m)
			if ok {
				origin(first)
			} else if seen.OK {
				first, last = seen.First, seen.Last
			}
			if r, ok := refFromMeta(m, first, last, ok || seen.OK, time.Local); ok && !hasRef(c.Refs, r) {
				c.Refs = append(c.Refs, r)
			}
		}
	}
	return c
}

// declaredSpan returns the span a metadata line declares. A line whose
// first and last are equal declares no span unless it counts one sample:
// perf prints 0.000000 for both in --switch-output chunks.
func declaredSpan(m *folded.Meta) (first, last folded.Time, ok bool) {
	first, last, ok = m.Span()
	if ok && first == last {
		if n, _ := m.Get(folded.KeySamples); n != "1" {
			return 0, 0, false
		}
	}
	return first, last, ok
}

func hasRef(refs []WallRef, r WallRef) bool {
	for _, x := range refs {
		if x.Wall.Equal(r.Wall) && x.Perf == r.Perf && x.Exact == r.Exact {
			return true
		}
	}
	return false
}

// Weight returns what the inputs' counts measure and their unit, as their
// metadata says (read, or from their heads): "off-cpu" and "us" for
// stackcollapse --off-cpu output; "" when the counts are perf's periods.
func (ins Inputs) Weight() (what, unit string) {
	for _, in := range ins {
		metas := in.Metas
		if !in.Read {
			metas = in.head.metas
		}
		for i := range metas {
			if w, ok := metas[i].Get(folded.KeyWeight); ok && what == "" {
				what, _ = w, true
				unit, _ = metas[i].Get(folded.KeyUnit)
			}
		}
	}
	return what, unit
}

// RequireTimed returns an error when the inputs read hold lines but none
// with a time: timeslice cannot place them in time.
func (ins Inputs) RequireTimed() error {
	var untimed folded.Skips
	for _, in := range ins {
		if in.Samples > 0 {
			return nil
		}
		untimed.Merge(in.Untimed)
	}
	if untimed.Count > 0 {
		return fmt.Errorf("%v: no line has a time", untimed.First)
	}
	return nil
}

// Span returns the span of the samples read from all inputs.
func (ins Inputs) Span() folded.Span {
	var s folded.Span
	for _, in := range ins {
		s.Merge(in.Seen)
	}
	return s
}

// Meta returns the capture facts of the inputs' metadata lines merged, later
// lines winning, without the keys that describe one stream (first, last,
// samples, source).
func (ins Inputs) Meta() folded.Meta {
	var m folded.Meta
	for _, in := range ins {
		for _, line := range in.Metas {
			for _, f := range line.Fields {
				switch f.Key {
				case folded.KeySamples, folded.KeySource, folded.KeyFirst, folded.KeyLast, keySliceFrom, keySliceTo:
				default:
					m.Set(f.Key, f.Value)
				}
			}
		}
	}
	return m
}

const wallLayout = "2006-01-02T15:04:05.000000Z07:00"

// DescribeWindow returns the lines that show the resolved window: on
// perf's clock, relative to the first sample, and on the wall clock when
// the clock knows it.
func DescribeWindow(w *Window, c *Clock) []string {
	end := func(has bool, t folded.Time, open string) string {
		if !has {
			return open
		}
		return "@" + t.String()
	}
	lines := []string{fmt.Sprintf("window %s to %s on perf's clock (from included, to excluded)",
		end(w.HasFrom, w.From, "the start"), end(w.HasTo, w.To, "the end"))}
	if c.HasOrigin {
		rel := func(has bool, t folded.Time, open string) string {
			if !has {
				return open
			}
			return formatSeconds(t-c.Origin) + " s"
		}
		lines = append(lines, fmt.Sprintf("  = %s to %s after the first sample (@%v)",
			rel(w.HasFrom, w.From, "the start"), rel(w.HasTo, w.To, "the end"), c.Origin))
	}
	ref := w.Ref
	if ref == nil && len(c.Refs) > 0 {
		r := c.RefAt(w.From)
		ref = &r
	}
	if ref != nil {
		wall := func(has bool, t folded.Time, open string) string {
			if !has {
				return open
			}
			return ref.ToWall(t).In(time.Local).Format(wallLayout)
		}
		how := "exact: " + ref.How
		if !ref.Exact {
			how = "estimated from \"captured on\", about ±1 s"
		}
		lines = append(lines, fmt.Sprintf("  = %s to %s wall clock (%s)",
			wall(w.HasFrom, w.From, "the start"), wall(w.HasTo, w.To, "the end"), how))
	}
	return lines
}

// Overlaps reports whether the window overlaps the span of the samples
// read from any input.
func (ins Inputs) Overlaps(w *Window) bool {
	for _, in := range ins {
		if in.Seen.OK && (!w.HasTo || in.Seen.First < w.To) && (!w.HasFrom || in.Seen.Last >= w.From) {
			return true
		}
	}
	return false
}

// Outside is the error for a window that holds no sample of any input: it
// lists the spans of the samples read.
func (ins Inputs) Outside(w *Window) error {
	var b strings.Builder
	from, to := "the start", "the end"
	if w.HasFrom {
		from = "@" + w.From.String()
	}
	if w.HasTo {
		to = "@" + w.To.String()
	}
	fmt.Fprintf(&b, "the window %s to %s holds no sample; the inputs hold:", from, to)
	const show = 12
	for i, in := range ins {
		if i == show {
			fmt.Fprintf(&b, "\n  ... and %d more", len(ins)-show)
			break
		}
		fmt.Fprintf(&b, "\n  %s", in)
	}
	return errors.New(b.String())
}

// Metadata keys of a --keep-time slice: its window on perf's clock, from
// (included) and to (excluded). Its first and last stay the capture's, so
// that relative times keep their meaning when slices are chained.
const (
	keySliceFrom = "slice-from"
	keySliceTo   = "slice-to"
)

// CaptureMetas returns the metadata lines of the captures read, for a
// --keep-time slice to carry on: each distinct line once, without the keys
// that describe one stream (samples, source), in an order that does not
// depend on the order of the inputs (by declared first sample, then by
// text). Each capture's facts (host, clock reference ...) stay on their own
// line, so that a slice of several captures still maps each one to the
// wall clock.
func (ins Inputs) CaptureMetas() []folded.Meta {
	seen := map[string]bool{}
	var out []folded.Meta
	for _, in := range ins {
		for _, line := range in.Metas {
			var m folded.Meta
			for _, f := range line.Fields {
				switch f.Key {
				case folded.KeySamples, folded.KeySource, keySliceFrom, keySliceTo:
				default:
					m.Set(f.Key, f.Value)
				}
			}
			key := string(folded.AppendMeta(nil, &m))
			if len(m.Fields) == 0 || seen[key] {
				continue
			}
			seen[key] = true
			out = append(out, m)
		}
	}
	slices.SortFunc(out, func(a, b folded.Meta) int {
		fa, _ := a.Time(folded.KeyFirst)
		fb, _ := b.Time(folded.KeyFirst)
		if c := cmp.Compare(fa, fb); c != 0 {
			return c
		}
		return strings.Compare(string(folded.AppendMeta(nil, &a)), string(folded.AppendMeta(nil, &b)))
	})
	return out
}

// SliceMeta is the metadata line that describes a --keep-time slice: the
// first and last sample of the captures read (which stay the captures',
// so that relative times keep their meaning when slices are chained), the
// inputs named, and the window.
func SliceMeta(ins Inputs, w *Window, c *Clock) folded.Meta {
	var m folded.Meta
	if c.HasOrigin {
		m.Set(folded.KeyFirst, c.Origin.String())
	}
	var last folded.Span
	for _, in := range ins {
		last.Merge(in.Seen)
		for i := range in.Metas {
			if _, l, ok := declaredSpan(&in.Metas[i]); ok {
				last.Add(l)
			}
		}
	}
	if last.OK {
		m.Set(folded.KeyLast, last.Last.String())
	}
	var names []string
	for _, in := range ins {
		if in.Name != "-" {
			names = append(names, in.Name)
		}
	}
	m.Set(folded.KeySource, strings.Join(names, " "))
	if w != nil {
		if w.HasFrom {
			m.Set(keySliceFrom, w.From.String())
		}
		if w.HasTo {
			m.Set(keySliceTo, w.To.String())
		}
	}
	return m
}

// TimedWriter is the Sink of a --keep-time slice: the timed lines as they
// are read, then the metadata lines of the captures and one describing the
// slice (written by Close, when all are known), so that slices can be
// chained.
type TimedWriter struct {
	fw   *folded.Writer
	span folded.Span
	n    int64
}

// NewTimedWriter returns a writer of timed lines to w.
func NewTimedWriter(w io.Writer) *TimedWriter {
	return &TimedWriter{fw: folded.NewWriter(w)}
}

// Sample writes one record.
func (t *TimedWriter) Sample(rec *folded.Record) error {
	if rec.Kind == folded.Timed {
		t.span.Add(rec.Time)
		t.n++
	}
	return t.fw.Write(rec)
}

// Close writes the captures' metadata lines (see CaptureMetas), then the
// slice's own line (see SliceMeta) with the number of samples written, and
// flushes.
func (t *TimedWriter) Close(captures []folded.Meta, slice folded.Meta) error {
	for i := range captures {
		if err := t.fw.WriteMeta(&captures[i]); err != nil {
			return err
		}
	}
	slice.Set(folded.KeySamples, strconv.FormatInt(t.n, 10))
	if err := t.fw.WriteMeta(&slice); err != nil {
		return err
	}
	return t.fw.Flush()
}
