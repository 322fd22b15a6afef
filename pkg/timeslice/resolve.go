package timeslice

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"flamekit/pkg/folded"
)

// WallRef ties perf's clock to the wall clock for one capture: the perf
// time Perf happened at wall-clock time Wall.
type WallRef struct {
	Wall time.Time
	Perf folded.Time
	// Exact is true for a reference recorded by perf record -k (or a
	// realtime clock); false for an estimate from "captured on".
	Exact bool
	// How explains where the reference came from, for messages.
	How string
	// First and Last bound the capture the reference belongs to (perf
	// clock), to pick the right reference among several inputs.
	First, Last folded.Time
}

// ToPerf maps a wall-clock time to perf's clock.
func (r WallRef) ToPerf(w time.Time) folded.Time {
	return r.Perf + folded.Time(w.Sub(r.Wall))
}

// ToWall maps a perf-clock time to the wall clock.
func (r WallRef) ToWall(t folded.Time) time.Time {
	return r.Wall.Add(time.Duration(t - r.Perf))
}

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
			return w, fmt.Errorf("cannot place wall-clock time %s: the input carries neither a clock reference (perf record -k, or the recorder's marker) nor a \"captured on\" date with the time of the last sample; give the time on perf's clock (--at @SECONDS±W) or relative to the first sample (--at 70s±W)", wall.Format(time.RFC3339Nano))
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

// capturedOnLayouts are the forms of perf's "captured on" (ctime(3)).
var capturedOnLayouts = []string{time.ANSIC, "Mon Jan 2 15:04:05 2006", time.UnixDate}

// ParseCapturedOn reads perf's "captured on" date ("Sun Nov 22 02:01:14
// 2026"), which perf printed in the local time of the machine that ran perf
// script, in loc.
func ParseCapturedOn(s string, loc *time.Location) (time.Time, bool) {
	s = strings.Join(strings.Fields(s), " ")
	for _, l := range capturedOnLayouts {
		if t, err := time.ParseInLocation(l, s, loc); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// refFromMeta builds the wall-clock reference of one input from its merged
// metadata: exact from ref-wall/ref-perf (perf record -k) or a realtime
// clock, else estimated from captured-on, taken as the time of the last
// sample.
func refFromMeta(m *folded.Meta, first, last folded.Time, hasSpan bool, loc *time.Location) (WallRef, bool) {
	if w, p, ok := m.Reference(); ok {
		return WallRef{Wall: w, Perf: p, Exact: true, First: first, Last: last,
			How: fmt.Sprintf("clock reference %s = @%v recorded by perf record -k", w.UTC().Format(time.RFC3339Nano), p)}, true
	}
	if c, ok := m.Get(folded.KeyClock); ok && (strings.Contains(strings.ToLower(c), "realtime") || strings.TrimSpace(c) == "0") {
		return WallRef{Wall: time.Unix(0, 0), Perf: 0, Exact: true, First: first, Last: last,
			How: "the capture's clock is CLOCK_REALTIME (perf record -k realtime)"}, true
	}
	co, ok := m.Get(folded.KeyCapturedOn)
	if !ok || !hasSpan {
		return WallRef{}, false
	}
	w, ok := ParseCapturedOn(co, loc)
	if !ok {
		return WallRef{}, false
	}
	zone, off := w.Zone()
	how := fmt.Sprintf("no perf record -k clock reference, so the last sample (@%v) is taken to be at \"captured on\" %q, read as local time %s (UTC%+03d:%02d; set TZ to change), about ±1 s (record with perf record -k mono for exact times)",
		last, co, zone, off/3600, abs(off%3600)/60)
	return WallRef{Wall: w, Perf: last, First: first, Last: last, How: how}, true
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
