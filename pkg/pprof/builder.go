package pprof

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/google/pprof/profile"

	"flamekit/pkg/folded"
)

// LabelTimestamp is the number label that carries a sample's time in
// wall-clock nanoseconds (perf_data_converter's convention).
const LabelTimestamp = "timestamp_ns"

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
}

// Stats describes the profile a Builder made.
type Stats struct {
	Records int64   // records added
	Timed   int64   // of which timed
	Total   float64 // sum of the counts added
	Value   int64   // sum of the weight values in the profile
	Stacks  int     // distinct stacks
	Frames  int     // distinct frame names (Functions)
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

// stack is one distinct stack: its locations, leaf first, and, for
// classic records (or Aggregate), the summed count.
type stack struct {
	locs   []*profile.Location
	sum    float64
	lines  int64
	sample *profile.Sample // aggregated sample, made by Profile
	used   bool            // has classic/aggregated count
}

// Builder turns folded records into a pprof profile. The zero value is not
// usable: call NewBuilder.
type Builder struct {
	opts    Options
	metas   []folded.Meta
	stacks  map[string]*stack
	order   []*stack // distinct stacks, in order of first use
	funcs   map[string]*profile.Location
	locs    []*profile.Location
	fns     []*profile.Function
	samples []*profile.Sample // timed samples, in order
	round   rounder
	periods map[int64]int64 // count -> occurrences, for Period
	stats   Stats
	classic bool
	first   folded.Time
	last    folded.Time
	seen    bool
	unit    map[string][]string // shared NumUnit of every timed sample
	done    bool
}

// NewBuilder returns an empty Builder.
func NewBuilder(opts Options) *Builder {
	return &Builder{
		opts:    opts,
		stacks:  make(map[string]*stack),
		funcs:   make(map[string]*profile.Location),
		periods: make(map[int64]int64),
		unit:    map[string][]string{LabelTimestamp: {"nanoseconds"}},
	}
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
	if c < 0 || math.IsNaN(c) || math.IsInf(c, 0) || c > 1<<62 {
		return fmt.Errorf("count %v out of range for a pprof value", c)
	}
	st := b.stack(rec.Stack)
	b.stats.Records++
	b.stats.Total += c
	if rec.Kind != folded.Timed || b.opts.Aggregate {
		if rec.Kind != folded.Timed {
			b.classic = true
		} else {
			b.timed(rec, c)
		}
		st.sum += c
		st.lines++
		st.used = true
		return nil
	}
	b.timed(rec, c)
	v := b.round.next(c)
	s := &profile.Sample{
		Location: st.locs,
		Value:    []int64{1, v},
		NumLabel: map[string][]int64{LabelTimestamp: {int64(rec.Time)}},
		NumUnit:  b.unit,
	}
	b.samples = append(b.samples, s)
	return nil
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

// stack returns the entry of a stack, making its locations on first use.
func (b *Builder) stack(s []byte) *stack {
	if st, ok := b.stacks[string(s)]; ok { // no allocation on a hit
		return st
	}
	n := bytes.Count(s, []byte{';'}) + 1
	locs := make([]*profile.Location, n)
	rest := s
	for i := n - 1; i >= 0; i-- {
		frame := rest
		if j := bytes.IndexByte(rest, ';'); j >= 0 {
			frame, rest = rest[:j], rest[j+1:]
		}
		locs[i] = b.location(frame)
	}
	st := &stack{locs: locs}
	b.stacks[string(s)] = st
	b.order = append(b.order, st)
	return st
}

// location returns the one Location of a frame name.
func (b *Builder) location(name []byte) *profile.Location {
	if l, ok := b.funcs[string(name)]; ok {
		return l
	}
	id := uint64(len(b.fns) + 1)
	fn := &profile.Function{ID: id, Name: string(name), SystemName: string(name)}
	l := &profile.Location{ID: id, Line: []profile.Line{{Function: fn}}}
	b.fns = append(b.fns, fn)
	b.locs = append(b.locs, l)
	b.funcs[fn.Name] = l
	return l
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

// Profile returns the profile of everything added. It can be called once.
func (b *Builder) Profile() (*profile.Profile, error) {
	if b.done {
		return nil, errors.New("pprof: Profile called twice")
	}
	b.done = true
	m := b.merged()
	w, known := b.opts.Weight, true
	if w.Type == "" || w.Unit == "" {
		w, known = WeightFor(&m)
	}
	b.stats.Weight, b.stats.WeightKnown = w, known

	// The clock.
	ref, ok := b.ref(&m)
	var offset int64 // wall ns = perf ns + offset
	switch {
	case ok:
		offset = ref.Wall.UnixNano() - int64(ref.Perf)
		b.stats.Clock, b.stats.Estimated = ref.How, !ref.Exact
		if ref.How == "" {
			b.stats.Clock = fmt.Sprintf("perf @%v = %s", ref.Perf, ref.Wall.UTC().Format(time.RFC3339Nano))
		}
	default:
		b.stats.NoWall = true
		b.stats.Clock = "no wall clock (no perf record -k reference and no \"captured on\" date): times are perf's clock, seconds since boot"
	}

	p := &profile.Profile{
		SampleType:        []*profile.ValueType{{Type: Samples.Type, Unit: Samples.Unit}, {Type: w.Type, Unit: w.Unit}},
		DefaultSampleType: w.Type,
		PeriodType:        &profile.ValueType{Type: w.Type, Unit: w.Unit},
		Period:            b.period(),
		Location:          b.locs,
		Function:          b.fns,
	}
	for _, s := range b.samples {
		s.NumLabel[LabelTimestamp][0] += offset
	}
	p.Sample = b.samples
	for _, st := range b.order {
		if !st.used {
			continue
		}
		st.sample = &profile.Sample{Location: st.locs, Value: []int64{st.lines, b.round.next(st.sum)}}
		p.Sample = append(p.Sample, st.sample)
	}
	if b.classic {
		// The samples behind classic lines are unknown: keep the weight
		// alone.
		p.SampleType = p.SampleType[1:]
		for _, s := range p.Sample {
			s.Value = s.Value[1:]
		}
	}
	b.stats.Value = b.round.emitted
	b.stats.Stacks = len(b.order)
	b.stats.Frames = len(b.fns)

	// The span.
	from, to, hasSpan := b.span(&m)
	if hasSpan {
		p.TimeNanos = int64(from) + offset
		p.DurationNanos = int64(to - from)
	}

	// Comments: the metadata lines, then how the clock was mapped.
	for i := range b.metas {
		p.Comments = append(p.Comments, strings.TrimSuffix(string(folded.AppendMeta(nil, &b.metas[i])), "\n"))
	}
	p.Comments = append(p.Comments, clockComment(ref, ok))
	return p, nil
}

// Stats returns what the profile holds; valid after Profile.
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

// rounder turns float counts into int64 values whose running sum is the
// running float sum rounded.
type rounder struct {
	sum     float64
	emitted int64
}

func (r *rounder) next(c float64) int64 {
	r.sum += c
	v := int64(math.Round(r.sum)) - r.emitted
	r.emitted += v
	return v
}
