package timeslice

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

// Inputs are the probed inputs of one run, in the order they were named.
type Inputs []*Input

// ProbeAll probes the named inputs ("-" is stdin, read from stdin; it
// may be named once). On error the inputs already probed are closed.
func ProbeAll(names []string, stdin io.Reader) (Inputs, error) {
	var ins Inputs
	for _, name := range names {
		var in *Input
		var err error
		if name == "-" {
			in, err = ProbeStream(name, io.NopCloser(stdin))
		} else {
			in, err = Probe(name)
		}
		if err != nil {
			ins.Close()
			return nil, err
		}
		ins = append(ins, in)
	}
	return ins, nil
}

// Close closes every input.
func (ins Inputs) Close() {
	for _, in := range ins {
		in.Close()
	}
}

// RequireTimed returns an error naming the first input whose first sample
// line has no time.
func (ins Inputs) RequireTimed() error {
	for _, in := range ins {
		if !in.Empty && in.FirstKind != folded.Timed {
			return fmt.Errorf("%s: %s line without a time: timeslice needs timed folded input (\"stack count @seconds\"); run stackcollapse without --no-time", in.FirstWhere, in.FirstKind)
		}
	}
	return nil
}

// Clock gathers the origin (the earliest first sample of all inputs)
// and the wall-clock references of the inputs.
func (inputs Inputs) Clock() Clock {
	var c Clock
	for _, in := range inputs {
		if t, ok := in.Origin(); ok && (!c.HasOrigin || t < c.Origin) {
			c.Origin, c.HasOrigin = t, true
		}
	}
	for _, in := range inputs {
		first, last, _, ok := in.Span()
		if !ok {
			if f, okF := in.Origin(); okF {
				first, last = f, f
			}
			if l, okL := in.Merged.Time(folded.KeyLast); okL {
				last, ok = l, true
			}
		}
		if r, ok := refFromMeta(&in.Merged, first, last, ok, time.Local); ok {
			c.Refs = append(c.Refs, r)
		}
	}
	return c
}

// Select returns the inputs to read for window w (nil: all), in time
// order: the inputs with samples whose span may overlap the window.
func (inputs Inputs) Select(w *Window) []*Input {
	sorted := slices.Clone(inputs)
	slices.SortStableFunc(sorted, func(a, b *Input) int {
		ta, oka := a.Origin()
		tb, okb := b.Origin()
		switch {
		case oka && okb:
			return cmp.Compare(ta, tb)
		case oka:
			return -1
		case okb:
			return 1
		}
		return 0
	})
	var used []*Input
	for _, in := range sorted {
		if in.Empty {
			continue
		}
		if w != nil {
			if first, last, declared, ok := in.Span(); ok && declared &&
				(w.HasTo && first >= w.To || w.HasFrom && last < w.From) {
				in.Close()
				continue
			}
		}
		used = append(used, in)
	}
	return used
}

const wallLayout = "2006-01-02T15:04:05.000000Z07:00"

// DescribeWindow returns the lines that show the resolved window.
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
	if w.Ref != nil {
		wall := func(has bool, t folded.Time, open string) string {
			if !has {
				return open
			}
			return w.Ref.ToWall(t).In(time.Local).Format(wallLayout)
		}
		how := "exact: " + w.Ref.How
		if !w.Ref.Exact {
			how = "estimated from \"captured on\", about ±1 s"
		}
		lines = append(lines, fmt.Sprintf("  = %s to %s wall clock (%s)",
			wall(w.HasFrom, w.From, "the start"), wall(w.HasTo, w.To, "the end"), how))
	}
	return lines
}

// OverlapsAny reports whether the window overlaps the span of any input
// (declared, or of the samples s read when s is not nil).
func OverlapsAny(w *Window, inputs []*Input, s *Slicer) bool {
	for _, in := range inputs {
		first, last, _, ok := in.Span()
		if s != nil {
			if f, l, okS := s.Seen(in); okS {
				if !ok || f < first {
					first = f
				}
				if !ok || l > last {
					last = l
				}
				ok = true
			}
		}
		if ok && (!w.HasTo || first < w.To) && (!w.HasFrom || last >= w.From) {
			return true
		}
	}
	return false
}

func outside(w *Window, inputs []*Input, s *Slicer) error {
	var b strings.Builder
	from, to := "the start", "the end"
	if w.HasFrom {
		from = "@" + w.From.String()
	}
	if w.HasTo {
		to = "@" + w.To.String()
	}
	fmt.Fprintf(&b, "the window %s to %s is outside every input; spans found:", from, to)
	const show = 12
	for i, in := range inputs {
		if i == show {
			fmt.Fprintf(&b, "\n  ... and %d more", len(inputs)-show)
			break
		}
		desc := in.String()
		if s != nil {
			if f, l, ok := s.Seen(in); ok {
				desc = fmt.Sprintf("%s @%v to @%v (samples read)", in.Display, f, l)
			}
		}
		fmt.Fprintf(&b, "\n  %s", desc)
	}
	return errors.New(b.String())
}

// Outside is the error for a window that misses every input: it lists the
// spans found (those of the samples s read, when s is not nil).
func Outside(w *Window, inputs []*Input, s *Slicer) error {
	var b strings.Builder
	from, to := "the start", "the end"
	if w.HasFrom {
		from = "@" + w.From.String()
	}
	if w.HasTo {
		to = "@" + w.To.String()
	}
	fmt.Fprintf(&b, "the window %s to %s is outside every input; spans found:", from, to)
	const show = 12
	for i, in := range inputs {
		if i == show {
			fmt.Fprintf(&b, "\n  ... and %d more", len(inputs)-show)
			break
		}
		desc := in.String()
		if s != nil {
			if f, l, ok := s.Seen(in); ok {
				desc = fmt.Sprintf("%s @%v to @%v (samples read)", in.Display, f, l)
			}
		}
		fmt.Fprintf(&b, "\n  %s", desc)
	}
	return errors.New(b.String())
}

// SliceMeta is the metadata line that starts --keep-time output: the
// facts of the capture (its first and last sample stay those of the
// capture, so relative times keep their meaning when slices are chained)
// and the slice.
func SliceMeta(used []*Input, w *Window, c *Clock) folded.Meta {
	var m folded.Meta
	var names []string
	for _, in := range used {
		for _, f := range in.Merged.Fields {
			switch f.Key {
			case folded.KeySamples, folded.KeySource, folded.KeyFirst, folded.KeyLast:
			default:
				m.Set(f.Key, f.Value)
			}
		}
		names = append(names, in.Display)
	}
	if c.HasOrigin {
		m.Set(folded.KeyFirst, c.Origin.String())
	}
	var last folded.Time
	hasLast := false
	for _, in := range used {
		if _, l, _, ok := in.Span(); ok && (!hasLast || l > last) {
			last, hasLast = l, true
		}
	}
	if hasLast {
		m.Set(folded.KeyLast, last.String())
	}
	m.Set(folded.KeySource, strings.Join(names, " "))
	if w != nil {
		if w.HasFrom {
			m.Set(KeySliceFrom, w.From.String())
		}
		if w.HasTo {
			m.Set(KeySliceTo, w.To.String())
		}
	}
	return m
}

// TimedWriter is the Sink of a --keep-time slice: timed lines between a
// metadata line describing the slice and one giving the span of the
// samples written, so that slices can be chained.
type TimedWriter struct {
	fw   *folded.Writer
	span folded.Span
	n    int64
}

// NewTimedWriter writes head, the slice's metadata line (see SliceMeta),
// and returns a writer of the samples that follow.
func NewTimedWriter(w io.Writer, head folded.Meta) (*TimedWriter, error) {
	tw := &TimedWriter{fw: folded.NewWriter(w)}
	return tw, tw.fw.WriteMeta(&head)
}

// Sample writes one record.
func (t *TimedWriter) Sample(rec *folded.Record) error {
	if rec.Kind == folded.Timed {
		t.span.Add(rec.Time)
		t.n++
	}
	return t.fw.Write(rec)
}

// Close writes the closing metadata line and flushes.
func (t *TimedWriter) Close() error {
	var tail folded.Meta
	t.span.SetMeta(&tail)
	tail.Set(folded.KeySamples, strconv.FormatInt(t.n, 10))
	if err := t.fw.WriteMeta(&tail); err != nil {
		return err
	}
	return t.fw.Flush()
}
