package top

import (
	"bytes"
	"encoding/json"
	"math"
	"regexp"
	"testing"

	"flamekit/pkg/folded"
)

// FuzzTop: random lines never panic; flat adds up to the total, cum is
// between flat and the total, a call never counts more than either end's
// cum, and every writer writes (valid JSON for JSON).
func FuzzTop(f *testing.F) {
	for _, s := range []string{
		"p;a;b 3\np;a;a;a 2 @1\np;b;a;b 1\n",
		"dd;read_[k] 1\ndd;[libc.so.6 <7f01>] 2\n",
		"p;a 10 4\np;b 0 6\n",
		"a 1.5\n;; 2\n 3\n",
	} {
		f.Add([]byte(s), uint8(0), "a|b")
	}
	f.Fuzz(func(t *testing.T, data []byte, byN uint8, re string) {
		by := By(byN % 3)
		var c Counter
		rd := folded.NewReader(bytes.NewReader(data), "fuzz")
		rd.Lenient = true
		var sumAbs float64
		for rd.Next() {
			c.Add(rd.Record())
			sumAbs += rd.Record().Count + rd.Record().Before
		}
		if math.IsInf(sumAbs, 0) {
			return // sums beyond float64: nothing to check exactly
		}
		eps := 1e-9 * (sumAbs + 1)
		tab := c.Table(by, byN&4 != 0)
		var flat float64
		seen := map[string]bool{}
		for _, r := range tab.Rows {
			if seen[r.Name] {
				t.Fatalf("row %q twice", r.Name)
			}
			seen[r.Name] = true
			flat += r.Flat
			if r.Cum < r.Flat-eps || r.Cum > tab.Total+eps || r.CumBefore > tab.TotalBefore+eps {
				t.Fatalf("row %+v outside [flat, total %v]", r, tab.Total)
			}
		}
		if math.Abs(flat-tab.Total) > eps {
			t.Fatalf("flat adds up to %v, total %v", flat, tab.Total)
		}
		var out bytes.Buffer
		for _, w := range []func() error{
			func() error { return WriteText(&out, tab, int(byN)) },
			func() error { return WriteCSV(&out, tab, 0) },
		} {
			if err := w(); err != nil {
				t.Fatal(err)
			}
		}
		out.Reset()
		if err := WriteJSON(&out, tab, 0); err != nil || !json.Valid(out.Bytes()) {
			t.Fatalf("JSON (err %v):\n%s", err, out.Bytes())
		}
		rx, err := regexp.Compile(re)
		if err != nil {
			return
		}
		entries := c.Peek(by, rx)
		cum := map[string]float64{}
		for _, r := range tab.Rows {
			cum[r.Name] = r.Cum
		}
		for _, e := range entries {
			for _, x := range append(append([]Edge{}, e.Callers...), e.Callees...) {
				if x.Count > e.Cum+eps || x.Count > cum[x.Name]+eps || x.Name == e.Name {
					t.Fatalf("%q: call %+v beyond cum %v/%v, or to itself", e.Name, x, e.Cum, cum[x.Name])
				}
			}
		}
		out.Reset()
		if err := WritePeekText(&out, tab, entries); err != nil {
			t.Fatal(err)
		}
		if err := WritePeekCSV(&out, tab, entries); err != nil {
			t.Fatal(err)
		}
		out.Reset()
		if err := WritePeekJSON(&out, tab, entries); err != nil || !json.Valid(out.Bytes()) {
			t.Fatalf("peek JSON (err %v):\n%s", err, out.Bytes())
		}
	})
}
