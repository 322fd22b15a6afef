package window

import (
	"flamekit/pkg/folded"
)

// Measure says what the counts of the inputs measure (see
// folded.MeasureOf), from their metadata lines: those read, or, for an
// input not read yet, those of its head (Heads). ok is false when no line
// says. Inputs that measure different things (other events, other units:
// cpu-clock nanoseconds and page-fault counts, off-CPU microseconds and
// on-CPU nanoseconds), or captures of different things concatenated in
// one input, are an error, a *folded.MeasureError naming both inputs and
// lines: the units rule of every tool (folded.Units).
func (ins Inputs) Measure() (m folded.Measure, ok bool, err error) {
	var u folded.Units
	for _, in := range ins {
		metas := in.Metas
		if !in.Read {
			metas = in.head.metas
		}
		if err := u.Add(in.Display, metas); err != nil {
			m, ok = u.Measure()
			return m, ok, err
		}
	}
	m, ok = u.Measure()
	return m, ok, nil
}
