package top

import (
	"bytes"
	"io"
	"regexp"
	"testing"

	"flamekit/internal/testkit/testcapture"
	"flamekit/pkg/folded"
)

// BenchmarkTop measures reading real timed lines (the burst capture,
// repeated to about 10 MB) into a Counter and ranking them; MB/s is
// input bytes.
func BenchmarkTop(b *testing.B) {
	one := testcapture.Fold(b, "burst")
	in := bytes.Repeat(one, 10<<20/len(one)+1)
	for _, by := range []By{ByFunction, ByModule, ByComm} {
		b.Run(by.String(), func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			for b.Loop() {
				var c Counter
				rd := folded.NewReader(bytes.NewReader(in), "bench")
				for rd.Next() {
					c.Add(rd.Record())
				}
				if err := WriteText(io.Discard, c.Table(by, false), 10); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("peek", func(b *testing.B) {
		var c Counter
		rd := folded.NewReader(bytes.NewReader(one), "bench")
		for rd.Next() {
			c.Add(rd.Record())
		}
		re := regexp.MustCompile(`^do_syscall_64$`)
		b.ReportAllocs()
		for b.Loop() {
			c.Peek(ByFunction, re)
		}
	})
}
