package collapse

import (
	"slices"
	"time"

	"flamekit/pkg/folded"
)

// OffCPUStats is what the off-CPU stage made of one run.
type OffCPUStats struct {
	// Source is the event the intervals came from: sched:sched_switch
	// (switch-out to switch-in), a sched_stat event (switch-out to
	// wakeup, as FlameGraph's stackcollapse-perf-sched.awk measures) or
	// offcpu-time (perf record --off-cpu).
	Source    string
	Intervals int64 // intervals written (before cutting at whole seconds)
	// OpenAtEnd counts the intervals still open when the capture ended
	// (a switch-out without a switch-in): left out, or counted up to the
	// capture's last sample with Options.ClipOpen.
	OpenAtEnd int64
	// OpenAtStart counts the first switch-ins of threads never seen
	// switching out: off CPU since before the capture, or new threads.
	// Their stack and state are unknown: they are never counted.
	OpenAtStart int64
	Short, Long int64 // dropped by MinBlock (or under 1 us) and MaxBlock
	// Lost counts switch-outs of a thread whose interval was still open:
	// its switch-in was not recorded (perf lost events).
	Lost int64
	// WithWaker and NoWaker count the intervals with and without a
	// waker stack (Options.Wakers).
	WithWaker, NoWaker int64
	// Untimed counts offcpu-time samples without a usable time (perf
	// writes most of them at the end of the run with a dummy time of
	// about 18446744069 s): they are written as classic lines.
	Untimed int64
}

func (s *OffCPUStats) add(o *OffCPUStats) {
	if s.Source == "" {
		s.Source = o.Source
	}
	s.Intervals += o.Intervals
	s.OpenAtEnd += o.OpenAtEnd
	s.OpenAtStart += o.OpenAtStart
	s.Short += o.Short
	s.Long += o.Long
	s.Lost += o.Lost
	s.WithWaker += o.WithWaker
	s.NoWaker += o.NoWaker
	s.Untimed += o.Untimed
}

// The sources of off-CPU intervals, in the order of preference when an
// input has several.
const (
	srcOffCPUTime = iota
	srcStat
	srcSwitch
	nSources
)

var sourceNames = [nSources]string{evOffCPUTime, "sched:sched_stat_*", evSwitch}

// interval is an off-CPU interval, or with --hot-cold an on-CPU sample
// (t0 == t1, ns its period).
type interval struct {
	stack   int32
	hasTime bool
	t0, t1  folded.Time
	ns      int64
	where   where // the thread's fields: see item.where
}

// openInterval is a thread off CPU since t0.
type openInterval struct {
	t0    folded.Time
	stack int32
	waker int32 // -1 until a wakeup names the waker
	where where // the thread switched out, and the CPU it left
}

// switchOut is a thread's last switch-out, for sched_stat.
type switchOut struct {
	stack int32
	where where
}

// offCPU is the off-CPU state machine of one input. Items arrive in input
// order (stage.merge); intervals are kept per source, and End writes those
// of the best source the input had.
type offCPU struct {
	st       *stage
	states   stateSet
	min, max folded.Time
	open     map[int64]*openInterval
	seen     map[int64]bool      // tids met in a switch
	stored   map[int64]switchOut // sched_stat: the last switch-out
	ivs      [nSources][]interval
	onCPU    []interval // --hot-cold
	stats    [nSources]OffCPUStats
	had      [nSources]bool
}

func newOffCPU(st *stage) *offCPU {
	states, _ := parseStates(st.opt.States) // checked by New
	o := &offCPU{st: st, states: states, open: map[int64]*openInterval{}, seen: map[int64]bool{}, stored: map[int64]switchOut{}}
	o.min = folded.Time(max(st.opt.MinBlock, time.Microsecond))
	o.max = folded.Time(st.opt.MaxBlock)
	for i := range o.stats {
		o.stats[i].Source = sourceNames[i]
	}
	return o
}

// dead reports whether a prev_state says the task exited: it never comes
// back, so no interval opens.
func dead(s stateSet) bool { return s&(stateBit('X')|stateBit('Z')) != 0 }

// item runs one item of a batch through the state machine.
func (o *offCPU) item(b *batch, it *item) {
	st := o.st
	switch it.kind {
	case kindPlain:
		o.onCPU = append(o.onCPU, interval{stack: st.intern(b.bytesAt(it.stack)), hasTime: it.hasTime, t0: it.time, t1: it.time, ns: it.weight, where: it.where})
	case kindOffCPUTime:
		o.had[srcOffCPUTime] = true
		iv := interval{stack: st.intern(b.bytesAt(it.stack)), ns: it.weight, where: it.where}
		if it.hasTime {
			iv.hasTime, iv.t0, iv.t1 = true, it.time-folded.Time(it.weight), it.time
		} else {
			o.stats[srcOffCPUTime].Untimed++
		}
		o.keep(srcOffCPUTime, iv, false)
	case kindSwitch:
		o.had[srcSwitch] = true
		stats := &o.stats[srcSwitch]
		if it.pid != 0 {
			o.seen[it.pid] = true
			stack := st.intern(b.bytesAt(it.stack))
			o.stored[it.pid] = switchOut{stack: stack, where: it.where}
			if _, ok := o.open[it.pid]; ok {
				stats.Lost++
				delete(o.open, it.pid)
			}
			if it.state&o.states != 0 && !dead(it.state) {
				o.open[it.pid] = &openInterval{t0: it.time, stack: stack, waker: -1, where: it.where}
			}
		}
		if it.next != 0 {
			if iv, ok := o.open[it.next]; ok {
				delete(o.open, it.next)
				o.close(iv, it.time)
			} else if !o.seen[it.next] {
				// Off CPU since before the capture, or a new thread's
				// first run: no stack, no state, never counted.
				stats.OpenAtStart++
			}
			o.seen[it.next] = true
		}
	case kindWake:
		if iv, ok := o.open[it.pid]; ok && iv.waker < 0 {
			iv.waker = st.intern(b.bytesAt(it.stack))
		}
	case kindStat:
		o.had[srcStat] = true
		out, ok := o.stored[it.pid]
		stack := out.stack
		if !ok || it.state&o.states == 0 {
			return
		}
		delete(o.stored, it.pid) // the first event of a sleep only, as the awk script
		if st.opt.Wakers {
			stack = st.intern(st.joinWaker(stack, b.bytesAt(it.extra)))
		}
		o.keep(srcStat, interval{stack: stack, hasTime: true, t0: it.time - folded.Time(it.weight), t1: it.time, ns: it.weight, where: out.where}, false)
	}
}

// close ends an interval of the switch source at t.
func (o *offCPU) close(iv *openInterval, t folded.Time) {
	stack := iv.stack
	if o.st.opt.Wakers {
		if iv.waker >= 0 {
			o.stats[srcSwitch].WithWaker++
			stack = o.st.intern(o.st.joinWaker(stack, []byte(o.st.stacks.stacks[iv.waker])))
		} else {
			o.stats[srcSwitch].NoWaker++
		}
	}
	o.keep(srcSwitch, interval{stack: stack, hasTime: true, t0: iv.t0, t1: t, ns: int64(t - iv.t0), where: iv.where}, false)
}

// keep applies --min-block and --max-block and keeps an interval. Clipped
// intervals (open at an end) are kept whatever their length.
func (o *offCPU) keep(src int, iv interval, clipped bool) {
	stats := &o.stats[src]
	d := folded.Time(iv.ns)
	if !clipped {
		if d < o.min {
			stats.Short++
			return
		}
		if o.max > 0 && d > o.max {
			stats.Long++
			return
		}
	}
	stats.Intervals++
	o.ivs[src] = append(o.ivs[src], iv)
}

// finish closes the input: intervals still open are dropped, or clipped to
// the capture's last sample. It returns the source used and its intervals.
func (o *offCPU) finish() (int, []interval) {
	ends := o.st.in.ends
	stats := &o.stats[srcSwitch]
	tids := make([]int64, 0, len(o.open))
	for tid := range o.open {
		tids = append(tids, tid)
	}
	slices.Sort(tids) // the output must not depend on map order
	for _, tid := range tids {
		iv := o.open[tid]
		stats.OpenAtEnd++
		if o.st.opt.ClipOpen && ends.OK && ends.Last > iv.t0 {
			o.keep(srcSwitch, interval{stack: iv.stack, hasTime: true, t0: iv.t0, t1: ends.Last, ns: int64(ends.Last - iv.t0), where: iv.where}, true)
		}
	}
	for src := range nSources {
		if o.had[src] {
			return src, o.ivs[src]
		}
	}
	return srcSwitch, nil
}
