package collapse

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"flamekit/pkg/folded"
	"flamekit/pkg/perf/sample"
)

// Summary is what a Driver run read and wrote.
type Summary struct {
	Samples int64   // lines written (or samples and intervals summed)
	Weight  float64 // sum of their counts, in the output's unit
	Timed   bool    // timed output was written
	// Unit is the unit of the counts: "us" for off-CPU and hot/cold
	// output, "" for perf's periods (or payload values).
	Unit string
	// Kept names the events whose samples were kept.
	Kept []string
	// NoWeight counts the samples left out because they lack the
	// Options.Weight field.
	NoWeight int64
	// OffCPU is what the off-CPU stage did (Options.OffCPU).
	OffCPU OffCPUStats
}

// stage is the collapse stage of one Driver run: the decisions taken from
// the first samples, the stages that need input order, and the output.
type stage struct {
	// warnf prints a message on standard error (may be nil).
	warnf func(format string, args ...any)

	w      io.Writer
	out    output // where timed output goes: text (Run) or records (RunRecords)
	opt    Options
	inl    *inliner
	offCPU bool // the off-CPU state machine runs

	// Reader side (prescan).
	d        decisions
	timedSet bool

	// Merge side.
	in        *input
	samples   int64
	weight    int64 // in base units: periods, payload values, or ns
	events    eventCounts
	noWeight  int64
	sym       symCounts
	symDone   bool
	sums      *sharedSums // classic sums of the workers
	keys      *keySums    // the same, of samples given as frame numbers
	stacks    *aggregator // stacks of off-CPU intervals, interned
	agg       *aggregator // classic sums of off-CPU intervals (ns)
	offStats  OffCPUStats
	hadWake   bool
	buf       []byte
	err       error
	closeErrs []error
}

// input is the merge side's view of one input.
type input struct {
	capture *sample.Capture
	source  string
	started bool        // the opening metadata line was written
	span    folded.Span // of the timed lines written
	all     folded.Span // of every sample with a time
	header  folded.Span // the capture's first and last sample, from its header
	ends    folded.Span // header if known, else all
	samples int64
	off     *offCPU
}

// newStage returns a stage writing to w with the options opt, or an error
// when the options contradict each other.
func newStage(w io.Writer, opt Options) (*stage, error) {
	if err := opt.check(); err != nil {
		return nil, err
	}
	if opt.Wakers {
		opt.OffCPU = true
	}
	st := &stage{w: w, out: &textOutput{}, opt: opt, offCPU: opt.offCPU(), sums: newSharedSums(), keys: newKeySums(newPieceTable(), opt.NoIdle), stacks: newAggregator(), agg: newAggregator()}
	if st.offCPU && !opt.HotCold {
		st.d.filterKnown = true // no filter: the scheduler's events are read
	}
	if opt.Inline {
		st.inl = newInliner(opt.Context, st.warn)
	}
	return st, nil
}

func (st *stage) warn(format string, args ...any) {
	if st.warnf != nil {
		st.warnf(format, args...)
	}
}

// newWorker returns a new worker of the stage, for one goroutine.
func (st *stage) newWorker() *worker {
	return &worker{st: st, fold: folder{opt: &st.opt, inl: st.inl, table: st.keys.pieces}}
}

// prescan shows the stage a sample, in input order, before the batch that
// will hold it is made (see Prescan).
func (st *stage) prescan(s *sample.Sample) {
	d := &st.d
	if !st.timedSet {
		st.timedSet = true
		d.timed = s.HasTime && !st.opt.NoTime
		d.gen++
	}
	if !d.filterKnown && st.setsFilter(s) {
		d.filter, d.filterKnown = append([]byte(nil), s.Event...), true
		d.gen++
	}
}

// decides reports whether prescan(s) would change the decisions taken so
// far. The driver ends a chunk before such a sample (unless it is the
// chunk's first), so that every chunk folds its samples under the
// decisions of its first: the output does not then depend on where the
// input was cut.
func (st *stage) decides(s *sample.Sample) bool {
	d := &st.d
	if !st.timedSet {
		return true
	}
	return !d.filterKnown && st.setsFilter(s)
}

// setsFilter reports whether s is the sample that decides the event kept.
func (st *stage) setsFilter(s *sample.Sample) bool {
	if s.Event == nil || st.offCPU && offCPUKind(s.Event) != kindDrop {
		return false
	}
	want := st.opt.EventFilter
	return want == "" || matchEvent([]byte(want), s.Event)
}

// prescanWanted reports whether prescan still wants samples: until the
// output kind and the event kept are known.
func (st *stage) prescanWanted() bool {
	return !st.timedSet || !st.d.filterKnown
}

// kindOf returns what to do with the samples of ev under decisions d.
func (st *stage) kindOf(d *decisions, ev []byte) kind {
	if st.offCPU {
		if k := offCPUKind(ev); k != kindDrop {
			if k == kindWake && !st.opt.Wakers {
				return kindDrop
			}
			return k
		}
		if !st.opt.HotCold {
			return kindDrop
		}
	}
	switch {
	case ev == nil:
		return kindPlain // a sample without an event is kept, as by Perl
	case !d.filterKnown:
		return kindDrop // no sample of the --event-filter event yet
	case bytes.Equal(ev, d.filter):
		return kindPlain
	}
	return kindDrop
}

// begin starts a new input on the merge side: the capture's facts (may
// be nil) and the input's name for the "source" metadata ("" for standard
// input). Batches merged until end belong to it.
func (st *stage) begin(c *sample.Capture, source string) {
	if st.in != nil {
		st.end()
	}
	if c == nil {
		c = &sample.Capture{}
	}
	in := &input{capture: c, source: source}
	if dwarfCmdline(c.Cmdline) {
		st.sym.dwarf = true
	}
	first, err1 := folded.ParseTime([]byte(c.First))
	last, err2 := folded.ParseTime([]byte(c.Last))
	if err1 == nil && err2 == nil && first <= last {
		in.header = folded.Span{First: first, Last: last, OK: true}
		in.ends = in.header
	}
	if st.offCPU {
		in.off = newOffCPU(st)
	}
	st.in = in
}

// event is the "event" metadata value: the event kept, or the off-CPU
// events read.
func (st *stage) event(d *decisions, src int) string {
	if !st.offCPU {
		return string(d.filter)
	}
	var evs []string
	if st.opt.HotCold && d.filterKnown {
		evs = append(evs, string(d.filter))
	}
	if src >= 0 {
		evs = append(evs, sourceNames[src])
	}
	if st.opt.Wakers && st.hadWake {
		evs = append(evs, st.wakeEvents()...)
	}
	return strings.Join(evs, ",")
}

// wakeEvents names the wakeup events seen.
func (st *stage) wakeEvents() []string {
	var evs []string
	for _, c := range st.events {
		if offCPUKind([]byte(c.name)) == kindWake && c.kept {
			evs = append(evs, c.name)
		}
	}
	return evs
}

// meta returns the opening metadata line of the current input.
func (st *stage) meta(event string) *folded.Meta {
	in := st.in
	m := in.capture.Meta(event, in.source)
	if st.opt.RefWall != "" {
		m.Set(folded.KeyRefWall, st.opt.RefWall)
		m.Set(folded.KeyRefPerf, st.opt.RefPerf)
	}
	st.unitMeta(m)
	return m
}

// unitMeta sets the keys that say what the counts are.
func (st *stage) unitMeta(m *folded.Meta) {
	switch {
	case st.opt.HotCold:
		m.Set(folded.KeyWeight, "hot-cold")
		m.Set(folded.KeyUnit, UnitMicroseconds)
	case st.offCPU:
		m.Set(folded.KeyWeight, "off-cpu")
		m.Set(folded.KeyUnit, UnitMicroseconds)
	case st.opt.Weight != "":
		m.Set(folded.KeyWeight, st.opt.Weight)
	}
}

// merge takes a batch, in input order: it writes its lines, or runs its
// items through the off-CPU state machine.
func (st *stage) merge(b *batch) error {
	if st.in == nil {
		st.begin(nil, "")
	}
	in := st.in
	in.all.Merge(b.all)
	if !in.header.OK {
		in.ends = in.all
	}
	st.events.merge(b.events)
	st.noWeight += b.noWeight
	st.sym.merge(&b.sym)
	if in.off != nil {
		for i := range b.items {
			if b.items[i].kind == kindWake {
				st.hadWake = true
			}
			in.off.item(b, &b.items[i])
		}
		return st.err
	}
	if b.d.timed && !in.started {
		in.started = true
		st.out.meta(st, st.meta(st.event(&b.d, -1)))
	}
	st.out.batch(st, b)
	st.samples += b.samples
	st.weight = addSat(st.weight, b.weight)
	in.samples += b.samples
	in.span.Merge(b.span)
	return st.err
}

// end ends the current input: it writes the closing metadata line of timed
// output, and the off-CPU output of the input.
func (st *stage) end() error {
	in := st.in
	if in == nil {
		return st.err
	}
	if in.off != nil {
		st.endOffCPU()
	} else if in.started {
		m := &folded.Meta{}
		m.Set(folded.KeyEvent, st.event(&st.d, -1))
		in.span.SetMeta(m)
		m.Set(folded.KeySamples, strconv.FormatInt(in.samples, 10))
		m.Set(folded.KeySource, in.source)
		st.unitMeta(m)
		st.out.meta(st, m)
	}
	st.checkSymbols()
	st.in = nil
	return st.err
}

// close writes the classic output (when the output is not timed), reports
// on standard error what deserves it, and returns what the stage read and
// wrote. It returns the first write error, or an error when the options
// cannot be met by the input (an --event-filter that names several
// events, --off-cpu on input without scheduler events).
func (st *stage) close() (Summary, error) {
	if st.in != nil {
		st.end()
	}
	div := int64(1)
	sum := Summary{Samples: st.samples, Timed: st.d.timed, NoWeight: st.noWeight, Kept: st.events.keptNames(), OffCPU: st.offStats}
	if st.offCPU {
		div = 1000
		sum.Unit = UnitMicroseconds
	}
	sum.Weight = float64(st.weight) / float64(div)
	if st.err == nil && !st.d.timed {
		st.err = st.writeClassic(div)
	}
	st.report(&sum)
	if st.err != nil {
		return sum, st.err
	}
	return sum, errors.Join(st.closeErrs...)
}

// writeClassic writes the classic sums, sorted, their counts divided by
// div.
func (st *stage) writeClassic(div int64) error {
	st.agg.sort()
	var lists []sumList
	for _, a := range append(st.sums.aggregators(), st.agg) {
		if len(a.stacks) > 0 { // the keys alone are written on every core
			lists = append(lists, &aggList{a: a})
		}
	}
	keys := st.keys.ordered()
	if len(lists) == 0 {
		return keys.writeTo(st.w, div)
	}
	return writeLists(st.w, append(lists, keys), div)
}

func (st *stage) write(b []byte) {
	if st.err != nil || len(b) == 0 {
		return
	}
	if _, err := st.w.Write(b); err != nil {
		st.err = err
	}
}

// intern returns the number of a stack of off-CPU output.
func (st *stage) intern(stack []byte) int32 {
	return st.stacks.find(stack, hashStack(stack))
}

// joinWaker returns an interned stack followed by a waker part, in bcc
// offwaketime's layout: "stack;--;waker frames;waker comm".
func (st *stage) joinWaker(stack int32, waker []byte) []byte {
	out := append([]byte(nil), st.stacks.stacks[stack]...)
	out = append(out, ";--;"...)
	return append(out, waker...)
}

// piece is one timed line of off-CPU output.
type piece struct {
	stack   int32
	hasTime bool
	t       folded.Time
	ns      int64
	where   where
}

// endOffCPU writes (or sums) the off-CPU output of the current input.
func (st *stage) endOffCPU() {
	in := st.in
	src, ivs := in.off.finish()
	stats := in.off.stats[src]
	if !in.off.had[src] {
		stats = OffCPUStats{}
	}
	st.offStats.add(&stats)
	all := append(slices.Clip(in.off.onCPU), ivs...)
	if !st.d.timed {
		for _, iv := range all {
			stack := st.stacks.stackBytes(iv.stack)
			st.agg.add(stack, hashStack(stack), iv.ns)
			st.samples++
			st.weight = addSat(st.weight, iv.ns)
		}
		return
	}
	var pieces []piece
	for _, iv := range all {
		pieces = splitSeconds(pieces, iv)
	}
	slices.SortStableFunc(pieces, func(a, b piece) int {
		switch {
		case a.hasTime != b.hasTime:
			if a.hasTime {
				return -1
			}
			return 1
		case a.t < b.t:
			return -1
		case a.t > b.t:
			return 1
		}
		return 0
	})
	event := ""
	if in.off.had[src] || st.opt.HotCold {
		s := src
		if !in.off.had[src] {
			s = -1
		}
		event = st.event(&st.d, s)
	}
	st.out.meta(st, st.meta(event))
	for i := range pieces {
		p := &pieces[i]
		st.out.piece(st, st.stacks.stackBytes(p.stack), p)
		if p.hasTime {
			in.span.Add(p.t)
		}
		st.samples++
		in.samples++
		st.weight = addSat(st.weight, p.ns)
	}
	m := &folded.Meta{}
	m.Set(folded.KeyEvent, event)
	in.span.SetMeta(m)
	m.Set(folded.KeySamples, strconv.FormatInt(in.samples, 10))
	m.Set(folded.KeySource, in.source)
	st.unitMeta(m)
	st.out.meta(st, m)
}

// splitSeconds appends the timed lines of an interval: one per whole
// second of perf's clock it overlaps, so that time windows and the heat
// map's columns get exactly the time that fell in them. The last piece is
// stamped with the interval's end (the switch-in), the others with the
// last microsecond of their second.
func splitSeconds(dst []piece, iv interval) []piece {
	if !iv.hasTime || iv.t1 <= iv.t0 {
		return append(dst, piece{stack: iv.stack, hasTime: iv.hasTime, t: iv.t1, ns: iv.ns, where: iv.where})
	}
	const sec = folded.Time(1e9)
	for a := iv.t0; a < iv.t1; {
		next := (a/sec + 1) * sec
		if a < 0 && a%sec != 0 {
			next = a / sec * sec
		}
		b := min(iv.t1, next)
		stamp := b
		if b < iv.t1 {
			stamp = max(a, b-1000)
		}
		dst = append(dst, piece{stack: iv.stack, hasTime: true, t: stamp, ns: int64(b - a), where: iv.where})
		a = b
	}
	return dst
}

// checkSymbols warns, once, when many frames have no symbol.
func (st *stage) checkSymbols() {
	if st.symDone {
		return
	}
	msgs := st.sym.messages()
	if len(msgs) == 0 {
		return
	}
	st.symDone = true
	for _, m := range msgs {
		st.warn("%s", m)
	}
}

// report prints what the run deserves to be told.
func (st *stage) report(sum *Summary) {
	if !st.symDone {
		st.checkSymbols()
	}
	opt := &st.opt
	evs := st.events
	if st.offCPU {
		st.reportOffCPU(sum)
		return
	}
	kept := evs.keptNames()
	switch want := opt.EventFilter; {
	case want != "" && len(kept) == 0 && len(evs) > 0:
		st.warn("no samples of event %q: the input holds %s", want, evs.describe())
	case want != "":
		for _, c := range evs {
			if !c.kept && matchEvent([]byte(want), []byte(c.name)) {
				st.closeErrs = append(st.closeErrs, fmt.Errorf("--event-filter %q matches several events: %s; give the whole name of one", want, evs.describe()))
				break
			}
		}
	case len(evs) > 1:
		st.warn("the input holds %d events: %s; pick another with --event-filter NAME", len(evs), evs.describe())
	}
	if slices.Contains(kept, evSwitch) {
		st.warn("the samples are sched:sched_switch events: each line counts one context switch, not time; for the time threads spent off CPU use --off-cpu")
	}
	if st.noWeight > 0 {
		st.warn("left out %s samples without a numeric payload field %q (--weight)", thousands(st.noWeight), opt.Weight)
	}
}

// reportOffCPU tells what the off-CPU stage could not count.
func (st *stage) reportOffCPU(sum *Summary) {
	s := &sum.OffCPU
	if s.Source == "" && len(st.events) > 0 {
		st.closeErrs = append(st.closeErrs, fmt.Errorf("--off-cpu needs sched:sched_switch samples (or sched_stat_*, or perf's offcpu-time), "+
			"and the input holds %s: record with perf record -e sched:sched_switch -a -g", st.events.describe()))
		return
	}
	if s.OpenAtEnd > 0 && !st.opt.ClipOpen {
		st.warn("off-CPU: %s intervals from %s; left out %s still open at the capture's end (--clip-open counts them up to its last sample) "+
			"and %s that began before it (their stack is unknown)",
			thousands(s.Intervals), s.Source, thousands(s.OpenAtEnd), thousands(s.OpenAtStart))
	}
	if s.Lost > 0 {
		st.warn("off-CPU: %s switch-outs came while the thread was already off CPU: their switch-in was not recorded (perf lost events?), and those intervals were left out", thousands(s.Lost))
	}
	if s.Untimed > 0 {
		st.warn("off-CPU: %s offcpu-time samples carry perf's end-of-run time, not theirs: written without a time (timeslice and the heat map leave them out)", thousands(s.Untimed))
	}
	if st.opt.Wakers && !st.hadWake {
		st.warn("--wakers: the input has no sched:sched_waking or sched:sched_wakeup samples: record them too (perf record -e sched:sched_switch -e sched:sched_waking -a -g)")
	}
	if st.opt.HotCold {
		on := string(st.d.filter)
		if !st.d.filterKnown {
			st.warn("--hot-cold: the input has no on-CPU samples: record them too (perf record -e cpu-clock/freq=99/ -e sched:sched_switch -a -g)")
		} else if !strings.Contains(on, "cpu-clock") && !strings.Contains(on, "task-clock") {
			st.warn("--hot-cold: the periods of %s are not times (want cpu-clock or task-clock): its samples are counted as nanoseconds anyway", on)
		}
	}
}
