package otlp

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"google.golang.org/protobuf/proto"

	"flamekit/pkg/folded"
	"flamekit/pkg/interop/pprof"
)

// Attribute keys (OpenTelemetry semantic conventions where one exists).
const (
	AttrService = "service.name"                    // resource
	AttrHost    = "host.name"                       // resource
	AttrCPU     = "cpu.logical_number"              // sample: the CPU it ran on
	AttrPID     = "process.pid"                     // sample
	AttrTID     = "thread.id"                       // sample
	AttrExe     = "process.executable.name"         // sample: the comm (the stack's root frame)
	AttrBuildID = "process.executable.build_id.gnu" // mapping: GNU build-id, lowercase hex
	AttrEvent   = "perf.event"                      // profile: the event perf sampled (no convention yet)
	ScopeName   = "flamekit"                        // the instrumentation scope
)

// DefaultResolution is what the samples' timestamps are rounded down to
// (on the wall clock) by timeslice --format otlp: 1 ms, the finest a
// timeline cuts (pprof.MinCut), finer than any perf sampling period, so
// each sample keeps its own millisecond.
const DefaultResolution = pprof.MinCut

// Options say what a Request carries besides the samples.
type Options struct {
	// Service is the resource's service.name; "" leaves it out.
	Service string
	// Host is the resource's host.name; "": the capture's host (its
	// metadata), if any.
	Host string
	// Resource are more resource attributes (key, value).
	Resource [][2]string
	// Split cuts the samples into one Profile per wall-clock interval of
	// this length (aligned on the Unix epoch), all in the one Request and
	// sharing its dictionary, each with its own time and duration, for
	// stores that keep one time per profile. 0: one Profile.
	Split time.Duration
	// ProfileID, when not all zero, is the first Profile's profile_id
	// (the others get it with their index added to its last bytes), for
	// receivers that deduplicate.
	ProfileID [16]byte
}

// Stats describes the Request built: the profile's (pprof.Stats: samples
// grouped, totals, the clock) and how many OTLP Profiles and Samples.
type Stats struct {
	pprof.Stats
	Profiles int
	// Points is the number of (value, timestamp) points written.
	Points int64
}

// ErrNoWall is returned for samples without a wall clock: OTLP's
// timestamps are Unix time.
var ErrNoWall = errors.New("OTLP needs the samples' wall-clock time, and the input has neither a clock reference (perf record -k mono) nor perf's \"captured on\" date")

// Build makes a Request of everything added to b (a pprof.Builder, whose
// walk of the samples it takes as pprof.Builder.Write does): one resource
// (service.name, host.name), one scope, one Profile per Split interval,
// whose sample type is the weight, and whose Samples are the walk's: one
// per stack, CPU, thread and pprof.Options.Resolution interval, with one
// value and one timestamp (the interval's start). Every frame is one
// Function and one Location (no address: the frames are names), or with
// pprof.Options.Addresses, the Location of its address in its Mapping.
func Build(b *pprof.Builder, opts Options) (*Request, Stats, error) {
	x := newDict()
	var h *pprof.Header
	var profiles []*Profile
	byStart := map[int64]*prof{}
	var order []int64
	var st Stats
	err := b.Walk(func(hd *pprof.Header) {
		h = hd
		if hd.Locations != nil {
			x.locations(hd)
		} else {
			x.frames(hd.Frames)
		}
	}, func(s *pprof.Sample) {
		start := int64(0)
		if opts.Split > 0 && s.Timed {
			start = floorDiv(s.Time, int64(opts.Split)) * int64(opts.Split)
		}
		p := byStart[start]
		if p == nil {
			p = &prof{}
			byStart[start] = p
			order = append(order, start)
		}
		p.add(x, s, h)
		st.Points++
	})
	st.Stats = b.Stats()
	if err != nil {
		return nil, st, err
	}
	if st.NoWall && st.Timed > 0 {
		return nil, st, ErrNoWall
	}
	wt := h.Weight
	event, _ := h.Meta.Get(folded.KeyEvent)
	var profAttrs []int32
	if event != "" {
		profAttrs = append(profAttrs, x.attr(AttrEvent, event, 0, false))
	}
	for _, m := range h.Mappings {
		mp := &Mapping{MemoryStart: m.Start, MemoryLimit: m.Limit, FileOffset: m.Offset, FilenameStrindex: x.str(m.File)}
		if m.BuildID != "" {
			mp.AttributeIndices = []int32{x.attr(AttrBuildID, m.BuildID, 0, false)}
		}
		x.d.MappingTable = append(x.d.MappingTable, mp)
	}
	if len(order) == 0 {
		order = append(order, 0)
		byStart[0] = &prof{}
	}
	for i, start := range order {
		p := byStart[start]
		pr := &Profile{
			SampleType:       &ValueType{TypeStrindex: x.str(wt.Type), UnitStrindex: x.str(wt.Unit)},
			PeriodType:       &ValueType{TypeStrindex: x.str(wt.Type), UnitStrindex: x.str(wt.Unit)},
			Period:           h.Period,
			Samples:          p.list,
			AttributeIndices: profAttrs,
		}
		switch {
		case opts.Split > 0 && p.timed:
			pr.TimeUnixNano, pr.DurationNano = uint64(start), uint64(opts.Split)
		case h.HasSpan:
			pr.TimeUnixNano, pr.DurationNano = uint64(h.TimeNanos), uint64(h.DurationNanos)
		}
		if opts.ProfileID != [16]byte{} {
			id := opts.ProfileID
			binary.BigEndian.PutUint64(id[8:], binary.BigEndian.Uint64(id[8:])+uint64(i))
			pr.ProfileId = id[:]
		}
		profiles = append(profiles, pr)
	}
	st.Profiles = len(profiles)
	host := opts.Host
	if host == "" {
		host, _ = h.Meta.Get(folded.KeyHost)
	}
	var res []*KeyValue
	if opts.Service != "" {
		res = append(res, &KeyValue{Key: AttrService, Value: stringValue(validString(opts.Service))})
	}
	if host != "" {
		res = append(res, &KeyValue{Key: AttrHost, Value: stringValue(validString(host))})
	}
	for _, kv := range opts.Resource {
		res = append(res, &KeyValue{Key: validString(kv[0]), Value: stringValue(validString(kv[1]))})
	}
	req := &Request{
		ResourceProfiles: []*ResourceProfiles{{
			Resource:      &Resource{Attributes: res},
			ScopeProfiles: []*ScopeProfiles{{Scope: &Scope{Name: ScopeName}, Profiles: profiles}},
		}},
		Dictionary: x.d,
	}
	return req, st, nil
}

// Write writes req as protobuf (an OTLP/HTTP request body).
func Write(w io.Writer, req *Request) error {
	b, err := Marshal(req)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// Marshal encodes req as protobuf.
func Marshal(req *Request) ([]byte, error) {
	b, err := proto.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("encoding the OTLP request: %w", err)
	}
	return b, nil
}

// Unmarshal decodes a protobuf Request.
func Unmarshal(b []byte) (*Request, error) {
	req := &Request{}
	if err := proto.Unmarshal(b, req); err != nil {
		return nil, fmt.Errorf("decoding an OTLP profiles request: %w", err)
	}
	return req, nil
}

// validString makes s valid UTF-8 for a proto3 string field.
func validString(s string) string { return strings.ToValidUTF8(s, "\uFFFD") }

func unmarshal(b []byte, m proto.Message) error { return proto.Unmarshal(b, m) }

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b < 0 {
		q--
	}
	return q
}

// dict builds the shared dictionary; entry 0 of every table is the zero
// value, as the proto requires.
type dict struct {
	d      *ProfilesDictionary
	strs   map[string]int32
	attrs  map[attrKey]int32
	stacks map[string]int32
	key    []byte // scratch: a stack's key
}

type attrKey struct {
	key   string
	s     string
	i     int64
	isInt bool
}

func newDict() *dict {
	return &dict{
		d: &ProfilesDictionary{
			MappingTable:   []*Mapping{{}},
			LocationTable:  []*Location{{}},
			FunctionTable:  []*Function{{}},
			LinkTable:      []*profilesLink{{}},
			StringTable:    []string{""},
			AttributeTable: []*KeyValueAndUnit{{}},
			StackTable:     []*Stack{{}},
		},
		strs:   map[string]int32{"": 0},
		attrs:  map[attrKey]int32{},
		stacks: map[string]int32{},
	}
}

// str returns the index of s in the string table. Strings are proto3
// strings, valid UTF-8: invalid bytes (a frame name from a capture can hold
// any) become U+FFFD.
func (x *dict) str(s string) int32 {
	if i, ok := x.strs[s]; ok {
		return i
	}
	if !utf8.ValidString(s) {
		v := strings.ToValidUTF8(s, "\uFFFD")
		i := x.str(v)
		x.strs[s] = i
		return i
	}
	i := int32(len(x.d.StringTable))
	x.d.StringTable = append(x.d.StringTable, s)
	x.strs[s] = i
	return i
}

// frames makes frame i Function and Location i+1.
func (x *dict) frames(names []string) {
	for i, n := range names {
		x.d.FunctionTable = append(x.d.FunctionTable, &Function{NameStrindex: x.str(n)})
		x.d.LocationTable = append(x.d.LocationTable, &Location{Lines: []*Line{{FunctionIndex: int32(i + 1)}}})
	}
}

// locations makes the locations of a profile with addresses
// (pprof.Header.Locations): frame i is Location i+1, with its mapping
// (Mapping j+1 is the header's mapping j), its address and its lines;
// Function i+1 is name i of Funcs.
func (x *dict) locations(h *pprof.Header) {
	for _, n := range h.Funcs {
		x.d.FunctionTable = append(x.d.FunctionTable, &Function{NameStrindex: x.str(n)})
	}
	for i := range h.Locations {
		l := &h.Locations[i]
		loc := &Location{MappingIndex: int32(l.Mapping), Address: l.Address}
		for _, f := range l.Funcs {
			loc.Lines = append(loc.Lines, &Line{FunctionIndex: int32(f + 1)})
		}
		x.d.LocationTable = append(x.d.LocationTable, loc)
	}
}

// attr returns the index of an attribute (a string, or an int when
// isInt).
func (x *dict) attr(key, s string, i int64, isInt bool) int32 {
	k := attrKey{key, s, i, isInt}
	if j, ok := x.attrs[k]; ok {
		return j
	}
	v := stringValue(validString(s))
	if isInt {
		v = intValue(i)
	}
	j := int32(len(x.d.AttributeTable))
	x.d.AttributeTable = append(x.d.AttributeTable, &KeyValueAndUnit{KeyStrindex: x.str(key), Value: v})
	x.attrs[k] = j
	return j
}

// stack returns the index of a stack of frames (leaf first).
func (x *dict) stack(frames []uint32) int32 {
	k := x.key[:0]
	for _, f := range frames {
		k = binary.AppendUvarint(k, uint64(f))
	}
	x.key = k
	if i, ok := x.stacks[string(k)]; ok {
		return i
	}
	locs := make([]int32, len(frames))
	for j, f := range frames {
		locs[j] = int32(f + 1)
	}
	i := int32(len(x.d.StackTable))
	x.d.StackTable = append(x.d.StackTable, &Stack{LocationIndices: locs})
	x.stacks[string(k)] = i
	return i
}

// prof is one Profile being filled: one Sample per point (value and
// timestamp). The spec allows one Sample per stack and attributes holding
// every point, but Grafana Pyroscope's converter copies a Sample's values
// into one pprof sample and refuses more values than sample types.
type prof struct {
	list  []*Sample
	timed bool
	attrs []int32 // scratch
}

func (p *prof) add(x *dict, s *pprof.Sample, h *pprof.Header) {
	sm := &Sample{StackIndex: x.stack(s.Frames), Values: []int64{s.Value}}
	attrs := p.attrs[:0]
	if len(s.Frames) > 0 {
		attrs = append(attrs, x.attr(AttrExe, h.FrameName(s.Frames[len(s.Frames)-1]), 0, false))
	}
	for _, f := range [...]struct {
		has folded.Has
		key string
		v   int32
	}{{folded.HasCPU, AttrCPU, s.CPU}, {folded.HasPID, AttrPID, s.PID}, {folded.HasTID, AttrTID, s.TID}} {
		if s.Has&f.has != 0 {
			attrs = append(attrs, x.attr(f.key, "", int64(f.v), true))
		}
	}
	p.attrs = attrs
	sm.AttributeIndices = append([]int32(nil), attrs...)
	if s.Timed {
		sm.TimestampsUnixNano = []uint64{uint64(s.Time)}
		p.timed = true
	}
	p.list = append(p.list, sm)
}
