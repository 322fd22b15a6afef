package sample

import (
	"flamekit/pkg/folded"
)

// Capture is what a capture's header says about it: the `perf script
// --header` block, or the header and feature sections of a perf.data file.
// Values are kept as perf prints them in the --header block.
type Capture struct {
	Host        string // "# hostname : vm"
	OSRelease   string // "# os release : 6.18.44"
	PerfVersion string // "# perf version : 6.1.187"
	CapturedOn  string // "# captured on : Sun Nov 22 02:24:54 2026" (local time)
	Cmdline     string // "# cmdline : /usr/bin/perf record -a -g ..."
	// First and Last are perf's "time of first sample" and "time of last
	// sample" ("413.417927"), "" when absent.
	First, Last string
	// Clock is the clock id name of perf record -k ("monotonic"), "" by
	// default (perf's local_clock).
	Clock string
	// RefWall (RFC 3339, UTC) and RefPerf (perf-clock seconds) are the
	// reference pair of a -k capture: RefWall happened at perf time
	// RefPerf.
	RefWall, RefPerf string
	// Events are the names of the events recorded, in the order of the
	// file's attributes ("cpu-clock:pppH", "sched:sched_switch"); empty
	// when the header did not list them.
	Events []string
}

// Meta returns the metadata line written before a stream's first sample:
// the capture's facts, the event kept and the input's name (source; ""
// for standard input).
func (c *Capture) Meta(event, source string) *folded.Meta {
	m := &folded.Meta{}
	m.Set(folded.KeyHost, c.Host)
	m.Set(folded.KeyOSRelease, c.OSRelease)
	m.Set(folded.KeyPerfVersion, c.PerfVersion)
	m.Set(folded.KeyCapturedOn, c.CapturedOn)
	m.Set(folded.KeyCmdline, c.Cmdline)
	m.Set(folded.KeyEvent, event)
	m.Set(folded.KeyFirst, c.First)
	m.Set(folded.KeyLast, c.Last)
	m.Set(folded.KeyClock, c.Clock)
	m.Set(folded.KeyRefWall, c.RefWall)
	m.Set(folded.KeyRefPerf, c.RefPerf)
	m.Set(folded.KeySource, source)
	return m
}
