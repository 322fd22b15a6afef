package collapse

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Options select what stackcollapse-perf.pl's flags select, plus
// flamekit's own.
type Options struct {
	PID     bool // root frame "comm-PID"
	TID     bool // root frame "comm-PID/TID" (wins over PID)
	Kernel  bool // append _[k] to kernel frames
	JIT     bool // append _[j] to perf-map (JIT) frames
	Addrs   bool // "[module <addr>]" for unknown symbols
	Inline  bool // expand inlined functions (pkg/perf/dwarfline, as addr2line -i)
	Context bool // with Inline: append ":file:line"
	Srcline bool // frames carry perf script -F+srcline lines (Frame.Srcline)
	// EventFilter keeps only the samples of this event: its exact name
	// ("sched:sched_switch", "cpu-clock:pppH") or a part of it between
	// colons (or the slashes of "cpu-clock/freq=99/") that names one
	// event of the input ("sched_switch", "cpu-clock"). "" keeps the first event seen, as
	// stackcollapse-perf.pl does. With HotCold it picks the on-CPU event.
	EventFilter string
	NoIdle      bool // drop idle CPU stacks (pkg/filter/idle)
	NoTime      bool // classic output even when the input has times
	// RefWall (RFC 3339) and RefPerf (perf-clock seconds) are a clock
	// reference known from elsewhere (a marker in the kernel log): they
	// replace the capture's in the metadata, making wall-clock windows
	// exact without perf record -k.
	RefWall, RefPerf string

	// Weight weights each sample by this numeric payload field ("size",
	// "bytes_alloc", "nr_sector", "delay") instead of perf's period.
	// Samples without it are left out and counted (Summary.NoWeight).
	Weight string

	// OffCPU writes off-CPU time instead of samples: the time from a
	// thread's switch-out in a blocking state to its next switch-in, in
	// microseconds, attributed to the stack at switch-out (from
	// sched:sched_switch; or sched_stat_sleep/blocked/iowait, or perf's
	// offcpu-time event, when the input has them). The intervals of an
	// input are kept until its end, then written in time order: memory
	// grows with the number of intervals (tens of bytes each).
	OffCPU bool
	// States are the prev_state letters that open an off-CPU interval:
	// "" means "SD" (sleeping and uninterruptible, as perf record
	// --off-cpu counts), "all" every state (as bcc's offcputime does).
	// Letters may be separated by commas.
	States string
	// MinBlock and MaxBlock drop intervals shorter or longer (bcc
	// offcputime -m and -M); MaxBlock 0 means no limit. Intervals of
	// less than a microsecond are always dropped, as bcc's default -m 1
	// does.
	MinBlock, MaxBlock time.Duration
	// ClipOpen counts the intervals still open at the capture's end up
	// to its last sample instead of leaving them out. (An interval open
	// at the capture's start cannot be counted: its stack is unknown.)
	ClipOpen bool
	// Wakers appends the waker's stack (from sched_waking or
	// sched_wakeup samples) in bcc offwaketime's layout:
	// "...;--;waker frames leaf first;waker comm". Implies OffCPU.
	Wakers bool
	// HotCold writes the on-CPU samples (cpu-clock, in microseconds) and
	// the off-CPU time of one capture together; the frames of off-CPU
	// stacks, below the root, end in OffCPUMark.
	HotCold bool

	// Addresses gives each timed record of a perf.data sample the
	// addresses its stack was folded from (folded.Record.Addrs), for the
	// pprof and OTLP outputs that keep them (RunRecords only: text has
	// none). The input gives them (Sink.AddChainAddrs).
	Addresses bool
}

// OffCPUMark ends every frame (but the root) of an off-CPU stack in
// --hot-cold output. It is the annotation flamegraph.pl's java palette
// draws aqua (flamegraph --colors java), so that off-CPU towers stand out
// in cold colours beside the warm on-CPU ones; flamegraph shows the names
// without it.
const OffCPUMark = "_[i]"

// UnitMicroseconds is the "unit" metadata value of off-CPU and hot/cold
// output: counts are microseconds (and weights are meant to be summed,
// not counted).
const UnitMicroseconds = "us"

// offCPU reports whether the off-CPU state machine runs.
func (o *Options) offCPU() bool { return o.OffCPU || o.HotCold || o.Wakers }

// stateSet is a set of task state letters.
type stateSet uint64

// stateBit returns the bit of a state letter, 0 for anything else.
func stateBit(c byte) stateSet {
	switch {
	case c >= 'A' && c <= 'Z':
		return 1 << (c - 'A')
	case c >= 'a' && c <= 'z':
		return 1 << (26 + c - 'a')
	}
	return 0
}

const allStates = ^stateSet(0)

// parseStates reads Options.States.
func parseStates(s string) (stateSet, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "":
		return stateBit('S') | stateBit('D'), nil
	case "all":
		return allStates, nil
	}
	var set stateSet
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == ',' || c == ' ' {
			continue
		}
		b := stateBit(c)
		if b == 0 {
			return 0, fmt.Errorf("--states %q: want state letters such as S, D, I, R (or all), not %q", s, c)
		}
		set |= b
	}
	if set == 0 {
		return 0, fmt.Errorf("--states %q names no state", s)
	}
	return set, nil
}

// states returns the letters of a prev_state value ("S", "D|K", "R+") as
// a set: the first letter of each '|'-separated part.
func statesOf(v []byte) stateSet {
	var set stateSet
	first := true
	for _, c := range v {
		switch {
		case c == '|':
			first = true
		case first:
			set |= stateBit(c)
			first = false
		}
	}
	return set
}

// OptionsError is the error of options that contradict each other.
type OptionsError struct{ Err error }

func (e *OptionsError) Error() string { return e.Err.Error() }
func (e *OptionsError) Unwrap() error { return e.Err }

// check reports contradictory options, as an *OptionsError.
func (o *Options) check() error {
	if err := o.check1(); err != nil {
		return &OptionsError{err}
	}
	return nil
}

func (o *Options) check1() error {
	if o.Weight != "" && o.offCPU() {
		return errors.New("--weight cannot be combined with --off-cpu, --wakers or --hot-cold, whose weights are times")
	}
	if o.EventFilter != "" && o.offCPU() && !o.HotCold {
		return errors.New("--off-cpu reads the scheduler's events (sched:sched_switch...): --event-filter has no use there (with --hot-cold it picks the on-CPU event)")
	}
	if o.MinBlock < 0 || o.MaxBlock < 0 {
		return errors.New("--min-block and --max-block must not be negative")
	}
	if o.MaxBlock > 0 && o.MaxBlock < o.MinBlock {
		return fmt.Errorf("--max-block %v is below --min-block %v", o.MaxBlock, o.MinBlock)
	}
	if o.Weight != "" && !validField(o.Weight) {
		return fmt.Errorf("--weight %q: want a payload field name such as size, bytes_alloc or nr_sector", o.Weight)
	}
	_, err := parseStates(o.States)
	return err
}

func validField(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isWord(s[i]) {
			return false
		}
	}
	return s != ""
}

// matchEvent reports whether the event filter names the event: the same
// name, or a run of its parts between ':' and '/' ("sched_switch" for
// "sched:sched_switch", "cpu-clock" for "cpu-clock:pppH" and for
// "cpu-clock/freq=99/").
func matchEvent(filter, name []byte) bool {
	if string(filter) == string(name) {
		return true
	}
	boundary := func(c byte) bool { return c == ':' || c == '/' }
	for i := 0; i+len(filter) <= len(name); i++ {
		if (i == 0 || boundary(name[i-1])) && string(name[i:i+len(filter)]) == string(filter) {
			if end := i + len(filter); end == len(name) || boundary(name[end]) {
				return true
			}
		}
	}
	return false
}
