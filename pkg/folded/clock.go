package folded

import (
	"fmt"
	"strings"
	"time"
)

// WallRef ties perf's clock to the wall clock for one capture: the perf
// time Perf happened at wall-clock time Wall.
type WallRef struct {
	Wall time.Time
	Perf Time
	// Exact is true for a reference recorded by perf record -k (or a
	// realtime clock); false for an estimate from "captured on".
	Exact bool
	// How explains where the reference came from, for messages.
	How string
	// First and Last bound the capture the reference belongs to (perf
	// clock), to pick the right reference among several inputs.
	First, Last Time
}

// ToPerf maps a wall-clock time to perf's clock.
func (r WallRef) ToPerf(w time.Time) Time {
	return r.Perf + Time(w.Sub(r.Wall))
}

// ToWall maps a perf-clock time to the wall clock.
func (r WallRef) ToWall(t Time) time.Time {
	return r.Wall.Add(time.Duration(t - r.Perf))
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

// RefFromMeta builds the wall-clock reference of one capture from its
// merged metadata: exact from ref-wall/ref-perf (perf record -k) or a
// realtime clock, else estimated from captured-on, taken as the time of
// the last sample (last; hasSpan says whether first and last are known).
// perf printed captured-on in the local time of the machine that ran perf
// script: it is read in loc.
func RefFromMeta(m *Meta, first, last Time, hasSpan bool, loc *time.Location) (WallRef, bool) {
	if w, p, ok := m.Reference(); ok {
		return WallRef{Wall: w, Perf: p, Exact: true, First: first, Last: last,
			How: fmt.Sprintf("clock reference %s = @%v in the metadata (perf record -k, or the recorder's kernel-log marker)", w.UTC().Format(time.RFC3339Nano), p)}, true
	}
	if c, ok := m.Get(KeyClock); ok && (strings.Contains(strings.ToLower(c), "realtime") || strings.TrimSpace(c) == "0") {
		return WallRef{Wall: time.Unix(0, 0), Perf: 0, Exact: true, First: first, Last: last,
			How: "the capture's clock is CLOCK_REALTIME (perf record -k realtime)"}, true
	}
	co, ok := m.Get(KeyCapturedOn)
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
