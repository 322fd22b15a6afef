package otlp

import (
	"bytes"
	"math"
	"testing"
	"time"

	"flamekit/pkg/folded"
	"flamekit/pkg/interop/pprof"
)

// FuzzBuild: any folded text that a pprof Builder takes makes a request
// that encodes, decodes with the proto package, and holds the same total,
// one value and one timestamp per timed sample.
func FuzzBuild(f *testing.F) {
	f.Add([]byte("# flamekit v1 timed host=\"h\" captured-on=\"Sun Nov 22 02:24:54 2026\" event=\"cpu-clock:pppH\"\na;b 10309278 @1.5 cpu=1 pid=7 tid=8\na;c 10309278 @1.6\n"))
	f.Add([]byte("a;b 3\nc 2\n"))
	f.Add([]byte("x;y 1.25 @0.000001 cpu=0 tid=0\nx;y 2.5 @0.000001 cpu=0 tid=0\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		rd := folded.NewReader(bytes.NewReader(in), "fuzz")
		wall := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
		b := pprof.NewBuilder(pprof.Options{Ref: &folded.WallRef{Wall: wall, Exact: true}, Resolution: DefaultResolution})
		var total float64
		for rd.Next() {
			r := rd.Record()
			if r.Kind == folded.Diff {
				continue
			}
			if err := b.Add(r); err != nil {
				return
			}
			total += r.Count
		}
		for _, m := range rd.Meta() {
			b.AddMeta(m)
		}
		req, st, err := Build(b, Options{Service: "s", Split: time.Second})
		if err != nil {
			return
		}
		body, err := Marshal(req)
		if err != nil {
			t.Fatal(err)
		}
		back, err := Unmarshal(body)
		if err != nil {
			t.Fatal(err)
		}
		var sum int64
		for _, rp := range back.GetResourceProfiles() {
			for _, sp := range rp.GetScopeProfiles() {
				for _, p := range sp.GetProfiles() {
					for _, s := range p.GetSamples() {
						if len(s.GetValues()) != 1 || len(s.GetTimestampsUnixNano()) > 1 {
							t.Fatalf("sample with %d values, %d timestamps", len(s.GetValues()), len(s.GetTimestampsUnixNano()))
						}
						if int(s.GetStackIndex()) >= len(back.GetDictionary().GetStackTable()) {
							t.Fatalf("stack index %d out of the table", s.GetStackIndex())
						}
						sum += s.GetValues()[0]
					}
				}
			}
		}
		if sum != st.Value || math.Abs(float64(sum)-total) > 1 && total < 1<<52 {
			t.Fatalf("total %d, the builder %d, the input %v", sum, st.Value, total)
		}
	})
}
