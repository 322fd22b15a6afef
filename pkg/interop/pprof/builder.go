package pprof

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"flamekit/pkg/folded"
	"flamekit/pkg/interop/pprof/profile"
	"flamekit/pkg/timeline"
)

// LabelTimestamp is the number label that carries a sample's time in
// wall-clock nanoseconds (perf_data_converter's convention).
const LabelTimestamp = "timestamp_ns"

// The labels that carry a sample's CPU, process and thread (the cpu=,
// pid= and tid= fields of timed folded lines), as go tool pprof
// -tagfocus=cpu=3 and -tags show them: numeric labels with the unit "id"
// (pprof drops a numeric label of value 0 that has no unit). Reading, the
// same labels without a unit (perf_data_converter's pid and tid) and
// string labels of these names are taken too.
const (
	LabelCPU = "cpu"
	LabelPID = "pid"
	LabelTID = "tid"
)

// Options control how a Builder makes a profile.
type Options struct {
	// Weight is what the counts measure (the profile's last sample type).
	// Zero: inferred from the metadata by WeightFor.
	Weight Weight
	// Ref maps perf's clock to the wall clock. nil: from the metadata
	// (folded.RefFromMeta: exact with ref-wall/ref-perf or a realtime
	// clock, else estimated from captured-on read in Location).
	Ref *folded.WallRef
	// Location is the time zone perf's "captured on" is read in; nil means
	// time.Local (perf printed it in the local time of the machine that
	// ran perf script).
	Location *time.Location
	// From and To bound the profile's span on perf's clock (a timeslice
	// window, [From, To)); without them the span is that of the timed
	// samples (or, failing those, of the metadata).
	From, To       folded.Time
	HasFrom, HasTo bool
	// Aggregate drops the samples' times: one pprof sample per distinct
	// stack, no timestamp_ns labels. Memory then grows with the distinct
	// stacks only.
	Aggregate bool
	// Resolution rounds the samples' times down to a multiple of it on
	// the wall clock (from the Unix epoch: 1 s buckets are whole
	// seconds), and the timed samples of one stack in one such interval
	// become one pprof sample, their values summed, whose timestamp_ns is
	// the interval's start. go tool pprof -tagfocus=timestamp_ns=A:B
	// with A and B-1ns at whole multiples of it then selects exactly the
	// samples of [A, B). 0 keeps every sample's own time (one pprof
	// sample per distinct stack and time).
	Resolution time.Duration
	// Cut, with HasCut, is the wall clock's offset from perf's (wall ns
	// = perf ns + Cut) at which the samples are cut into Resolution
	// intervals as they are added: a timeline of one entry per interval,
	// stack, thread and CPU (package timeline), instead of one 32-byte
	// record per sample kept until Write knows the clock. The clock Write
	// finds must put the interval edges at the same times (Fits); the
	// caller that cannot know it before reading guesses, and reads again
	// with Offset when the guess was wrong. It needs a Resolution of at
	// least MinCut, whose cells fit in a timeline over any capture.
	Cut    int64
	HasCut bool
	// Mappings are the capture's mapped files with their build-ids
	// (perfdata.BuildIDs), written as the profile's mappings: without
	// Addresses no location points into them (folded frames are names),
	// but the profile names every file and build-id it has samples in,
	// as Go's own profiles do.
	Mappings []Mapping
	// Addresses keeps the address of every frame of the records that
	// carry them (folded.Record.Addrs): each location is then an
	// address in a mapping of its process (see Addresses); the records
	// without (Stats.NoAddresses) get a location per frame name.
	Addresses Addresses
}

// Mapping is one file a capture has samples in.
type Mapping struct {
	File                 string
	BuildID              string // GNU build-id, lowercase hexadecimal; "" if unknown
	Start, Limit, Offset uint64
	// HasFunctions says that its locations carry their names: go tool
	// pprof then does not look for the file to name them.
	HasFunctions bool
}

// MinCut is the finest Resolution that Options.HasCut takes: 2^31
// intervals of it span 24 days.
const MinCut = time.Millisecond

// Stats describes the profile a Builder made.
type Stats struct {
	Records int64   // records added
	Timed   int64   // of which timed
	Total   float64 // sum of the counts added
	Value   int64   // sum of the weight values in the profile
	Stacks  int     // distinct stacks
	Frames  int     // distinct frame names (Functions)
	Samples int64   // pprof samples written
	// NoAddresses counts the records added without the addresses
	// Options.Addresses asked for (folded text, perf script text,
	// off-CPU intervals): their frames are located by name.
	NoAddresses int64
	// Held counts the timed records held one by one (32 bytes each)
	// until Write knew the clock: 0 when they were summed as they came,
	// per interval on a timeline (Options.HasCut) or per stack
	// (Options.Aggregate).
	Held int64
	// Weight is the weight sample type, and WeightKnown whether it was
	// given or known from the event (false: a guess, see WeightFor).
	Weight      Weight
	WeightKnown bool
	// Clock says how perf's clock was mapped to the wall clock; Estimated
	// is set for an estimate from "captured on", NoWall when the wall clock
	// is unknown (times are then perf's clock, seconds since boot).
	Clock     string
	Estimated bool
	NoWall    bool
}

// ErrDiff is returned for differential records, which hold two profiles.
var ErrDiff = errors.New("differential folded line (stack before after): a pprof profile holds one set of values; convert each side separately")

// record is one timed record kept until the profile is written: 32
// bytes, whatever its stack.
type record struct {
	t     int64   // perf-clock ns; the wall-clock key once written
	count float64 // at most folded.MaxCount: an integer count is exact
	stack uint32
	seq   uint32 // order of arrival (wraps past 2^32: ties only)
	where uint32 // index of the sample's CPU and thread in Builder.wheres
}

// where is the CPU and thread a timed line carried (its cpu=, pid=, tid=
// fields), which the profile gives each sample as numeric labels.
type where struct {
	cpu, pid, tid int32
	has           folded.Has
}

// chunkSize is the number of records of a chunk: records are kept in
// fixed chunks, never copied to grow.
const chunkSize = 1 << 16

// Builder turns folded records into a pprof profile, written as it is
// encoded (Write): its memory is about 32 bytes per timed record kept,
// plus the distinct stacks and frame names, and what it writes grows with
// the distinct stacks and times (see Options.Resolution). The zero value
// is not usable: call NewBuilder.
type Builder struct {
	opts  Options
	metas []folded.Meta
	// stacks finds a stack's index by two independent 64-bit hashes of
	// its text: 16 bytes a stack, whatever its length, and nothing for
	// the garbage collector to scan. Two distinct stacks share both
	// hashes with a probability of about n²/2^129 (1e-26 for 2 million
	// stacks), far below that of a memory error.
	stacks map[[2]uint64]uint32
	seeds  [2]maphash.Seed
	// locs holds the location IDs of every stack, leaf first, as packed
	// varints (a Sample's location_id field): stack i's are
	// locs[locOff[i]:locOff[i+1]].
	locs   []byte
	locOff []int
	funcs  map[string]uint32 // frame name -> Function and Location ID
	// wheres are the distinct CPUs and threads of the timed records,
	// wheres[0] being none.
	wheres  []where
	whereID map[where]uint32
	names   []string // frame names by ID-1
	chunks  [][]record
	// Per stack: the classic (or, with Aggregate, all) counts summed.
	agg     []sum
	lines   []int64
	classic bool
	total   sum             // every count, for the int64 range check
	periods map[int64]int64 // count -> occurrences, for Period
	stats   Stats
	seq     uint32
	ids     []uint32 // scratch: a new stack's frame IDs
	first   folded.Time
	last    folded.Time
	seen    bool
	done    bool
	// The timeline the samples are summed in when their cells are known
	// as they come (Options.Aggregate: one cell, stacks only;
	// Options.HasCut: Resolution intervals on the wall clock), else nil.
	tb *timeline.Builder
	// Set by start: the timeline built from tb, and the wall clock's
	// offset from perf's.
	tl     *timeline.Timeline
	offset int64
	// ad makes the locations of the addresses (Options.Addresses), or
	// is nil.
	ad *addrTable
}

// sum is a sum of counts: its integer parts exactly, its fractions apart.
type sum struct {
	n    int64
	frac float64
}

// add adds c (at most folded.MaxCount); false when the integer sum passes
// the range of int64.
func (s *sum) add(c float64) bool {
	i := math.Trunc(c)
	n := int64(i)
	if s.n > math.MaxInt64-n {
		return false
	}
	s.n += n
	s.frac += c - i
	return true
}

// NewBuilder returns an empty Builder.
func NewBuilder(opts Options) *Builder {
	b := &Builder{
		opts:    opts,
		periods: make(map[int64]int64),
	}
	if opts.Addresses != NoAddresses {
		b.ad = newAddrTable(opts.Addresses)
	}
	switch {
	case opts.Aggregate:
		b.tb = timeline.NewBuilder(timeline.Options{Whole: true, Merge: timeline.MergeInputs | timeline.MergeThreads | timeline.MergeCPUs})
	case opts.HasCut && opts.Resolution >= MinCut:
		b.tb = timeline.NewBuilder(timeline.Options{Width: folded.Time(opts.Resolution), Align: true, Untimed: true,
			Merge: timeline.MergeInputs})
		b.tb.Input("", "", folded.Time(opts.Cut)) // the axis is the wall clock
	default:
		b.stacks = make(map[[2]uint64]uint32)
		b.seeds = [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}
		b.funcs = make(map[string]uint32)
		b.locOff = []int{0}
	}
	return b
}

// AddMeta adds a metadata line of the capture. Later lines win for the
// same key; first and last span all lines.
func (b *Builder) AddMeta(m folded.Meta) {
	b.metas = append(b.metas, m)
}

// SetRef sets the wall-clock reference (Options.Ref) before Profile: a
// caller that learns the clock only once every record has been read (a
// timeslice window) gives it here.
func (b *Builder) SetRef(ref *folded.WallRef) { b.opts.Ref = ref }

// Add adds one record. Its Stack is copied as needed.
func (b *Builder) Add(rec *folded.Record) error {
	if b.done {
		return errors.New("pprof: Add after Profile")
	}
	if rec.Kind == folded.Diff {
		return ErrDiff
	}
	c := rec.Count
	if c < 0 || math.IsNaN(c) || math.IsInf(c, 0) {
		return fmt.Errorf("count %v out of range for a pprof value", c)
	}
	if c > folded.MaxCount {
		return folded.NewCountError([]byte(folded.FormatCount(c)))
	}
	if !b.total.add(c) {
		return errors.New("the counts sum beyond 2^63-1, which a pprof value (int64) cannot hold: convert a shorter window")
	}
	if b.ad != nil {
		rec = b.ad.record(rec) // its stack: location numbers (addrs.go)
	}
	if b.tb != nil {
		if err := b.tb.Add(rec); err != nil {
			return err
		}
		b.count(rec, c)
		return nil
	}
	st := b.stack(rec.Stack)
	b.count(rec, c)
	if rec.Kind != folded.Timed || b.opts.Aggregate {
		for len(b.agg) <= int(st) {
			b.agg = append(b.agg, sum{})
			b.lines = append(b.lines, 0)
		}
		b.agg[st].add(c)
		b.lines[st]++
		return nil
	}
	n := len(b.chunks)
	if n == 0 || len(b.chunks[n-1]) == chunkSize {
		b.chunks = append(b.chunks, make([]record, 0, chunkSize))
		n++
	}
	b.chunks[n-1] = append(b.chunks[n-1], record{t: int64(rec.Time), count: c, stack: st, seq: b.seq, where: b.where(rec)})
	b.seq++
	b.stats.Held++
	return nil
}

// where returns the index of rec's CPU and thread in b.wheres.
func (b *Builder) where(rec *folded.Record) uint32 {
	if rec.Has == 0 {
		return 0
	}
	w := where{has: rec.Has}
	if rec.Has&folded.HasCPU != 0 {
		w.cpu = rec.CPU
	}
	if rec.Has&folded.HasPID != 0 {
		w.pid = rec.PID
	}
	if rec.Has&folded.HasTID != 0 {
		w.tid = rec.TID
	}
	id, ok := b.whereID[w]
	if !ok {
		if b.whereID == nil {
			b.whereID = map[where]uint32{}
			b.wheres = []where{{}}
		}
		id = uint32(len(b.wheres))
		b.whereID[w] = id
		b.wheres = append(b.wheres, w)
	}
	return id
}

// count notes a record of c that was added: the stats, and whether the
// profile has times (timed) or holds classic lines.
func (b *Builder) count(rec *folded.Record, c float64) {
	b.stats.Records++
	b.stats.Total += c
	if rec.Kind == folded.Timed {
		b.timed(rec, c)
	} else {
		b.classic = true
	}
}

// timed notes the time and count of a timed record.
func (b *Builder) timed(rec *folded.Record, c float64) {
	b.stats.Timed++
	if !b.seen || rec.Time < b.first {
		b.first = rec.Time
	}
	if !b.seen || rec.Time > b.last {
		b.last = rec.Time
	}
	b.seen = true
	if c == math.Trunc(c) && (len(b.periods) < 64 || b.periods[int64(c)] > 0) {
		b.periods[int64(c)]++
	}
}

// stack returns the index of a stack, making its locations on first use.
func (b *Builder) stack(s []byte) uint32 {
	s = folded.TrimStack(s)
	key := [2]uint64{maphash.Bytes(b.seeds[0], s), maphash.Bytes(b.seeds[1], s)}
	if i, ok := b.stacks[key]; ok {
		return i
	}
	// Frames root first; locations leaf first.
	n := bytes.Count(s, []byte{';'}) + 1
	ids := slices.Grow(b.ids[:0], n)[:n]
	b.ids = ids
	rest := s
	for i := n - 1; i >= 0; i-- {
		frame := rest
		if j := bytes.IndexByte(rest, ';'); j >= 0 {
			frame, rest = rest[:j], rest[j+1:]
		}
		ids[i] = b.function(frame)
	}
	for _, id := range ids {
		b.locs = appendVarint(b.locs, uint64(id))
	}
	i := uint32(len(b.locOff) - 1)
	b.locOff = append(b.locOff, len(b.locs))
	b.stacks[key] = i
	return i
}

// function returns the ID of a frame name's one Function and Location.
func (b *Builder) function(name []byte) uint32 {
	if id, ok := b.funcs[string(name)]; ok {
		return id
	}
	b.names = append(b.names, string(name))
	id := uint32(len(b.names))
	b.funcs[b.names[id-1]] = id
	return id
}

// merged returns the metadata lines merged: later lines win, first is the
// earliest and last the latest of all lines.
func (b *Builder) merged() folded.Meta {
	var m folded.Meta
	var first, last folded.Time
	hasF, hasL := false, false
	for i := range b.metas {
		for _, f := range b.metas[i].Fields {
			if f.Key != folded.KeyFirst && f.Key != folded.KeyLast {
				m.Set(f.Key, f.Value)
			}
		}
		if t, ok := b.metas[i].Time(folded.KeyFirst); ok && (!hasF || t < first) {
			first, hasF = t, true
		}
		if t, ok := b.metas[i].Time(folded.KeyLast); ok && (!hasL || t > last) {
			last, hasL = t, true
		}
	}
	if hasF {
		m.Set(folded.KeyFirst, first.String())
	}
	if hasL {
		m.Set(folded.KeyLast, last.String())
	}
	return m
}

// Profile returns the profile of everything added, as Write encodes it,
// parsed back (see Parse). It or Write can be called once. Write is the
// one to use for large profiles: Profile holds every sample as a
// *profile.Sample.
func (b *Builder) Profile() (*profile.Profile, error) {
	var buf bytes.Buffer
	if err := b.Write(&buf); err != nil {
		return nil, err
	}
	return Parse(buf.Bytes(), "the built profile")
}

// Write writes the profile of everything added to w, gzipped, as
// profile.proto, encoding it as it goes. It, Walk or Profile can be
// called once.
func (b *Builder) Write(w io.Writer) error {
	h, err := b.start()
	if err != nil {
		return err
	}
	names := h.Frames
	if h.Locations != nil {
		names = h.Funcs
	}
	e := newEncoder(w, names)
	for _, t := range h.Types {
		e.valueType(profile.FieldSampleType, t)
	}
	e.valueType(profile.FieldPeriodType, h.Weight)
	e.int(profile.FieldPeriod, h.Period)
	e.int(profile.FieldDefaultSampleType, int64(e.str(h.Weight.Type)))
	if h.HasSpan {
		e.int(profile.FieldTimeNanos, h.TimeNanos)
		e.int(profile.FieldDurationNanos, h.DurationNanos)
	}
	for _, c := range h.Comments {
		e.int(profile.FieldComment, int64(e.str(c)))
	}
	var vals [2]int64
	b.walk(h, func(s *rawSample) {
		vals[0], vals[1] = s.lines, s.value
		v := vals[:]
		if len(h.Types) == 1 {
			v = vals[1:]
		}
		e.sample(s.locs, v, s.ts, s.timed, s.w)
	})
	for i, mp := range h.Mappings {
		e.mapping(uint64(i+1), mp)
	}
	if h.Locations != nil {
		for i := range h.Locations {
			e.addrLocation(uint64(i+1), &h.Locations[i])
		}
	} else {
		for id := range h.Frames {
			e.location(uint64(id + 1))
		}
	}
	for id := range names {
		e.function(uint64(id + 1))
	}
	return e.close()
}

// Header is what a profile says besides its samples, as Walk gives it.
type Header struct {
	// Frames are the distinct frame names; a Sample's Frames index them.
	Frames []string
	// Types are the sample types: samples/count then the weight, or the
	// weight alone when classic lines were added (the samples behind them
	// are unknown).
	Types []Weight
	// Weight is the weight (the last of Types, the default).
	Weight Weight
	// Period is the most frequent integer count of the timed samples.
	Period int64
	// TimeNanos and DurationNanos are the span on the wall clock (perf's
	// clock without one: Stats.NoWall), when HasSpan.
	TimeNanos, DurationNanos int64
	HasSpan                  bool
	// Comments are the capture's metadata lines, then how perf's clock
	// was mapped (see ToFolded).
	Comments []string
	// Meta is the capture's metadata lines merged (later lines win).
	Meta folded.Meta
	// Mappings are Options.Mappings; with Options.Addresses, the
	// mappings of the addresses first.
	Mappings []Mapping
	// Locations, with Options.Addresses, are the locations of the
	// Frames (which are then location numbers), and Funcs the names
	// they point to; nil without.
	Locations []Location
	Funcs     []string
}

// Sample is one sample as Walk gives it (and Write encodes it).
type Sample struct {
	// Frames are the stack's frames, leaf first, as indexes into
	// Header.Frames.
	Frames []uint32
	// Samples is the number of folded lines summed in it, Value their
	// counts as the weight (int64, rounded so that every prefix of the
	// samples sums to the folded sum rounded).
	Samples, Value int64
	// Time is the start of its Resolution interval on the wall clock, in
	// ns (timestamp_ns), when Timed.
	Time  int64
	Timed bool
	// CPU, PID and TID are the sample's CPU and thread, where Has says.
	CPU, PID, TID int32
	Has           folded.Has
}

// Walk gives head the profile's header, then visit every sample, in the
// order Write encodes them: the timed ones by time, then the classic ones.
// The Sample and its Frames are reused between calls. It, Write or
// Profile can be called once; Stats is valid after it.
func (b *Builder) Walk(head func(*Header), visit func(*Sample)) error {
	h, err := b.start()
	if err != nil {
		return err
	}
	head(h)
	var s Sample
	b.walk(h, func(r *rawSample) {
		s.Frames = s.Frames[:0]
		for p := r.locs; len(p) > 0; {
			v, n := binary.Uvarint(p)
			p = p[n:]
			s.Frames = append(s.Frames, uint32(v-1))
		}
		s.Samples, s.Value, s.Time, s.Timed = r.lines, r.value, r.ts, r.timed
		s.CPU, s.PID, s.TID, s.Has = r.w.cpu, r.w.pid, r.w.tid, r.w.has
		visit(&s)
	})
	return nil
}

// rawSample is one sample as the walk makes it: locs are its location
// IDs (1 + frame index), leaf first, as packed varints.
type rawSample struct {
	locs         []byte
	lines, value int64
	ts           int64
	timed        bool
	w            where
}

// start ends the adding: it finds the weight, the clock and the span, and
// builds the timeline the samples were cut into, if any.
func (b *Builder) start() (*Header, error) {
	if b.done {
		return nil, errors.New("pprof: the profile was already written")
	}
	b.done = true
	m := b.merged()
	wt, known := b.opts.Weight, true
	if wt.Type == "" || wt.Unit == "" {
		wt, known = WeightFor(&m)
	}
	b.stats.Weight, b.stats.WeightKnown = wt, known

	// The clock.
	ref, ok := b.ref(&m)
	b.offset = offsetOf(ref, ok) // wall ns = perf ns + offset
	switch {
	case ok:
		b.stats.Clock, b.stats.Estimated = ref.How, !ref.Exact
		if ref.How == "" {
			b.stats.Clock = fmt.Sprintf("perf @%v = %s", ref.Perf, ref.Wall.UTC().Format(time.RFC3339Nano))
		}
	default:
		b.stats.NoWall = true
		b.stats.Clock = "no wall clock (no perf record -k reference and no \"captured on\" date): times are perf's clock, seconds since boot"
	}
	names := b.names
	if b.tb != nil {
		if !b.fits(b.offset) {
			return nil, fmt.Errorf("%w: cut at %d ns, the clock says %d", ErrCut, b.opts.Cut, b.offset)
		}
		b.tl = b.tb.Build()
		b.tb = nil
		names = b.tl.Frames
		b.stats.Stacks = stacksOf(b.tl)
	} else {
		b.stats.Stacks = len(b.locOff) - 1
	}
	b.stats.Frames = len(names)

	h := &Header{Frames: names, Weight: wt, Period: b.period(), Meta: m, Mappings: b.opts.Mappings}
	h.Types = []Weight{Samples, wt}
	if b.classic {
		h.Types = h.Types[1:]
	}
	if from, to, hasSpan := b.span(&m); hasSpan {
		h.TimeNanos, h.DurationNanos, h.HasSpan = int64(from)+b.offset, int64(to-from), true
	}
	for i := range b.metas {
		h.Comments = append(h.Comments, strings.TrimSuffix(string(folded.AppendMeta(nil, &b.metas[i])), "\n"))
	}
	h.Comments = append(h.Comments, clockComment(ref, ok))
	if b.ad != nil {
		b.ad.header(h, b.opts.Mappings)
		b.stats.NoAddresses = b.ad.missing
	}
	return h, nil
}

// walk gives emit every sample, its value rounded (see rounder), and
// counts them in the stats.
func (b *Builder) walk(h *Header, emit func(*rawSample)) {
	var round rounder
	var r rawSample
	one := func(locs []byte, lines int64, s sum, ts int64, timed bool, w where) {
		r = rawSample{locs: locs, lines: lines, value: s.n + round.next(s.frac), ts: ts, timed: timed, w: w}
		emit(&r)
		b.stats.Value += r.value
		b.stats.Samples++
	}
	if b.tl != nil {
		b.timelineSamples(b.tl, b.offset, one)
		b.tl = nil
		return
	}
	b.timedSamples(b.offset, func(g *group) {
		one(b.locs[b.locOff[g.stack]:b.locOff[g.stack+1]], g.lines, g.sum, g.key, true, b.whereOf(g.where))
	})
	for st := range b.agg {
		if b.lines[st] > 0 {
			one(b.locs[b.locOff[st]:b.locOff[st+1]], b.lines[st], b.agg[st], 0, false, where{})
		}
	}
}

// ErrCut is wrapped by the error of Write when the clock it finds does not
// put the edges of the Resolution intervals where Options.Cut put them
// (see Fits).
var ErrCut = errors.New("the samples were cut into intervals on another clock")

// offsetOf returns the wall clock's offset from perf's with ref (0 without
// one: times are then perf's clock).
func offsetOf(ref folded.WallRef, ok bool) int64 {
	if !ok {
		return 0
	}
	return ref.Wall.UnixNano() - int64(ref.Perf)
}

// Offset returns the wall clock's offset from perf's (wall ns = perf ns +
// Offset) that Write would use with the metadata and the reference given
// so far: Options.Cut for a reading that was cut on a wrong guess.
func (b *Builder) Offset() int64 {
	m := b.merged()
	return offsetOf(b.ref(&m))
}

// Fits reports whether Write can write the samples added: false only
// when they were cut into intervals (Options.HasCut) whose edges the
// clock known now (Offset) puts elsewhere; read them again with
// Options.Cut = Offset.
func (b *Builder) Fits() bool { return b.fits(b.Offset()) }

func (b *Builder) fits(offset int64) bool {
	if b.tb == nil || b.opts.Aggregate {
		return true
	}
	return (offset-b.opts.Cut)%int64(b.opts.Resolution) == 0
}

// stacksOf counts the distinct stacks of a timeline's entries.
func stacksOf(tl *timeline.Timeline) int {
	seen := make([]bool, len(tl.Nodes))
	n := 0
	for i := range tl.Entries {
		if s := tl.Entries[i].Stack; !seen[s] {
			seen[s] = true
			n++
		}
	}
	return n
}

// timelineSamples emits the entries of a timeline: with Options.Aggregate
// one per stack, untimed; else the timed ones, cell by cell (the
// interval's start on the wall clock is its timestamp_ns), each with its
// thread and CPU, then the classic lines' (cell NoTime), one per stack.
func (b *Builder) timelineSamples(tl *timeline.Timeline, offset int64, emit func([]byte, int64, sum, int64, bool, where)) {
	var locs []byte
	stackLocs := func(s timeline.StackID) []byte {
		locs = locs[:0]
		// Trailing empty frames are no frames (folded.TrimStack), but
		// for the root: the stack "" is one empty frame.
		for s > timeline.Root && tl.Nodes[s].Parent > timeline.Root && tl.Frames[tl.Nodes[s].Frame] == "" {
			s = tl.Nodes[s].Parent
		}
		for ; s > timeline.Root; s = tl.Nodes[s].Parent {
			locs = appendVarint(locs, uint64(tl.Nodes[s].Frame)+1)
		}
		return locs
	}
	entry := func(i int, timed bool) {
		en := &tl.Entries[i]
		s := sum{n: en.Weight}
		if tl.Fractions != nil {
			s.frac = tl.Fractions[i]
		}
		var w where
		var ts int64
		if timed {
			// The cells are on the clock of Options.Cut; the interval
			// edges are where the clock found puts them (Fits).
			ts = int64(tl.CellStart(int64(en.Cell))) + offset - b.opts.Cut
			if en.CPU >= 0 {
				w.cpu, w.has = en.CPU, folded.HasCPU
			}
			if en.Thread >= 0 {
				th := &tl.Threads[en.Thread]
				w.pid, w.tid, w.has = th.PID, th.TID, w.has|th.Has
			}
		}
		emit(stackLocs(en.Stack), int64(en.Samples), s, ts, timed, w)
	}
	if b.opts.Aggregate {
		for i := range tl.Entries {
			entry(i, false)
		}
		return
	}
	first := len(tl.Entries)
	for i := range tl.Entries {
		if tl.Entries[i].Cell != timeline.NoTime {
			first = i
			break
		}
	}
	for i := first; i < len(tl.Entries); i++ {
		entry(i, true)
	}
	// Classic lines: one sample per stack, as without a cut.
	for i := 0; i < first; i++ {
		entry(i, false)
	}
}

// group is the timed records of one stack at one key (a time, or the
// start of a Resolution interval, on the wall clock) summed.
type group struct {
	key   int64
	stack uint32
	where uint32
	seq   uint32 // of its first record
	lines int64
	sum   sum
}

// timedSamples gives emit the timed records grouped by wall-clock key and
// stack, in order of key, then of arrival; it consumes the records.
func (b *Builder) timedSamples(offset int64, emit func(*group)) {
	res := int64(b.opts.Resolution)
	for _, c := range b.chunks {
		for i := range c {
			k := c[i].t + offset
			if res > 1 {
				k -= k % res
				if k > c[i].t+offset { // a negative time: round down
					k -= res
				}
			}
			c[i].t = k
		}
		sortRecords(c)
	}
	var pending []group // the groups of the current key
	flush := func() {
		sortGroups(pending)
		for i := range pending {
			emit(&pending[i])
		}
		pending = pending[:0]
	}
	mergeChunks(b.chunks, func(r *record) {
		n := len(pending)
		switch {
		case n > 0 && pending[n-1].key == r.t && pending[n-1].stack == r.stack && pending[n-1].where == r.where:
		case n > 0 && pending[n-1].key != r.t:
			flush()
			fallthrough
		default:
			pending = append(pending, group{key: r.t, stack: r.stack, where: r.where, seq: r.seq})
			n = len(pending)
		}
		g := &pending[n-1]
		g.lines++
		g.sum.add(r.count) // cannot overflow: the total did not
	})
	flush()
	b.chunks = nil
}

// whereOf returns the CPU and thread of index i.
func (b *Builder) whereOf(i uint32) where {
	if i == 0 {
		return where{}
	}
	return b.wheres[i]
}

// Stats returns what the profile holds; valid after Profile or Write.
func (b *Builder) Stats() Stats { return b.stats }

// ref returns the wall-clock reference: the given one, else from the
// metadata, with the capture's span (or, failing it, the samples').
func (b *Builder) ref(m *folded.Meta) (folded.WallRef, bool) {
	if b.opts.Ref != nil {
		return *b.opts.Ref, true
	}
	first, okF := m.Time(folded.KeyFirst)
	last, okL := m.Time(folded.KeyLast)
	if !okF && b.seen {
		first, okF = b.first, true
	}
	if !okL && b.seen {
		last, okL = b.last, true
	}
	loc := b.opts.Location
	if loc == nil {
		loc = time.Local
	}
	return folded.RefFromMeta(m, first, last, okF && okL && first <= last, loc)
}

// span returns the profile's span on perf's clock.
func (b *Builder) span(m *folded.Meta) (from, to folded.Time, ok bool) {
	switch {
	case b.seen:
		from, to = b.first, b.last
	default:
		f, okF := m.Time(folded.KeyFirst)
		l, okL := m.Time(folded.KeyLast)
		if !okF || !okL {
			if !b.opts.HasFrom || !b.opts.HasTo {
				return 0, 0, false
			}
		}
		from, to = f, l
	}
	if b.opts.HasFrom {
		from = b.opts.From
	}
	if b.opts.HasTo {
		to = b.opts.To
	}
	if to < from {
		to = from
	}
	return from, to, true
}

// period returns the most frequent integer count of the timed samples (a
// cpu-clock capture at -F 97 has 10309278 ns per sample), or 0.
func (b *Builder) period() int64 {
	var best, n int64
	for c, k := range b.periods {
		if k > n || k == n && c < best {
			best, n = c, k
		}
	}
	return best
}

// clockComment records how perf's clock was mapped, for ToFolded.
func clockComment(ref folded.WallRef, ok bool) string {
	var m folded.Meta
	switch {
	case !ok:
		m.Set(keyClockMap, "perf")
	default:
		how := "exact"
		if !ref.Exact {
			how = "estimated"
		}
		m.Set(keyClockMap, how)
		m.Set(keyClockWall, ref.Wall.UTC().Format(time.RFC3339Nano))
		m.Set(keyClockPerf, ref.Perf.String())
	}
	return strings.TrimSuffix(string(folded.AppendMeta(nil, &m)), "\n")
}

// Keys of the comment that records how timestamp_ns relates to perf's
// clock: timestamp_ns = perf time - pprof-clock-perf + pprof-clock-wall.
const (
	keyClockMap  = "pprof-clock"      // "exact", "estimated" or "perf" (no wall clock)
	keyClockWall = "pprof-clock-wall" // RFC 3339 with nanoseconds
	keyClockPerf = "pprof-clock-perf" // perf-clock seconds
)

// rounder turns the fractions of the counts into int64 values whose
// running sum is their running sum rounded: with the integer parts, kept
// exactly, every prefix of the samples, and the profile's total, is the
// folded sum rounded, and no sample is off by one or more.
type rounder struct {
	sum     float64
	emitted int64
}

func (r *rounder) next(frac float64) int64 {
	if frac == 0 {
		return 0
	}
	r.sum += frac
	v := int64(math.Round(r.sum)) - r.emitted
	r.emitted += v
	return v
}
