package bpftrace

import (
	"bytes"
	"testing"

	"flamekit/pkg/folded"
)

// FuzzFold checks that no input makes Fold panic, that every record it
// emits is a valid folded line with a positive count up to 2^53, and that the
// entries and total it reports are those of the records.
func FuzzFold(f *testing.F) {
	f.Add([]byte("@[\n    f+1\n, \n    g+2\n, comm]: 3\n"), false, false, "")
	f.Add([]byte("@[, , swapper/0]: 7\n@k[]: 180\n"), true, false, "")
	f.Add([]byte("@[\n\t55d296d9413e 0x55d296d9413e ([unknown])\n, \n\tffffffff81000e06 f+22\n]: 1\n"), true, true, "")
	f.Add([]byte("@h: \n[4, 8) 1 |@|\n\n@str[a, b]: 3]: 182\n@m: 5\n"), false, false, "@str")
	f.Add([]byte("@[\nffffffff8133ca03\n, \n55d296d9413e\n, t]: 3\n"), true, true, "")
	f.Fuzz(func(t *testing.T, in []byte, kernel, addrs bool, mapName string) {
		var n int
		var total float64
		sum, err := Fold(bytes.NewReader(in), "fuzz", Options{Map: mapName, Kernel: kernel, Addrs: addrs}, func(rec *folded.Record) error {
			n++
			total += rec.Count
			if rec.Count <= 0 || rec.Count > folded.MaxCount {
				t.Fatalf("count %v", rec.Count)
			}
			if bytes.ContainsAny(rec.Stack, "\n") {
				t.Fatalf("newline in stack %q", rec.Stack)
			}
			line := folded.AppendRecord(nil, rec)
			var back folded.Record
			if err := folded.ParseLine(line[:len(line)-1], &back); err != nil {
				t.Fatalf("emitted line %q does not parse: %v", line, err)
			}
			if back.Kind != folded.Classic || !bytes.Equal(back.Stack, rec.Stack) || back.Count != rec.Count {
				t.Fatalf("emitted line %q reads back as %s %q %v", line, back.Kind, back.Stack, back.Count)
			}
			return nil
		})
		if err != nil {
			return
		}
		if sum.Entries != n || sum.Total != total {
			t.Fatalf("summary says %d entries, %v total; emitted %d, %v", sum.Entries, sum.Total, n, total)
		}
	})
}
