package pprof

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"flamekit/pkg/folded"
	decoded "flamekit/pkg/interop/pprof/profile"
)

// converterStyle builds a profile shaped as Google's perf_data_converter
// writes them (hand-made here: the converter is not packaged for this
// machine): sample types event/count, per-sample pid, tid and
// timestamp_ns number labels, mappings with addresses, an unsymbolized
// frame and a location with an inlined function.
func converterStyle(ts []int64) *profile.Profile {
	libc := &profile.Mapping{ID: 1, Start: 0x7f0000000000, Limit: 0x7f0000200000, File: "/usr/lib/x86_64-linux-gnu/libc.so.6"}
	app := &profile.Mapping{ID: 2, Start: 0x400000, Limit: 0x500000, File: "/opt/app/server"}
	fMain := &profile.Function{ID: 1, Name: "main", SystemName: "main"}
	fWork := &profile.Function{ID: 2, Name: "work(int)", SystemName: "_Z4worki"}
	fInl := &profile.Function{ID: 3, Name: "std::max<int>", SystemName: "_ZSt3maxIiE"}
	fSemi := &profile.Function{ID: 4, Name: "odd;name", SystemName: ""}
	lMain := &profile.Location{ID: 1, Mapping: app, Address: 0x401000, Line: []profile.Line{{Function: fMain, Line: 10}}}
	lWork := &profile.Location{ID: 2, Mapping: app, Address: 0x402000, Line: []profile.Line{{Function: fInl, Line: 3}, {Function: fWork, Line: 20}}}
	lLibc := &profile.Location{ID: 3, Mapping: libc, Address: 0x7f0000001234}
	lBare := &profile.Location{ID: 4, Address: 0xdead}
	lSemi := &profile.Location{ID: 5, Mapping: app, Address: 0x403000, Line: []profile.Line{{Function: fSemi}}}
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "event", Unit: "count"}, {Type: "event", Unit: "lost"}},
		PeriodType: &profile.ValueType{Type: "event", Unit: "count"},
		Mapping:    []*profile.Mapping{libc, app},
		Location:   []*profile.Location{lMain, lWork, lLibc, lBare, lSemi},
		Function:   []*profile.Function{fMain, fWork, fInl, fSemi},
	}
	stacks := [][]*profile.Location{{lWork, lMain}, {lLibc, lWork, lMain}, {lBare}, {lSemi, lMain}}
	for i, t := range ts {
		p.Sample = append(p.Sample, &profile.Sample{
			Location: stacks[i%len(stacks)],
			Value:    []int64{int64(1000 + i), 0},
			NumLabel: map[string][]int64{"pid": {42}, "tid": {43}, "timestamp_ns": {t}},
		})
	}
	// An untimed sample, and one with value 0.
	p.Sample = append(p.Sample,
		&profile.Sample{Location: stacks[0], Value: []int64{7, 0}},
		&profile.Sample{Location: stacks[1], Value: []int64{0, 1}})
	return p
}

func TestForeignProfiles(t *testing.T) {
	tests := []struct {
		name      string
		ts        []int64
		sel       string
		wantClock string
		want      string // folded output without metadata
		wantMeta  string
	}{
		{
			name:      "perf clock",
			ts:        []int64{413417927000, 413428210000, 413400000000, 413438493123},
			wantClock: "perf",
			sel:       "0",
			want: `[unknown] 1002 @413.400000 pid=42 tid=43
main;work(int);std::max<int> 1000 @413.417927 pid=42 tid=43
main;work(int);std::max<int>;[libc.so.6] 1001 @413.428210 pid=42 tid=43
main;odd:name 1003 @413.438493123 pid=42 tid=43
main;work(int);std::max<int> 7
`,
			wantMeta: `# flamekit v1 timed first="413.400000" last="413.438493123" source="conv.pb" pprof-type="event" pprof-unit="count"`,
		},
		{
			name:      "wall clock",
			ts:        []int64{1795314277825849327, 1795314278825849327},
			sel:       "event",
			wantClock: "realtime",
			want: `main;work(int);std::max<int> 1000 @1795314277.825849327 pid=42 tid=43
main;work(int);std::max<int>;[libc.so.6] 1001 @1795314278.825849327 pid=42 tid=43
main;work(int);std::max<int> 7
`,
			wantMeta: `# flamekit v1 timed first="1795314277.825849327" last="1795314278.825849327" clockid="realtime" source="conv.pb" pprof-type="event" pprof-unit="count"`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := converterStyle(tc.ts)
			var enc bytes.Buffer
			if err := p.WriteUncompressed(&enc); err != nil {
				t.Fatal(err)
			}
			q, err := Read(&enc, "conv.pb")
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			sum, err := ToFolded(&out, q, ReadOptions{SampleType: tc.sel, Name: "conv.pb"})
			if err != nil {
				t.Fatal(err)
			}
			meta, body, _ := strings.Cut(out.String(), "\n")
			if body != tc.want {
				t.Errorf("got:\n%s\nwant:\n%s", body, tc.want)
			}
			if meta != tc.wantMeta {
				t.Errorf("meta:\n%s\nwant:\n%s", meta, tc.wantMeta)
			}
			if sum.Clock != tc.wantClock || sum.Zero != 1 || sum.Type != (Weight{"event", "count"}) {
				t.Errorf("summary %+v", sum)
			}
			// The wall-clock stream reads back as timeslice reads it: an
			// exact realtime clock.
			rd := folded.NewReader(strings.NewReader(out.String()), "x")
			for rd.Next() {
			}
			m := rd.Meta()[0]
			if r, ok := folded.RefFromMeta(&m, 0, 0, false, nil); tc.wantClock == "realtime" && (!ok || !r.Exact) {
				t.Errorf("realtime stream has no exact clock: %+v", r)
			}
		})
	}
}

func TestPick(t *testing.T) {
	p := &decoded.Profile{SampleType: []*decoded.ValueType{{Type: "alloc_objects"}, {Type: "alloc_space"}, {Type: "inuse_objects"}, {Type: "inuse_space"}}}
	tests := []struct {
		sel, def string
		want     int
		err      bool
	}{
		{"", "", 3, false},
		{"", "alloc_space", 1, false},
		{"", "nonesuch", 3, false},
		{"inuse_objects", "", 2, false},
		{"0", "", 0, false},
		{"4", "", 0, true},
		{"cpu", "", 0, true},
	}
	for _, tc := range tests {
		p.DefaultSampleType = tc.def
		got, err := Pick(p, tc.sel)
		if got != tc.want || (err != nil) != tc.err {
			t.Errorf("Pick(%q) with default %q = %d, %v", tc.sel, tc.def, got, err)
		}
	}
}

func TestReadErrors(t *testing.T) {
	good := converterStyle([]int64{1})
	var gz bytes.Buffer
	if err := good.Write(&gz); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "empty profile"},
		{"perf script text", []byte("swapper     0 [000] 413.417927: cpu-clock:\n"), "not a valid profile.proto"},
		{"truncated gzip", gz.Bytes()[:gz.Len()/2], "truncated"},
		{"bad gzip", []byte{0x1f, 0x8b, 1, 2, 3}, "gzip"},
	}
	for _, tc := range tests {
		_, err := Read(bytes.NewReader(tc.data), "in.pb")
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "in.pb: ") {
			t.Errorf("%s: err %v, want one naming in.pb and saying %q", tc.name, err, tc.want)
		}
	}
}

// TestBigValues: a pprof value beyond 2^53, which no folded count holds
// exactly, is skipped and counted, never rounded; 2^53 is kept exactly.
func TestBigValues(t *testing.T) {
	fn := &profile.Function{ID: 1, Name: "f"}
	loc := &profile.Location{ID: 1, Line: []profile.Line{{Function: fn}}}
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "alloc_space", Unit: "bytes"}},
		Location:   []*profile.Location{loc},
		Function:   []*profile.Function{fn},
		Sample: []*profile.Sample{
			{Location: []*profile.Location{loc}, Value: []int64{1 << 53}},
			{Location: []*profile.Location{loc}, Value: []int64{1<<53 + 1}},
			{Location: []*profile.Location{loc}, Value: []int64{math.MaxInt64}},
		},
	}
	var out bytes.Buffer
	_, q := encode(t, p)
	sum, err := ToFolded(&out, q, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Big != 2 || sum.Samples != 1 || sum.Total != 1<<53 || !strings.HasSuffix(out.String(), "\nf 9007199254740992\n") {
		t.Errorf("summary %+v, folded %q", sum, out.String())
	}
}
