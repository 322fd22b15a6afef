package window

import (
	"errors"
	"fmt"
	"time"

	"flamekit/pkg/folded"
)

// WallRef ties perf's clock to the wall clock for one capture; it lives in
// package folded so that every sink (pprof, Pyroscope) maps time the same
// way.
type WallRef = folded.WallRef

// Clock is what is known about the captures' time: where relative times
// count from and how to reach the wall clock.
type Clock struct {
	// Origin is the capture's first sample: relative times count from it.
	Origin    folded.Time
	HasOrigin bool
	// Refs are the wall-clock references of the inputs, if any.
	Refs []WallRef
}

// Window is a resolved window on perf's clock: the samples with From <= t <
// To (half-open, so that consecutive windows add up to the whole).
type Window struct {
	From, To       folded.Time
	HasFrom, HasTo bool
	// Ref is the wall-clock reference used (or the best available one for
	// display); nil when the wall clock is unknown.
	Ref *WallRef
	// Estimated is set when a wall-clock point was mapped with an
	// estimated reference; Warning then says how.
	Estimated bool
	Warning   string
}

// Contains reports whether t is inside the window.
func (w *Window) Contains(t folded.Time) bool {
	return (!w.HasFrom || t >= w.From) && (!w.HasTo || t < w.To)
}

// ErrNoOrigin is returned for a relative window when the input tells
// nothing about its first sample.
var ErrNoOrigin = errors.New("relative times need the capture's first sample, and the input has no timed sample")

// Resolve places a window on perf's clock. A window given on the wall
// clock is converted with one reference (the one for its middle, or for
// its one wall-clock end), so that it keeps its length.
func (c *Clock) Resolve(sp Spec) (Window, error) {
	var w Window
	var err error
	if wall, ok := sp.wallAnchor(); ok {
		if len(c.Refs) == 0 {
			return w, fmt.Errorf("cannot place wall-clock time %s: the input carries neither a clock reference (perf record -k, or the recorder's marker) nor a \"captured on\" date with the time of the last sample (a perf.data read from standard input, or gzipped with -n, or zstd, has no date: its copy's would be the time of reading; name the file itself); give the time on perf's clock (--at @SECONDS±W) or relative to the first sample (--at 70s±W)", wall.Format(time.RFC3339Nano))
		}
		r := c.refForWall(wall)
		w.Ref = &r
		if !r.Exact {
			w.Estimated = true
			w.Warning = "wall-clock time is estimated: " + r.How
		}
	}
	if sp.HasFrom {
		if w.From, err = c.point(sp.From, &w); err != nil {
			return w, err
		}
		w.HasFrom = true
	}
	if sp.HasTo {
		if w.To, err = c.point(sp.To, &w); err != nil {
			return w, err
		}
		w.HasTo = true
	}
	if w.HasFrom && w.HasTo && w.From >= w.To {
		return w, fmt.Errorf("%w: %s is empty once placed on perf's clock (@%v to @%v)", ErrWindow, sp.Text, w.From, w.To)
	}
	return w, nil
}

// Same reports whether w and o select the same samples.
func (w *Window) Same(o *Window) bool {
	return w.HasFrom == o.HasFrom && w.HasTo == o.HasTo &&
		(!w.HasFrom || w.From == o.From) && (!w.HasTo || w.To == o.To)
}

// wallAnchor returns the wall-clock time that chooses the reference of a
// window with wall-clock ends: the middle of two, or the one.
func (sp Spec) wallAnchor() (time.Time, bool) {
	fw := sp.HasFrom && sp.From.Kind == Wall
	tw := sp.HasTo && sp.To.Kind == Wall
	switch {
	case fw && tw:
		return sp.From.Wall.Add(sp.To.Wall.Sub(sp.From.Wall) / 2), true
	case fw:
		return sp.From.Wall, true
	case tw:
		return sp.To.Wall, true
	}
	return time.Time{}, false
}

// NeedsClock reports whether placing the window needs what only reading
// the inputs tells: the first sample (relative ends) or the clock
// references (wall-clock ends). A window on perf's clock needs neither.
func (sp Spec) NeedsClock() bool {
	return sp.HasFrom && sp.From.Kind != Perf || sp.HasTo && sp.To.Kind != Perf
}

func (c *Clock) point(p Point, w *Window) (folded.Time, error) {
	switch p.Kind {
	case Perf:
		return p.At, nil
	case Relative:
		if !c.HasOrigin {
			return 0, ErrNoOrigin
		}
		return c.Origin + p.At, nil
	case Wall:
		return w.Ref.ToPerf(p.Wall), nil
	}
	return 0, fmt.Errorf("%w: unknown time %q", ErrWindow, p.Text)
}

// refForWall picks the reference for wall-clock time t: exact references
// before estimated ones, the one whose capture contains t, else the
// nearest.
func (c *Clock) refForWall(t time.Time) WallRef {
	return c.pick(func(r WallRef) folded.Time { return r.ToPerf(t) })
}

// RefAt returns the wall-clock reference for perf time t: exact ones
// first, the one whose capture holds t, else the nearest. Clock must have
// references.
func (c *Clock) RefAt(t folded.Time) WallRef {
	return c.pick(func(WallRef) folded.Time { return t })
}

func (c *Clock) pick(at func(WallRef) folded.Time) WallRef {
	best, bestDist, bestExact := -1, folded.Time(0), false
	for i, r := range c.Refs {
		t := at(r)
		var d folded.Time
		switch {
		case t < r.First:
			d = r.First - t
		case t > r.Last:
			d = t - r.Last
		}
		if best < 0 || r.Exact && !bestExact || r.Exact == bestExact && d < bestDist {
			best, bestDist, bestExact = i, d, r.Exact
		}
	}
	return c.Refs[best]
}

// refFromMeta is folded.RefFromMeta.
func refFromMeta(m *folded.Meta, first, last folded.Time, hasSpan bool, loc *time.Location) (WallRef, bool) {
	return folded.RefFromMeta(m, first, last, hasSpan, loc)
}
