package folded

import (
	"fmt"
	"strings"
)

// Metadata keys of a stream read back from pprof (pkg/interop/pprof writes them):
// the sample type its counts are, which describes the whole stream and
// wins over the event and weight of the capture's own lines.
const (
	KeySampleType = "pprof-type" // e.g. "cpu", "alloc_space", "samples"
	KeySampleUnit = "pprof-unit" // e.g. "nanoseconds", "bytes", "count"
)

// Measure says what the counts of a folded stream measure, as its
// metadata lines say: a quantity and its unit. Two streams can be summed
// only when they measure the same (Same).
type Measure struct {
	// Name is what is counted: "cpu" (cpu-clock and task-clock periods:
	// CPU time), "off-cpu", "hot-cold" (on- and off-CPU time), a pprof
	// sample type, or an event's name without its modifiers and
	// subsystem ("page-faults", "sched_switch", "malloc").
	Name string
	// Unit is the unit of the counts, as pprof names units:
	// "nanoseconds", "microseconds", "bytes", "count", ...
	Unit string
	// Event is the event the metadata names ("cpu-clock:pppH"), Field
	// the payload field the counts sum (stackcollapse --weight), if any.
	Event, Field string
	// Known is false when the unit is a guess: a tracepoint's or an
	// unknown event's counts, a payload field of unknown unit.
	Known bool
}

// Same reports whether counts of m and o can be summed: same quantity,
// same unit. A pprof sample type spells a quantity with '_' where the
// metadata has '-' ("off_cpu" is "off-cpu", "page_faults" "page-faults").
func (m Measure) Same(o Measure) bool {
	return m.Unit == o.Unit && strings.ReplaceAll(m.Name, "_", "-") == strings.ReplaceAll(o.Name, "_", "-")
}

// String describes m for messages: "event cpu-clock:pppH: cpu in
// nanoseconds".
func (m Measure) String() string {
	var b strings.Builder
	if m.Event != "" {
		b.WriteString("event " + m.Event)
		if m.Field != "" {
			b.WriteString(" weighted by " + m.Field)
		}
		b.WriteString(": ")
	}
	b.WriteString(m.Name)
	if m.Unit == "count" {
		b.WriteString(", a count")
	} else {
		b.WriteString(" in " + m.Unit)
	}
	return b.String()
}

// Label names what a sum of counts is, in the plural, for a legend: "µs
// off-CPU", "ns on-CPU", "bytes of malloc (size)", "page-faults".
func (m Measure) Label() string {
	short := ShortUnit(m.Unit)
	switch m.Name {
	case "off-cpu":
		return short + " off-CPU"
	case "hot-cold":
		return short + " on- or off-CPU"
	case "cpu":
		return short + " on-CPU"
	}
	name := m.Name
	if m.Field != "" {
		name += " (" + m.Field + ")"
	}
	if m.Unit == "count" {
		return name
	}
	return short + " of " + name
}

// ShortUnit abbreviates the time units: "ns", "µs", "ms", "s"; others are
// returned as they are.
func ShortUnit(unit string) string {
	switch unit {
	case "nanoseconds":
		return "ns"
	case "microseconds":
		return "µs"
	case "milliseconds":
		return "ms"
	case "seconds":
		return "s"
	}
	return unit
}

// NormalUnit spells a unit as pprof does: "us" and "µs" are
// "microseconds", "ns" "nanoseconds", "B" "bytes"; "" stays "".
func NormalUnit(unit string) string {
	switch strings.ToLower(unit) {
	case "ns", "nanosecond", "nanoseconds":
		return "nanoseconds"
	case "us", "µs", "microsecond", "microseconds":
		return "microseconds"
	case "ms", "millisecond", "milliseconds":
		return "milliseconds"
	case "s", "sec", "second", "seconds":
		return "seconds"
	case "b", "byte", "bytes":
		return "bytes"
	}
	return unit
}

// MeasureOf says what the counts of a stream measure from one of its
// metadata lines; ok is false when the line says nothing of it (no event,
// weight or sample type). In order:
//
//   - pprof-type and pprof-unit (a stream read back from pprof);
//   - weight (stackcollapse): "off-cpu" and "hot-cold" in their unit
//     ("us": microseconds); a payload field (--weight size) sums the
//     field of the event: its unit is the unit key's, else the field's
//     (size, len and *bytes*: bytes; nr_sector: sectors; delay, runtime:
//     nanoseconds; any other: count, a guess);
//   - event: cpu-clock and task-clock periods are CPU time in
//     nanoseconds; offcpu-time (perf record --off-cpu) off-CPU time in
//     nanoseconds; a name holding "off-cpu" or "offcpu" off-CPU time in
//     microseconds (bcc's offcputime); any other event counts events
//     (unit count), known for perf's generic counting events (cycles,
//     page-faults, ...) and a guess for the others, tracepoints included.
func MeasureOf(m *Meta) (ms Measure, ok bool) {
	t, okT := m.Get(KeySampleType)
	u, okU := m.Get(KeySampleUnit)
	if okT && okU && t != "" && u != "" {
		return Measure{Name: t, Unit: u, Known: true}, true
	}
	ev, hasEv := m.Get(KeyEvent)
	weight, hasW := m.Get(KeyWeight)
	if (!hasEv || ev == "") && (!hasW || weight == "") {
		return Measure{}, false
	}
	ms.Event = ev
	unit, _ := m.Get(KeyUnit)
	unit = NormalUnit(unit)
	switch weight {
	case "":
	case "off-cpu", "hot-cold":
		ms.Name, ms.Unit, ms.Known = weight, unit, true
		if unit == "" {
			ms.Unit = "microseconds"
		}
		return ms, true
	default:
		ms.Field = weight
		ms.Name = EventName(ev)
		if ms.Name == "" {
			ms.Name = weight
		}
		ms.Unit, ms.Known = unit, unit != ""
		if unit == "" {
			ms.Unit, ms.Known = fieldUnit(weight)
		}
		return ms, true
	}
	name := EventName(ev)
	low := strings.ToLower(name)
	switch {
	case low == "cpu-clock" || low == "task-clock":
		ms.Name, ms.Unit, ms.Known = "cpu", "nanoseconds", true
	case low == "offcpu-time":
		ms.Name, ms.Unit, ms.Known = "off-cpu", "nanoseconds", true
	case strings.Contains(low, "off-cpu") || strings.Contains(low, "offcpu") || strings.Contains(low, "off_cpu"):
		ms.Name, ms.Unit, ms.Known = "off-cpu", "microseconds", true
	default:
		ms.Name, ms.Unit, ms.Known = name, "count", countingEvents[low]
	}
	return ms, true
}

// fieldUnit guesses the unit of a payload field by its name.
func fieldUnit(field string) (unit string, known bool) {
	f := strings.ToLower(field)
	switch {
	case f == "size" || f == "len" || f == "length" || strings.Contains(f, "bytes"):
		return "bytes", true
	case f == "nr_sector" || f == "nr_sectors":
		return "sectors", true
	case f == "delay" || f == "runtime" || strings.HasSuffix(f, "_ns"):
		return "nanoseconds", true
	}
	return "count", false
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

// EventName strips perf's event modifiers (":pppH", ":u"), a PMU's terms
// ("cpu-clock/freq=99/" is cpu-clock, "cpu/cycles/" cycles) and, for a
// tracepoint or probe ("sched:sched_switch", "probe_libc:malloc"), the
// subsystem. A list of events ("a,b") is kept whole, each event named so.
func EventName(ev string) string {
	if strings.Contains(ev, ",") {
		parts := strings.Split(ev, ",")
		for i, p := range parts {
			parts[i] = EventName(p)
		}
		return strings.Join(parts, ",")
	}
	// PMU terms: "cpu-clock/freq=99/" or "cpu/cycles,period=1000/".
	if i := strings.IndexByte(ev, '/'); i >= 0 {
		j := strings.LastIndexByte(ev, '/')
		if j > i {
			pmu, terms := ev[:i], ev[i+1:j]
			first, _, _ := strings.Cut(terms, ",")
			// What follows the terms is modifiers ("cpu/cycles/u").
			if first != "" && !strings.Contains(first, "=") {
				ev = first // cpu/cycles/u: cycles
			} else {
				ev = pmu // cpu-clock/freq=99/: cpu-clock
			}
		}
	}
	for {
		i := strings.LastIndexByte(ev, ':')
		if i < 0 {
			return ev
		}
		tail := ev[i+1:]
		if tail == "" || strings.Trim(tail, "ukhIGHpPSDeWb") == "" {
			ev = ev[:i] // modifiers
			continue
		}
		return tail
	}
}

// MeasureError is counts of different things (events or units) met where
// they would be summed: no flamekit tool sums them.
type MeasureError struct {
	A, B         Measure
	FileA, FileB string // the inputs they come from ("" when unknown)
	LineA, LineB int    // the lines of the metadata that say so (0: unknown)
	// Op is what the tool would do with them: "summed" (""), or
	// "compared" (difffolded).
	Op string
}

func (e *MeasureError) Error() string {
	where := func(file string, line int) string {
		switch {
		case file != "" && line > 0:
			return fmt.Sprintf("%s:%d", file, line)
		case file != "":
			return file
		case line > 0:
			return fmt.Sprintf("line %d", line)
		}
		return "the input"
	}
	if e.Op == "compared" {
		return fmt.Sprintf("%s (%v) and %s (%v) count different things: they cannot be compared; compare captures of the same event, in the same unit",
			where(e.FileA, e.LineA), e.A, where(e.FileB, e.LineB), e.B)
	}
	return fmt.Sprintf("%s (%v) and %s (%v) count different things: they cannot be summed; give them apart, one run each",
		where(e.FileA, e.LineA), e.A, where(e.FileB, e.LineB), e.B)
}
