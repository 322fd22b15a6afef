package collapse

import (
	"fmt"
	"strings"
)

// kind is what the stage does with the samples of an event.
type kind uint8

const (
	kindDrop       kind = iota // not kept
	kindPlain                  // folded as it is: one line per sample
	kindSwitch                 // sched:sched_switch, for the off-CPU state machine
	kindWake                   // sched:sched_waking / sched_wakeup: a waker stack
	kindStat                   // sched:sched_stat_sleep/blocked/iowait: a delay
	kindOffCPUTime             // perf record --off-cpu's offcpu-time: an interval
)

// The events the off-CPU stages read.
const (
	evSwitch     = "sched:sched_switch"
	evWaking     = "sched:sched_waking"
	evWakeup     = "sched:sched_wakeup"
	evStatSleep  = "sched:sched_stat_sleep"
	evStatBlock  = "sched:sched_stat_blocked"
	evStatIOWait = "sched:sched_stat_iowait"
	evOffCPUTime = "offcpu-time"
)

// offCPUKind returns the kind of an event the off-CPU stages read, or
// kindDrop.
func offCPUKind(ev []byte) kind {
	switch string(ev) {
	case evSwitch:
		return kindSwitch
	case evWaking, evWakeup:
		return kindWake
	case evStatSleep, evStatBlock, evStatIOWait:
		return kindStat
	case evOffCPUTime:
		return kindOffCPUTime
	}
	return kindDrop
}

// eventCount counts the samples of one event.
type eventCount struct {
	name string
	n    int64
	kept bool // some of its samples were kept
}

// eventCounts counts samples per event; captures hold few events.
type eventCounts []eventCount

// add counts one sample of ev.
func (e *eventCounts) add(ev []byte, kept bool) {
	for i := range *e {
		c := &(*e)[i]
		if c.name == string(ev) {
			c.n++
			c.kept = c.kept || kept
			return
		}
	}
	*e = append(*e, eventCount{name: string(ev), n: 1, kept: kept})
}

// merge adds the counts of o, keeping the order in which events were
// first seen.
func (e *eventCounts) merge(o eventCounts) {
	for _, c := range o {
		found := false
		for i := range *e {
			if (*e)[i].name == c.name {
				(*e)[i].n += c.n
				(*e)[i].kept = (*e)[i].kept || c.kept
				found = true
				break
			}
		}
		if !found {
			*e = append(*e, c)
		}
	}
}

// describe lists the events with their counts: "cpu-clock:pppH (1,505
// samples, kept), page-faults (323)".
func (e eventCounts) describe() string {
	parts := make([]string, len(e))
	for i, c := range e {
		word := "samples"
		if c.n == 1 {
			word = "sample"
		}
		parts[i] = fmt.Sprintf("%s (%s %s", displayEvent(c.name), thousands(c.n), word)
		if c.kept {
			parts[i] += ", kept"
		}
		parts[i] += ")"
	}
	return strings.Join(parts, ", ")
}

// keptNames returns the names of the events whose samples were kept.
func (e eventCounts) keptNames() []string {
	var names []string
	for _, c := range e {
		if c.kept {
			names = append(names, c.name)
		}
	}
	return names
}

func displayEvent(name string) string {
	if name == "" {
		return "(no event)"
	}
	return name
}

// thousands formats n with commas: 1234567 -> "1,234,567".
func thousands(n int64) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b []byte
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			b = append(b, ',')
		}
		b = append(b, s[i])
	}
	if neg {
		return "-" + string(b)
	}
	return string(b)
}
