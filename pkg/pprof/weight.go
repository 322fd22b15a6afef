package pprof

import (
	"strings"

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
	KeyType = "pprof-type" // e.g. "cpu"
	KeyUnit = "pprof-unit" // e.g. "nanoseconds"
)

// Samples is the sample type that counts timed lines.
var Samples = Weight{"samples", "count"}

// WeightFor says what the counts of a folded stream with metadata m
// measure, and whether that is known (false: a guess). In order:
//
//   - pprof-type and pprof-unit, when present (ToFolded writes them);
//   - the event (metadata key event, perf's name with its modifiers, such
//     as "cpu-clock:pppH"):
//   - cpu-clock and task-clock: cpu/nanoseconds (their period is
//     nanoseconds);
//   - offcpu-time (perf record --off-cpu): off_cpu/nanoseconds;
//   - a name containing "off-cpu" or "offcpu": off_cpu/microseconds (the unit
//     of stackcollapse --off-cpu and bcc's offcputime);
//   - any other event: its name (a tracepoint without its subsystem,
//     "sched:sched_switch" → "sched_switch"; ':', '-' and blanks as '_')
//     with unit count, which is what perf's period counts for hardware,
//     software and tracepoint events. known is true for the perf events
//     whose period is a count (cycles, instructions, page-faults, ...), and
//     false for the others, tracepoints included: their counts may be
//     payload weights (bytes, sectors) that only the caller knows; give
//     Options.Weight for them.
//   - no event: weight/count, unknown.
func WeightFor(m *folded.Meta) (w Weight, known bool) {
	t, okT := m.Get(KeyType)
	u, okU := m.Get(KeyUnit)
	if okT && okU && t != "" && u != "" {
		return Weight{t, u}, true
	}
	ev, ok := m.Get(folded.KeyEvent)
	if !ok || ev == "" {
		return Weight{"weight", "count"}, false
	}
	name := eventName(ev)
	low := strings.ToLower(name)
	switch {
	case low == "cpu-clock" || low == "task-clock":
		return Weight{"cpu", "nanoseconds"}, true
	case low == "offcpu-time":
		return Weight{"off_cpu", "nanoseconds"}, true
	case strings.Contains(low, "off-cpu") || strings.Contains(low, "offcpu") || strings.Contains(low, "off_cpu"):
		return Weight{"off_cpu", "microseconds"}, true
	}
	typ := sanitize(name)
	return Weight{typ, "count"}, countingEvents[low]
}

// countingEvents are perf's generic events whose period is a count of
// events.
var countingEvents = map[string]bool{
	"cycles": true, "cpu-cycles": true, "instructions": true, "ref-cycles": true,
	"cache-references": true, "cache-misses": true, "branches": true,
	"branch-instructions": true, "branch-misses": true, "bus-cycles": true,
	"stalled-cycles-frontend": true, "stalled-cycles-backend": true,
	"page-faults": true, "faults": true, "minor-faults": true, "major-faults": true,
	"context-switches": true, "cs": true, "cpu-migrations": true, "migrations": true,
	"alignment-faults": true, "emulation-faults": true,
}

// eventName strips perf's event modifiers (":pppH", ":u", ":k") and, for
// a tracepoint or probe ("sched:sched_switch", "probe_libc:malloc"), the
// subsystem.
func eventName(ev string) string {
	for {
		i := strings.LastIndexByte(ev, ':')
		if i < 0 {
			return ev
		}
		tail := ev[i+1:]
		if tail != "" && strings.Trim(tail, "ukhIGHpPSDeWb") == "" {
			ev = ev[:i] // modifiers
			continue
		}
		if tail == "" {
			ev = ev[:i]
			continue
		}
		return tail
	}
}

// sanitize makes a sample type name that Pyroscope can keep in its
// "name:type:unit:..." profile type IDs.
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
