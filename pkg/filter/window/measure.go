package window

import (
	"errors"

	"flamekit/pkg/folded"
)

// Measure says what the counts of the inputs measure (see
// folded.MeasureOf), from their metadata lines: those read, or, for an
// input not read yet, those of its head (Heads). ok is false when no line
// says. Inputs that measure different things (other events, other units:
// cpu-clock nanoseconds and page-fault counts, off-CPU microseconds and
// on-CPU nanoseconds), or captures of different things concatenated in
// one input, are an error, a *folded.MeasureError naming both inputs and
// lines: no output of timeslice sums them.
func (ins Inputs) Measure() (m folded.Measure, ok bool, err error) {
	var from *Input
	line := 0
	for _, in := range ins {
		metas := in.Metas
		if !in.Read {
			metas = in.head.metas
		}
		x, l, okX, err := folded.StreamMeasure(metas)
		if err != nil {
			var me *folded.MeasureError
			if errors.As(err, &me) {
				me.FileA, me.FileB = in.Display, in.Display
			}
			return m, ok, err
		}
		switch {
		case !okX:
		case !ok:
			m, ok, from, line = x, true, in, l
		case !m.Same(x):
			return m, ok, &folded.MeasureError{A: m, B: x, FileA: from.Display, LineA: line, FileB: in.Display, LineB: l}
		}
	}
	return m, ok, nil
}
