package pprof

import (
	"bytes"
	"testing"

	"flamekit/pkg/folded"
)

// FuzzFromPprof feeds arbitrary bytes to Sniff, the profile reader and the
// folded conversion: no panic, and whatever is accepted gives a folded
// stream that reads back with the summary's totals.
func FuzzFromPprof(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		Sniff(data[:min(len(data), SniffSize)])
		p, err := Parse(data, "fuzz")
		if err != nil {
			return
		}
		var out bytes.Buffer
		sum, err := ToFolded(&out, p, ReadOptions{Name: "fuzz"})
		if err != nil {
			return
		}
		rd := folded.NewReader(&out, "out")
		var n int64
		var total float64
		for rd.Next() {
			n++
			total += rd.Record().Count
		}
		if err := rd.Err(); err != nil {
			t.Fatalf("our folded output does not read back: %v\n%s", err, out.String())
		}
		if total != sum.Total {
			t.Fatalf("folded total %v, summary %v", total, sum.Total)
		}
	})
}
