package collapse

import (
	"bytes"
	"strconv"

	"flamekit/internal/base/hugepage"
	"flamekit/pkg/filter/idle"
	"flamekit/pkg/folded"
	"flamekit/pkg/perf/sample"
)

// decisions are what the stage decided from the first samples of the
// input (see Prescan). A batch carries a copy, so that a worker folds
// with the decisions of its place in the input.
type decisions struct {
	gen   uint32 // changes whenever the decisions do
	timed bool   // timed output (the first sample had a time)
	// filter is the name of the event kept (the on-CPU event with
	// --hot-cold), known once a sample of it was seen; nil with --off-cpu.
	filter      []byte
	filterKnown bool
}

// item is a sample the ordered part of the stage needs (off-CPU input),
// reduced to what it needs. Its stacks are offsets into batch.arena.
type item struct {
	kind    kind
	state   stateSet // kindSwitch: prev_state
	hasTime bool
	time    folded.Time
	pid     int64 // kindSwitch: prev_pid; kindWake, kindStat: the woken pid
	next    int64 // kindSwitch: next_pid
	weight  int64 // kindStat: delay; kindOffCPUTime, kindPlain: period (ns)
	stack   [2]int32
	extra   [2]int32 // kindStat: the waker part
	where   where    // the fields of its timed lines (see where)
}

// lineRoom is the room a worker makes in a batch's out before it folds a
// timed line there: lines are rarely longer.
const lineRoom = 4 << 10

// batch is what a worker made of one chunk, on its way to stage.merge.
type batch struct {
	d        decisions
	out      []byte // timed lines, in input order
	samples  int64  // samples written
	weight   int64  // sum of their weights
	span     folded.Span
	all      folded.Span // of every sample with a time: the capture's ends
	events   eventCounts
	noWeight int64      // samples without the --weight field
	huge     int64      // samples whose weight is beyond folded.MaxCount
	items    []item     // off-CPU input, in input order
	recs     []outRec   // RunRecords: the timed lines, their bytes in out
	addrs    batchAddrs // Options.Addresses: the addresses of recs (addrs.go)
	arena    []byte
	sym      symCounts
}

// reset empties b for reuse with decisions d.
func (b *batch) reset(d decisions) {
	*b = batch{d: d, out: b.out[:0], items: b.items[:0], arena: b.arena[:0], events: b.events[:0], recs: b.recs[:0], addrs: b.addrs.reset()}
}

// addBytes appends p to the arena and returns its offsets.
func (b *batch) addBytes(p []byte) [2]int32 {
	start := len(b.arena)
	b.arena = append(b.arena, p...)
	return [2]int32{int32(start), int32(len(b.arena))}
}

func (b *batch) bytesAt(o [2]int32) []byte { return b.arena[o[0]:o[1]] }

// worker applies the rules that need nothing but the sample itself: the
// naming rules, the event filter, weights and the idle filter. Each
// goroutine that folds samples owns one (stage.newWorker); the classic
// sums of all workers go to one table, sharded by stack (see sharedSums).
type worker struct {
	st    *stage
	fold  folder
	idle  idle.Filter
	id    int // the worker's number (Sink.Worker)
	stack []byte
	text  []byte // a payload field's word, or a payload, printed
	input int    // the input of the chunk being folded, plus one
	// chain and fs, when fs is set, are the frames of the sample being
	// folded, by number (Sink.AddChain); its Frames are then empty.
	chain []uint32
	fs    Frames
	// key is chainKey's buffer; roots numbers the root frames met
	// (pieceTable), by text.
	key   []uint32
	roots map[string]uint32
	// sums combines the classic sums before they go to the shared ones
	// (flushed when the worker ends).
	sums sumCache
	// keyc combines the classic sums by key before they go to the
	// shared ones (flushed when the worker ends).
	keyc keyCache
	// ends formats the end of its timed lines (direct).
	ends lineEnds
	// addrs are the addresses of the frames of the sample being folded
	// (Sink.AddChainAddrs), or nil.
	addrs *folded.Addrs

	// The kind of the last event seen, under the decisions of
	// generation lastGen (cached: captures hold few events).
	lastGen   uint32
	lastSet   bool
	lastEvent []byte
	lastKind  kind
}

// startInput tells the worker that the next chunk is of input i, whose
// frame numbers (Sink.AddChain) memo is shared by the workers: frame ids
// (sample.Frame.ID) and frame numbers are those of that input's reader.
func (w *worker) startInput(i int, memo *chainMemo) {
	if w.input != i+1 {
		w.input = i + 1
		w.fold.resetIDs()
		w.fold.chains = memo
	}
}

// kindOf returns what to do with the samples of ev under b's decisions.
func (w *worker) kindOf(b *batch, ev []byte) kind {
	if w.lastSet && w.lastGen == b.d.gen && bytes.Equal(ev, w.lastEvent) && (ev == nil) == (w.lastEvent == nil) {
		return w.lastKind
	}
	k := w.st.kindOf(&b.d, ev)
	w.lastSet, w.lastGen, w.lastKind = true, b.d.gen, k
	w.lastEvent = append(w.lastEvent[:0], ev...)
	if ev == nil {
		w.lastEvent = nil
	}
	return k
}

// foldSample applies the per-sample rules to s and adds the result to b.
func (w *worker) foldSample(b *batch, s *sample.Sample) {
	opt := &w.st.opt
	if s.HasTime && s.Time != 0 { // side-band records are stamped 0.000000
		b.all.Add(s.Time)
	}
	k := w.kindOf(b, s.Event)
	if k == kindDrop {
		b.events.add(s.Event, false)
		return
	}
	switch k {
	case kindPlain:
		weight := int64(1)
		switch {
		case opt.Weight != "":
			v, ok := w.fieldInt(s, opt.Weight)
			if !ok || v < 0 {
				b.noWeight++
				b.events.add(s.Event, false)
				return
			}
			weight = v
		case s.HasPeriod && s.Period != 0:
			weight = s.Period
		}
		if weight > folded.MaxCount || weight < 0 {
			// No reader accepts the line (perf's 2^64-1, a broken
			// counter): left out and counted, never wrapped nor rounded.
			b.huge++
			b.events.add(s.Event, false)
			return
		}
		if !b.d.timed && !w.st.offCPU && !opt.Inline && !opt.Srcline {
			// The classic sums go by key: numbers, not text.
			if w.fs != nil {
				w.sumChain(b, s, weight)
			} else {
				w.sumFrames(b, s, weight)
			}
			return
		}
		// A timed line's stack is folded in place, in b.out.
		direct := b.d.timed && !w.st.offCPU
		mark := len(b.out)
		var st []byte
		if direct {
			// Doubled, not grown by append's quarter: each step of
			// a buffer of hundreds of kB is fresh memory.
			b.out = hugepage.Grow(b.out, lineRoom)
			b.out = w.foldStackTo(b.out, s)
			st = b.out[mark:]
		} else {
			st = w.foldStack(s)
		}
		if opt.NoIdle && w.idle.Is(st) {
			b.out = b.out[:mark]
			b.events.add(s.Event, false)
			return
		}
		b.events.add(s.Event, true)
		if symSampled(s) {
			w.countSymbols(b, s)
		}
		if w.st.offCPU {
			b.items = append(b.items, item{kind: kindPlain, hasTime: s.HasTime, time: s.Time, weight: weight, stack: b.addBytes(st), where: whereOf(s)})
			return
		}
		b.samples++
		b.weight = addSat(b.weight, weight)
		if !b.d.timed {
			w.sums.add(w.st.sums, st, weight)
			return
		}
		// The stack is in b.out already (direct).
		w.st.out.sample(w, b, mark, weight, s)
		if s.HasTime && s.Time != 0 {
			b.span.Add(s.Time)
		}
	case kindSwitch:
		w.foldSwitch(b, s)
	case kindWake:
		pid, ok := w.fieldInt(s, "pid")
		if !ok || !s.HasTime {
			b.events.add(s.Event, false)
			return
		}
		b.events.add(s.Event, true)
		b.items = append(b.items, item{kind: kindWake, hasTime: true, time: s.Time, pid: pid, stack: b.addBytes(w.wakerPart(s))})
	case kindStat:
		pid, ok1 := w.fieldInt(s, "pid")
		delay, ok2 := w.fieldInt(s, "delay")
		if !ok1 || !ok2 || !s.HasTime || delay < 0 {
			b.events.add(s.Event, false)
			return
		}
		b.events.add(s.Event, true)
		it := item{kind: kindStat, hasTime: true, time: s.Time, pid: pid, weight: delay}
		switch string(s.Event) {
		case evStatSleep:
			it.state = stateBit('S')
		default:
			it.state = stateBit('D')
		}
		if opt.Wakers {
			it.extra = b.addBytes(w.wakerPart(s))
		}
		b.items = append(b.items, it)
	case kindOffCPUTime:
		b.events.add(s.Event, true)
		b.sym.count(s.Comm, s.Frames)
		st := w.offStack(s)
		b.items = append(b.items, item{kind: kindOffCPUTime, hasTime: s.HasTime, time: s.Time, weight: s.Period, stack: b.addBytes(st), where: offCPUTimeWhere(s)})
	}
}

// foldSwitch turns a sched_switch sample into an item: the switch-out of
// prev_pid, with its stack, and the switch-in of next_pid. The ids come
// from the payload, not the header: an exiting task is printed ":-1 -1/-1".
func (w *worker) foldSwitch(b *batch, s *sample.Sample) {
	prev, ok1 := w.fieldInt(s, "prev_pid")
	next, ok2 := w.fieldInt(s, "next_pid")
	var ok3 bool
	w.text, ok3 = s.Word(w.text[:0], "prev_state") // "S" of "S ==>", "R+"
	if !ok1 || !ok2 || !ok3 || !s.HasTime {
		b.events.add(s.Event, false)
		return
	}
	b.events.add(s.Event, true)
	it := item{kind: kindSwitch, hasTime: true, time: s.Time, pid: prev, next: next, state: statesOf(w.text), where: switchedOut(s, prev)}
	if prev != 0 {
		b.sym.count(s.Comm, s.Frames)
		it.stack = b.addBytes(w.offStack(s))
	}
	b.items = append(b.items, it)
}

// symSampled reports whether the symbol check counts the frames of s: every
// fourth microsecond of timed samples, every untimed sample. The choice
// depends on the sample alone, so the counts do not depend on how the
// input was cut, and a quarter of a large capture says as much about its
// symbols as all of it.
func symSampled(s *sample.Sample) bool {
	return !s.HasTime || s.Time/1000%4 == 0
}

// fieldInt returns the payload field name of s as an integer: its first
// word, decimal or hexadecimal with 0x ("delay=100078421 [ns]" gives
// 100078421). Payloads are printed by each event's own format: most say
// "name=value", system calls say "name: value,", and the block events
// print their fields by position (sample.BlockPosition). A sample read
// from a perf.data file has its tracepoint record instead of the text
// (sample.Trace): its fields are read from the record as the text would
// give them, without printing it.
func (w *worker) fieldInt(s *sample.Sample, name string) (int64, bool) {
	n, form, ok := s.Int(name)
	if form != 0 {
		return n, ok
	}
	if p, is := sample.BlockPosition(s.Event, name); is {
		return s.PositionInt(p)
	}
	return n, ok
}

// offStack folds an off-CPU sample's stack, with the --hot-cold mark.
func (w *worker) offStack(s *sample.Sample) []byte {
	st := w.fold.fold(w.stack[:0], s)
	w.stack = st
	if !w.st.opt.HotCold {
		return st
	}
	return markOffCPU(st)
}

// markOffCPU appends OffCPUMark to every frame but the root, in place.
func markOffCPU(stack []byte) []byte {
	i := bytes.IndexByte(stack, ';')
	if i < 0 {
		return stack
	}
	out := make([]byte, 0, len(stack)+8*len(OffCPUMark))
	out = append(out, stack[:i]...)
	for _, f := range bytes.Split(stack[i+1:], []byte{';'}) {
		out = append(out, ';')
		out = append(out, f...)
		if !bytes.HasSuffix(f, []byte(OffCPUMark)) {
			out = append(out, OffCPUMark...)
		}
	}
	return out
}

// wakerPart is the waker's side of an offwaketime stack: the waker's
// frames from the leaf to the outermost, then its root frame (comm).
func (w *worker) wakerPart(s *sample.Sample) []byte {
	st := w.fold.fold(w.stack[:0], s)
	w.stack = st
	out := make([]byte, 0, len(st))
	for end := len(st); end > 0; {
		i := bytes.LastIndexByte(st[:end], ';')
		out = append(out, st[i+1:end]...)
		if i < 0 {
			break
		}
		out = append(out, ';')
		end = i
	}
	return out
}

// srclineCount is Sink.SrclineCount.
func (w *worker) srclineCount(fr *sample.Frame) int {
	inlined := false
	if w.fold.opt.Inline && w.fold.inl != nil && inlineEligible(fr.DSO) {
		res := w.fold.inl.resolve(fr.Addr, fr.Symbol, fr.DSO)
		inlined = res != "" && res != "??" && res != "??:??:0"
	}
	return SrclineCount(fr, inlined)
}

// appendWhere appends the optional fields of a timed line that s carries
// (" cpu=1 pid=4242 tid=4243", see folded.AppendFields): the CPU, the
// process id where the reader knows it, and the tid perf printed. A tid
// that is not a decimal perf would print is left out rather than written
// as a field no reader accepts.
func appendWhere(dst []byte, s *sample.Sample) []byte {
	if s.CPU >= 0 {
		dst = append(dst, " cpu="...)
		dst = strconv.AppendInt(dst, int64(s.CPU), 10)
	}
	if s.HasProcessID {
		dst = append(dst, " pid="...)
		dst = strconv.AppendInt(dst, int64(s.ProcessID), 10)
	}
	if isID(s.TID) {
		dst = append(dst, " tid="...)
		dst = append(dst, s.TID...)
	}
	return dst
}

// isID reports whether b is a thread id as perf prints it: decimal digits,
// or -1, short enough for an int32.
func isID(b []byte) bool {
	if len(b) == 0 || len(b) > 10 {
		return false
	}
	if b[0] == '-' {
		return string(b) == "-1"
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return len(b) < 10 || string(b) <= "2147483647"
}
