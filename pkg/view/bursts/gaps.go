package bursts

import (
	"flamekit/pkg/folded"
	"flamekit/pkg/timeline/gaps"
)

// recorded tells how much of the capture's time was recorded, from the
// parts that were not (Options.Unrecorded): a second mostly not recorded
// is neither a quiet second of the baseline nor a hot one, and a rate is
// per second recorded.
type recorded struct {
	origin folded.Time
	gaps   []gaps.Span // sorted, disjoint
}

func newRecorded(origin folded.Time, unrecorded []gaps.Span) recorded {
	return recorded{origin: origin, gaps: gaps.Merge(unrecorded)}
}

// fraction returns the part of second sec (from the origin) recorded.
func (r recorded) fraction(sec int64) float64 {
	if len(r.gaps) == 0 {
		return 1
	}
	from := r.origin + folded.Time(sec*second)
	return 1 - float64(gaps.Covered(r.gaps, from, from+folded.Time(second)))/float64(second)
}

// mostlyUnrecorded returns the seconds from lo to hi (from the origin)
// less than half of which was recorded.
func (r recorded) mostlyUnrecorded(lo, hi int64) map[int64]bool {
	out := make(map[int64]bool)
	for _, g := range r.gaps {
		a := floorDiv(int64(g.From-r.origin), second)
		b := floorDiv(int64(g.To-r.origin)-1, second)
		for sec := max(a, lo); sec <= min(b, hi); sec++ {
			if r.fraction(sec) < 0.5 {
				out[sec] = true
			}
		}
	}
	return out
}

// seconds returns the time recorded in [from, to), in seconds.
func (r recorded) seconds(from, to folded.Time) float64 {
	return float64(to-from-gaps.Covered(r.gaps, from, to)) / float64(second)
}
