package pprof

import (
	"bytes"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/google/pprof/profile"

	"flamekit/pkg/folded"
)

// FuzzFromPprof feeds arbitrary bytes to the profile reader and the
// folded conversion: no panic, and whatever is accepted gives a folded
// stream that reads back with the summary's totals.
func FuzzFromPprof(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
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

// FuzzBuilder feeds folded text to the Builder: whatever reads as folded
// lines gives a profile that google/pprof parses and validates, whose
// weight total is the folded total rounded and whose samples/count total
// is the number of timed lines, at any resolution.
func FuzzBuilder(f *testing.F) {
	f.Add([]byte("a;b 10 @1.5\na;b 10 @1.5\na;c 3 @2\n"), int64(0), false)
	f.Add([]byte("a;b 0.5 @1\nb 0.5 @1.0001\n;; 7 @3\n"), int64(100e6), false)
	f.Add([]byte("x 9007199254740992 @0.5\nx 9007199254740992 @0.6\ny 1\n"), int64(1e9), true)
	f.Add([]byte("a;b 1 @-5.25\na;b 1 @-5.2\n"), int64(100e6), false)
	f.Fuzz(func(t *testing.T, data []byte, res int64, aggregate bool) {
		if res < 0 {
			res = -res
		}
		b := NewBuilder(Options{Resolution: time.Duration(res), Aggregate: aggregate, Location: time.UTC})
		rd := folded.NewReader(bytes.NewReader(data), "fuzz")
		rd.Lenient = true
		var total float64
		var timed int64
		classic := false
		for rd.Next() {
			rec := rd.Record()
			if err := b.Add(rec); err != nil {
				if rec.Kind == folded.Diff {
					continue
				}
				return // a sum beyond int64
			}
			total += rec.Count
			if rec.Kind == folded.Timed {
				timed++
			} else {
				classic = true
			}
		}
		for _, m := range rd.Meta() {
			b.AddMeta(m)
		}
		var buf bytes.Buffer
		if err := b.Write(&buf); err != nil {
			t.Fatal(err)
		}
		p, err := profile.Parse(&buf)
		if err != nil {
			t.Fatalf("our profile does not parse: %v", err)
		}
		var n, v int64
		for _, s := range p.Sample {
			v += s.Value[len(s.Value)-1]
			if !classic {
				n += s.Value[0]
			}
		}
		if total < 1<<52 && v != int64(math.Round(total)) || b.Stats().Value != v || !classic && n != timed {
			t.Fatalf("weight %d (stats %d), folded %v; samples %d, timed lines %d", v, b.Stats().Value, total, n, timed)
		}
		if aggregate || time.Duration(res) < MinCut {
			return
		}
		// Cut as the samples come, at the clock found: the same profile,
		// per stack, interval, CPU and thread.
		cut := NewBuilder(Options{Resolution: time.Duration(res), Location: time.UTC, Cut: b.Offset(), HasCut: true})
		rd = folded.NewReader(bytes.NewReader(data), "fuzz")
		rd.Lenient = true
		for rd.Next() {
			if err := cut.Add(rd.Record()); err != nil {
				return // a diff line, or a sample 24 days away
			}
		}
		for _, m := range rd.Meta() {
			cut.AddMeta(m)
		}
		if !cut.Fits() {
			t.Fatalf("cut at the clock's offset %d does not fit", b.Offset())
		}
		buf.Reset()
		if err := cut.Write(&buf); err != nil {
			t.Fatal(err)
		}
		q, err := profile.Parse(&buf)
		if err != nil {
			t.Fatalf("the cut profile does not parse: %v", err)
		}
		// (Fractions are rounded in the order samples are written: the
		// values may then move by one between samples.)
		want, got := byKey(p), byKey(q)
		exact := !hasFractions(data)
		for k, w := range want {
			if g := got[k]; len(g) != len(w) || exact && fmt.Sprint(g) != fmt.Sprint(w) {
				t.Fatalf("%s: %v, want %v", k, g, w)
			}
		}
		if len(got) != len(want) {
			t.Fatalf("%d keys, want %d", len(got), len(want))
		}
	})
}

// hasFractions reports whether some count of data has a fraction: its
// values are then rounded in the order samples are written.
func hasFractions(data []byte) bool {
	rd := folded.NewReader(bytes.NewReader(data), "fuzz")
	rd.Lenient = true
	for rd.Next() {
		if c := rd.Record().Count; c != math.Trunc(c) {
			return true
		}
	}
	return false
}
