package pprof

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"math"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"flamekit/pkg/folded"
	"flamekit/pkg/interop/pprof/profile"
)

// MaxSize bounds the decompressed size of a profile Read accepts.
const MaxSize = 1 << 30

// Read parses a profile.proto, gzipped or not; name is used in errors.
// Legacy text profiles are not read.
func Read(r io.Reader, name string) (p *profile.Profile, err error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxSize+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return Parse(data, name)
}

// Parse parses a profile.proto held in data, gzipped or not; name is used
// in errors.
func Parse(data []byte, name string) (p *profile.Profile, err error) {
	if len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("%s: gzip: %w", name, err)
		}
		data, err = io.ReadAll(io.LimitReader(zr, MaxSize+1))
		if errors.Is(err, io.ErrUnexpectedEOF) {
			err = errors.New("gzip data is truncated (unexpected end of file)")
		}
		if err != nil {
			return nil, fmt.Errorf("%s: gzip: %w", name, err)
		}
	}
	if len(data) > MaxSize {
		return nil, fmt.Errorf("%s: profile larger than %d bytes", name, MaxSize)
	}
	if len(data) == 0 {
		return nil, fmt.Errorf("%s: empty profile", name)
	}
	p, err = profile.Decode(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return p, nil
}

// ReadOptions control how a profile becomes folded records.
type ReadOptions struct {
	// SampleType picks the values: a sample type's name ("alloc_space")
	// or index ("0"). Empty: the profile's default sample type, else the
	// last one, as go tool pprof.
	SampleType string
	// Name is the input's name, for the source metadata and messages.
	Name string
}

// Summary says what Convert read and skipped.
type Summary struct {
	Type  Weight // the sample type read
	Index int    // its index
	// Samples counts the samples written; Timed those with timestamp_ns.
	Samples, Timed int64
	// Zero counts the samples skipped because their value is 0 (a heap
	// profile's freed objects in inuse_space, say); Negative those
	// skipped because their value is negative (a diff profile's base).
	Zero, Negative int64
	// Big counts the samples skipped because their value is beyond 2^53
	// (folded.MaxCount), which no folded count holds exactly.
	Big int64
	// Total is the sum of the values written.
	Total float64
	// Clock says how timestamp_ns was mapped to perf's clock: "exact"
	// (a flamekit profile's own reference), "estimated" (the same, but
	// flamekit had estimated it), "realtime" (wall-clock nanoseconds
	// written as seconds since the epoch, with clockid="realtime"),
	// "perf" (perf clock nanoseconds, such as perf_data_converter's
	// without perf record -k), or "" for untimed profiles.
	Clock string
	// Meta are the metadata lines written before the records.
	Meta []folded.Meta
}

// Pick returns the index of the sample type named or numbered by sel,
// or the default one when sel is empty.
func Pick(p *profile.Profile, sel string) (int, error) {
	if len(p.SampleType) == 0 {
		return 0, errors.New("the profile has no sample types")
	}
	if sel == "" {
		if p.DefaultSampleType != "" {
			for i, st := range p.SampleType {
				if st.Type == p.DefaultSampleType {
					return i, nil
				}
			}
		}
		return len(p.SampleType) - 1, nil
	}
	for i, st := range p.SampleType {
		if st.Type == sel {
			return i, nil
		}
	}
	if n, err := strconv.Atoi(sel); err == nil && n >= 0 && n < len(p.SampleType) {
		return n, nil
	}
	var have []string
	for i, st := range p.SampleType {
		have = append(have, fmt.Sprintf("%d=%s/%s", i, st.Type, st.Unit))
	}
	return 0, fmt.Errorf("no sample type %q in the profile (it has %s)", sel, strings.Join(have, ", "))
}

// clockMap is how timestamp_ns becomes perf-clock time: perf = ts -
// offset.
type clockMap struct {
	how    string
	offset int64
}

// wallThreshold tells wall-clock nanoseconds (since 1970) from a perf
// clock's (since boot): 2000-01-01.
const wallThreshold = int64(946684800) * 1e9

// clockOf reads the mapping a flamekit profile recorded, else decides from
// the timestamps' magnitude.
func clockOf(p *profile.Profile, anyTS int64) clockMap {
	for _, c := range p.Comments {
		if !folded.IsMeta([]byte(c)) {
			continue
		}
		m, err := folded.ParseMeta([]byte(c))
		if err != nil {
			continue
		}
		how, ok := m.Get(keyClockMap)
		if !ok {
			continue
		}
		if how == "perf" {
			return clockMap{how: "perf"}
		}
		w, okW := m.Get(keyClockWall)
		pt, okP := m.Time(keyClockPerf)
		if !okW || !okP {
			continue
		}
		wt, err := time.Parse(time.RFC3339Nano, w)
		if err != nil {
			continue
		}
		return clockMap{how: how, offset: wt.UnixNano() - int64(pt)}
	}
	if anyTS >= wallThreshold {
		return clockMap{how: "realtime"}
	}
	return clockMap{how: "perf"}
}

// metaOf returns the flamekit metadata lines kept in a profile's comments
// (without the clock line).
func metaOf(p *profile.Profile) []folded.Meta {
	var ms []folded.Meta
	for _, c := range p.Comments {
		if !folded.IsMeta([]byte(c)) {
			continue
		}
		m, err := folded.ParseMeta([]byte(c))
		if err != nil {
			continue
		}
		if _, ok := m.Get(keyClockMap); ok {
			continue
		}
		ms = append(ms, m)
	}
	return ms
}

// timed is a sample with its timestamp_ns.
type timed struct {
	s  *profile.Sample
	ts int64
}

// timestamp returns a sample's timestamp_ns.
func timestamp(s *profile.Sample) (int64, bool) {
	v := s.NumLabel[LabelTimestamp]
	if len(v) == 0 {
		return 0, false
	}
	return v[0], true
}

// Convert gives sink the folded form of p's chosen sample type: metadata
// lines (a flamekit profile's own, else one made from the profile), then
// timed records (in time order) for the samples with timestamp_ns, then
// classic ones, summed per stack in order of first appearance. The
// records and their stacks are valid only during the call.
func Convert(p *profile.Profile, opts ReadOptions, sink Sink) (Summary, error) {
	var sum Summary
	idx, err := Pick(p, opts.SampleType)
	if err != nil {
		return sum, err
	}
	sum.Index = idx
	sum.Type = Weight{p.SampleType[idx].Type, p.SampleType[idx].Unit}

	// Timed samples first, in time order (a stable sort keeps a flamekit
	// profile's own order).
	var ts []timed
	var untimed []*profile.Sample
	for _, s := range p.Sample {
		if idx >= len(s.Value) {
			return sum, fmt.Errorf("a sample has %d values, the profile %d sample types", len(s.Value), len(p.SampleType))
		}
		v := s.Value[idx]
		switch {
		case v == 0:
			sum.Zero++
			continue
		case v < 0:
			sum.Negative++
			continue
		case v > folded.MaxCount:
			sum.Big++
			continue
		}
		if t, ok := timestamp(s); ok {
			ts = append(ts, timed{s, t})
		} else {
			untimed = append(untimed, s)
		}
	}
	slices.SortStableFunc(ts, func(a, b timed) int { return cmp.Compare(a.ts, b.ts) })

	var clock clockMap
	if len(ts) > 0 {
		clock = clockOf(p, ts[0].ts)
		sum.Clock = clock.how
	}
	sum.Meta = metaFor(p, opts, sum, ts, clock)
	for i := range sum.Meta {
		if err := sink.WriteMeta(&sum.Meta[i]); err != nil {
			return sum, err
		}
	}

	var sb stackBuilder
	var rec folded.Record
	for _, t := range ts {
		rec = folded.Record{Stack: sb.build(t.s), Count: float64(t.s.Value[idx]), Kind: folded.Timed}
		rec.Time = folded.Time(t.ts - clock.offset)
		setWhere(&rec, t.s)
		sum.Samples++
		sum.Timed++
		sum.Total += rec.Count
		if err := sink.Write(&rec); err != nil {
			return sum, err
		}
	}
	if len(untimed) > 0 {
		var agg folded.Profile
		for _, s := range untimed {
			rec = folded.Record{Stack: sb.build(s), Count: float64(s.Value[idx]), Kind: folded.Classic}
			sum.Samples++
			sum.Total += rec.Count
			agg.Add(&rec)
		}
		for _, e := range agg.Entries() {
			rec = folded.Record{Stack: []byte(e.Stack), Count: e.Count, Kind: folded.Classic}
			if err := sink.Write(&rec); err != nil {
				return sum, err
			}
		}
	}
	return sum, nil
}

// metaFor returns the metadata lines of the folded stream: a flamekit
// profile's own, else one made from the profile, and one saying what the
// counts measure.
func metaFor(p *profile.Profile, opts ReadOptions, sum Summary, ts []timed, clock clockMap) []folded.Meta {
	ms := metaOf(p)
	var m folded.Meta
	if len(ms) == 0 && len(ts) > 0 {
		first := folded.Time(ts[0].ts - clock.offset)
		last := folded.Time(ts[len(ts)-1].ts - clock.offset)
		m.Set(folded.KeyFirst, first.String())
		m.Set(folded.KeyLast, last.String())
		if clock.how == "realtime" {
			m.Set(folded.KeyClock, "realtime")
		}
	}
	if len(ms) == 0 && opts.Name != "" {
		m.Set(folded.KeySource, opts.Name)
	}
	m.Set(KeyType, sum.Type.Type)
	m.Set(KeyUnit, sum.Type.Unit)
	return append(ms, m)
}

// stackBuilder joins a sample's frames root first into a reused buffer.
type stackBuilder struct {
	buf   []byte
	names map[*profile.Location][]string
}

// build returns the folded stack of s, valid until the next call.
func (sb *stackBuilder) build(s *profile.Sample) []byte {
	if sb.names == nil {
		sb.names = make(map[*profile.Location][]string)
	}
	sb.buf = sb.buf[:0]
	first := true
	for i := len(s.Location) - 1; i >= 0; i-- {
		for _, name := range sb.frames(s.Location[i]) {
			if !first {
				sb.buf = append(sb.buf, ';')
			}
			first = false
			sb.buf = append(sb.buf, name...)
		}
	}
	return sb.buf
}

// frames returns a location's frame names, caller first: its inlined
// functions expanded, or "[module]" / "[unknown]" when it has no symbol.
func (sb *stackBuilder) frames(l *profile.Location) []string {
	if l == nil {
		return []string{"[unknown]"}
	}
	if n, ok := sb.names[l]; ok {
		return n
	}
	var names []string
	for i := len(l.Line) - 1; i >= 0; i-- {
		fn := l.Line[i].Function
		name := ""
		if fn != nil {
			name = fn.Name
			if name == "" {
				name = fn.SystemName
			}
		}
		if name == "" {
			continue
		}
		names = append(names, frameName(name))
	}
	if len(names) == 0 {
		names = []string{unknownFrame(l)}
	}
	sb.names[l] = names
	return names
}

// unknownFrame names a location without a symbol as stackcollapse-perf.pl
// does: the module's base name in brackets, else [unknown].
func unknownFrame(l *profile.Location) string {
	if l.Mapping != nil && l.Mapping.File != "" {
		return "[" + frameName(path.Base(l.Mapping.File)) + "]"
	}
	return "[unknown]"
}

// frameName makes a function name safe in a folded line: ';' separates
// frames (stackcollapse-perf.pl turns it into ':' too) and a newline ends
// the line.
func frameName(s string) string {
	if !strings.ContainsAny(s, ";\n\r") {
		return s
	}
	return strings.NewReplacer(";", ":", "\n", " ", "\r", " ").Replace(s)
}

// Sink receives what Convert makes: metadata lines first, then records.
// *folded.Writer is one.
type Sink interface {
	WriteMeta(m *folded.Meta) error
	Write(rec *folded.Record) error
}

// ToFolded writes p's chosen sample type as folded lines (see Convert).
func ToFolded(w io.Writer, p *profile.Profile, opts ReadOptions) (Summary, error) {
	fw := folded.NewWriter(w)
	sum, err := Convert(p, opts, fw)
	if err != nil {
		return sum, err
	}
	return sum, fw.Flush()
}

// setWhere gives rec the CPU and thread of s's numeric labels cpu, pid and
// tid (what timeslice --format pprof writes), when it has them.
func setWhere(rec *folded.Record, s *profile.Sample) {
	for _, l := range [...]struct {
		key string
		has folded.Has
		dst *int32
	}{{LabelCPU, folded.HasCPU, &rec.CPU}, {LabelPID, folded.HasPID, &rec.PID}, {LabelTID, folded.HasTID, &rec.TID}} {
		v := s.NumLabel[l.key]
		if str := s.Label[l.key]; len(str) == 1 {
			n, err := strconv.ParseInt(str[0], 10, 32)
			if err != nil {
				continue
			}
			v = []int64{n}
		}
		if len(v) == 1 && v[0] >= -1 && v[0] <= math.MaxInt32 && (v[0] >= 0 || l.has != folded.HasCPU) {
			rec.Has |= l.has
			*l.dst = int32(v[0])
		}
	}
}
