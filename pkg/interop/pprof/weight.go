package pprof

import (
	"flamekit/pkg/folded"
)

// Weight is a pprof sample type: what a folded count measures.
type Weight struct {
	Type string // e.g. "cpu", "off_cpu", "page_faults"
	Unit string // e.g. "nanoseconds", "microseconds", "bytes", "count"
}

// String returns "type/unit".
func (w Weight) String() string { return w.Type + "/" + w.Unit }

// Metadata keys this package reads and writes beside folded's own: the
// sample type a folded stream's counts measure. ToFolded writes them; they
// take precedence over the event when the stream goes back to pprof.
const (
	KeyType = folded.KeySampleType // e.g. "cpu"
	KeyUnit = folded.KeySampleUnit // e.g. "nanoseconds"
)

// Samples is the sample type that counts timed lines.
var Samples = Weight{"samples", "count"}

// WeightFor says what the counts of a folded stream with metadata m
// measure, and whether that is known (false: a guess): folded.MeasureOf,
// its name made a pprof sample type (snake_case, as pprof's own types
// are: "off-cpu" is off_cpu, "page-faults" page_faults). So:
//
//   - a stream read back from pprof: its pprof-type and pprof-unit;
//   - stackcollapse --off-cpu: off_cpu/microseconds; --hot-cold:
//     hot_cold/microseconds;
//   - stackcollapse --weight FIELD: the event's name and the field's
//     unit (malloc/bytes for --weight size of a malloc probe;
//     block_rq_issue/sectors for nr_sector);
//   - cpu-clock and task-clock: cpu/nanoseconds (their period is
//     nanoseconds); offcpu-time (perf record --off-cpu):
//     off_cpu/nanoseconds;
//   - any other event: its name (a tracepoint without its subsystem,
//     "sched:sched_switch" is sched_switch) with unit count, which is what
//     perf's period counts for hardware, software and tracepoint events.
//     known is true for the perf events whose period is a count (cycles,
//     instructions, page-faults, ...), and false for the others,
//     tracepoints included: their counts may be payload weights (bytes,
//     sectors) that only the caller knows; give Options.Weight for them.
//   - no event: weight/count, unknown.
func WeightFor(m *folded.Meta) (w Weight, known bool) {
	ms, ok := folded.MeasureOf(m)
	if !ok {
		return Weight{"weight", "count"}, false
	}
	return WeightOf(ms), ms.Known
}

// WeightOf is the pprof sample type of a measure.
func WeightOf(ms folded.Measure) Weight {
	unit := ms.Unit
	if unit == "" {
		unit = "count"
	}
	return Weight{sanitize(ms.Name), unit}
}

// sanitize makes a sample type name that Pyroscope can keep in its
// "name:type:unit:..." profile type IDs, in pprof's snake_case.
func sanitize(s string) string {
	b := []byte(s)
	for i, c := range b {
		switch c {
		case ':', '-', ' ', '\t', '/', '{', '}', ',', '=':
			b[i] = '_'
		}
	}
	if len(b) == 0 {
		return "weight"
	}
	return string(b)
}
