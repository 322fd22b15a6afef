package otlp

import (
	"math"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	collectorpb "go.opentelemetry.io/proto/slim/otlp/collector/profiles/v1development"

	"flamekit/internal/testkit/testcapture"
	"flamekit/pkg/folded"
	"flamekit/pkg/interop/pprof"
)

// point is one sample's key in the folded input and in the OTLP output.
type point struct {
	stack         string
	ts            int64
	cpu, pid, tid int64
	exe           string
}

// decoded is an OTLP request decoded with the official proto package,
// its samples keyed as the folded input's.
type decoded struct {
	points   map[point]int64
	total    int64
	resource map[string]string
	profiles []*Profile
}

func decode(t *testing.T, body []byte) decoded {
	t.Helper()
	var req collectorpb.ExportProfilesServiceRequest
	if err := proto.Unmarshal(body, &req); err != nil {
		t.Fatalf("the official proto package cannot decode the request: %v", err)
	}
	d := req.GetDictionary()
	str := d.GetStringTable()
	if len(str) == 0 || str[0] != "" || len(d.GetFunctionTable()) == 0 || len(d.GetStackTable()) == 0 ||
		len(d.GetAttributeTable()) == 0 || len(d.GetMappingTable()) == 0 || len(d.GetLocationTable()) == 0 {
		t.Fatalf("a dictionary table lacks its zero entry 0")
	}
	out := decoded{points: map[point]int64{}, resource: map[string]string{}}
	if n := len(req.GetResourceProfiles()); n != 1 {
		t.Fatalf("%d resource profiles, want 1", n)
	}
	rp := req.GetResourceProfiles()[0]
	for _, kv := range rp.GetResource().GetAttributes() {
		out.resource[kv.GetKey()] = kv.GetValue().GetStringValue()
	}
	for _, sp := range rp.GetScopeProfiles() {
		for _, p := range sp.GetProfiles() {
			out.profiles = append(out.profiles, p)
			for _, s := range p.GetSamples() {
				st := d.GetStackTable()[s.GetStackIndex()]
				var frames []string
				for _, li := range st.GetLocationIndices() {
					loc := d.GetLocationTable()[li]
					fn := d.GetFunctionTable()[loc.GetLines()[0].GetFunctionIndex()]
					frames = append(frames, str[fn.GetNameStrindex()])
				}
				for i, j := 0, len(frames)-1; i < j; i, j = i+1, j-1 {
					frames[i], frames[j] = frames[j], frames[i]
				}
				k := point{stack: strings.Join(frames, ";"), cpu: -1, pid: -1, tid: -1}
				for _, ai := range s.GetAttributeIndices() {
					a := d.GetAttributeTable()[ai]
					switch str[a.GetKeyStrindex()] {
					case AttrCPU:
						k.cpu = a.GetValue().GetIntValue()
					case AttrPID:
						k.pid = a.GetValue().GetIntValue()
					case AttrTID:
						k.tid = a.GetValue().GetIntValue()
					case AttrExe:
						k.exe = a.GetValue().GetStringValue()
					}
				}
				ts := s.GetTimestampsUnixNano()
				if len(ts) != 1 || len(s.GetValues()) != 1 {
					// Pyroscope takes one value per sample type.
					t.Fatalf("a sample has %d values and %d timestamps, want 1 and 1", len(s.GetValues()), len(ts))
				}
				for i, v := range s.GetValues() {
					k.ts = int64(ts[i])
					if ts[i] < p.GetTimeUnixNano() || ts[i] >= p.GetTimeUnixNano()+p.GetDurationNano() {
						t.Errorf("timestamp %d outside its profile [%d, +%d)", ts[i], p.GetTimeUnixNano(), p.GetDurationNano())
					}
					out.points[k] += v
					out.total += v
				}
			}
		}
	}
	return out
}

// TestBuild: the request made of a real capture, decoded with the
// official proto package, holds every sample of the folded input at its
// wall-clock millisecond, with its CPU, thread and comm, the totals equal,
// and the resource names the service and host.
func TestBuild(t *testing.T) {
	s := testcapture.ReadStream(t, testcapture.Fold(t, "burst"))
	wall := time.Date(2026, 11, 22, 2, 24, 24, 0, time.UTC)
	ref := &folded.WallRef{Wall: wall, Perf: s.Recs[0].Time, Exact: true}
	offset := wall.UnixNano() - int64(ref.Perf)
	for _, split := range []time.Duration{0, time.Second} {
		b := pprof.NewBuilder(pprof.Options{Ref: ref, Resolution: DefaultResolution, HasCut: true, Cut: offset})
		for _, m := range s.Metas {
			b.AddMeta(m)
		}
		want := map[point]int64{}
		var total float64
		for i := range s.Recs {
			r := &s.Recs[i]
			if err := b.Add(r); err != nil {
				t.Fatal(err)
			}
			ts := int64(r.Time) + offset
			ts -= ts % int64(DefaultResolution)
			k := point{stack: string(r.Stack), ts: ts, cpu: -1, pid: -1, tid: -1}
			k.exe, _, _ = strings.Cut(k.stack, ";")
			if r.Has&folded.HasCPU != 0 {
				k.cpu = int64(r.CPU)
			}
			if r.Has&folded.HasPID != 0 {
				k.pid = int64(r.PID)
			}
			if r.Has&folded.HasTID != 0 {
				k.tid = int64(r.TID)
			}
			want[k] += int64(r.Count)
			total += r.Count
		}
		req, st, err := Build(b, Options{Service: "burst", Split: split})
		if err != nil {
			t.Fatal(err)
		}
		body, err := Marshal(req)
		if err != nil {
			t.Fatal(err)
		}
		got := decode(t, body)
		if got.total != int64(math.Round(total)) || st.Value != got.total {
			t.Errorf("split %v: total %d, the folded input sums %v, the builder says %d", split, got.total, total, st.Value)
		}
		if len(got.points) != len(want) {
			t.Errorf("split %v: %d distinct points, want %d", split, len(got.points), len(want))
		}
		for k, v := range want {
			if got.points[k] != v {
				t.Errorf("split %v: %+v: %d, want %d", split, k, got.points[k], v)
				break
			}
		}
		if got.resource[AttrService] != "burst" || got.resource[AttrHost] != "vm" {
			t.Errorf("resource attributes %v, want service.name burst and host.name vm (the capture's)", got.resource)
		}
		first, last := s.Recs[0].Time, s.Recs[len(s.Recs)-1].Time
		nprof := 1
		if split > 0 {
			nprof = int((int64(last)+offset)/int64(split) - (int64(first)+offset)/int64(split) + 1)
		}
		if len(got.profiles) != nprof || st.Profiles != nprof {
			t.Errorf("split %v: %d profiles, want %d", split, len(got.profiles), nprof)
		}
		p := got.profiles[0]
		strs := req.GetDictionary().GetStringTable()
		if typ, unit := strs[p.GetSampleType().GetTypeStrindex()], strs[p.GetSampleType().GetUnitStrindex()]; typ != "cpu" || unit != "nanoseconds" {
			t.Errorf("sample type %s/%s, want cpu/nanoseconds", typ, unit)
		}
		var event string
		for _, ai := range p.GetAttributeIndices() {
			a := req.GetDictionary().GetAttributeTable()[ai]
			if strs[a.GetKeyStrindex()] == AttrEvent {
				event = a.GetValue().GetStringValue()
			}
		}
		if event != "cpu-clock:pppH" {
			t.Errorf("profile attribute %s = %q, want the capture's event", AttrEvent, event)
		}
	}
}

// TestBuildMappings: the mapped files given land in the mapping table
// with their GNU build-ids; the zero mapping stays first.
func TestBuildMappings(t *testing.T) {
	s := testcapture.ReadStream(t, testcapture.Fold(t, "burst"))
	ms := []pprof.Mapping{{File: "/usr/bin/burst", BuildID: "0123abcd", Start: 0x1000, Limit: 0x2000}, {File: "[kernel.kallsyms]"}}
	b := pprof.NewBuilder(pprof.Options{Location: time.UTC, Mappings: ms})
	for _, m := range s.Metas {
		b.AddMeta(m)
	}
	for i := range s.Recs {
		if err := b.Add(&s.Recs[i]); err != nil {
			t.Fatal(err)
		}
	}
	req, _, err := Build(b, Options{})
	if err != nil {
		t.Fatal(err)
	}
	d := req.GetDictionary()
	if n := len(d.GetMappingTable()); n != 3 {
		t.Fatalf("%d mappings, want the zero one and 2", n)
	}
	m := d.GetMappingTable()[1]
	a := d.GetAttributeTable()[m.GetAttributeIndices()[0]]
	if d.GetStringTable()[m.GetFilenameStrindex()] != "/usr/bin/burst" || d.GetStringTable()[a.GetKeyStrindex()] != AttrBuildID ||
		a.GetValue().GetStringValue() != "0123abcd" || m.GetMemoryStart() != 0x1000 {
		t.Errorf("mapping 1: %v with %v", m, a)
	}
	if len(d.GetMappingTable()[2].GetAttributeIndices()) != 0 {
		t.Errorf("a mapping without a build-id has attributes")
	}
}

// TestNoWall: timed samples without a wall clock are refused: OTLP's
// timestamps are Unix time.
func TestNoWall(t *testing.T) {
	b := pprof.NewBuilder(pprof.Options{})
	rec := folded.Record{Stack: []byte("a;b"), Count: 1, Time: folded.Time(time.Second), Kind: folded.Timed}
	if err := b.Add(&rec); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Build(b, Options{}); err != ErrNoWall {
		t.Errorf("error %v, want ErrNoWall", err)
	}
}
