package pprof

import (
	"fmt"
	"io"
	"runtime"
	"testing"
	"time"

	"flamekit/internal/testkit/testcapture"
	"flamekit/pkg/folded"
)

// BenchmarkWrite builds and writes the profile of the real burst capture
// repeated (times shifted by 30 s a copy, as a long capture), with every
// stack the capture's own (burst) or each sample's stack made distinct by
// a leaf of its own (distinct), at a few resolutions. It reports the heap
// in use once every record is added (B/record) and the profile's size
// (out-B/record).
func BenchmarkWrite(b *testing.B) {
	in := testcapture.ReadStream(b, collapse(b, "burst"))
	const copies = 64
	for _, tc := range []struct {
		name     string
		distinct bool
		res      time.Duration
	}{
		{"burst/1ns", false, 1},
		{"burst/100ms", false, 100 * time.Millisecond},
		{"burst/1s", false, time.Second},
		{"distinct/100ms", true, 100 * time.Millisecond},
	} {
		recs := make([]folded.Record, 0, copies*len(in.Recs))
		for k := range copies {
			for i, r := range in.Recs {
				r.Time += folded.Time(k) * 30e9
				if tc.distinct {
					r.Stack = fmt.Appendf(append([]byte(nil), r.Stack...), ";uniq_%d_%d", k, i)
				}
				recs = append(recs, r)
			}
		}
		b.Run(tc.name, func(b *testing.B) {
			var heap, out float64
			for b.Loop() {
				bl := NewBuilder(Options{Resolution: tc.res, Location: time.UTC})
				for _, m := range in.Metas {
					bl.AddMeta(m)
				}
				var before runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				for i := range recs {
					if err := bl.Add(&recs[i]); err != nil {
						b.Fatal(err)
					}
				}
				var after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&after)
				heap = float64(after.HeapAlloc) - float64(before.HeapAlloc)
				var cw countingWriter
				if err := bl.Write(&cw); err != nil {
					b.Fatal(err)
				}
				out = float64(cw)
			}
			b.ReportMetric(heap/float64(len(recs)), "B/record")
			b.ReportMetric(out/float64(len(recs)), "out-B/record")
		})
	}
}

type countingWriter int64

func (c *countingWriter) Write(p []byte) (int, error) {
	*c += countingWriter(len(p))
	return len(p), nil
}

var _ io.Writer = (*countingWriter)(nil)
