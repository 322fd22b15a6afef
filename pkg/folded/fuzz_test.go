package folded

import (
	"bytes"
	"testing"
)

// FuzzReader checks that no input panics the reader, and that read → write
// → read is the identity: what the Writer writes, the Reader reads back as
// the same records and metadata, each stack as the one escaping rule
// writes it (AppendStack: a classic stack read under a metadata line that
// says so may end in a blank and a number, which the writer escapes).
func FuzzReader(f *testing.F) {
	for _, s := range []string{
		"a;b;c 12\n", "a;b 10 20\n", "a 1 @1.5\n", timedSample, " 5\n", "d  3\n",
		"a;b 1\r\n", "\n\n", "x 12.\n", "# flamekit v1 timed\n", "@1 2 @3\n",
		"a\t1\tb 2\n", "\x00\xff 1\n",
		"a 1 @1.5 cpu=1 pid=2 tid=3\n", "a 1 @1.5 tid=-1 cpu=0\n", "a 1 @1 cpu=1 cpu=1\n",
		"# flamekit v1 classic\na;Evil 5 7\n", "# flamekit v1 timed x=\"1\"\na;Evil 5 7\na;Evil 5 7 @1\n",
		"a;Evil 5 7\n# flamekit v1 classic\na;Evil 5 7\n", "# flamekit v1 classic\na 99999999999999999999 7\n",
		"# flamekit v1 classic\n# flamekit v1 timed x 5\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		rd := NewReader(bytes.NewReader(data), "fuzz")
		rd.Lenient = true
		var buf bytes.Buffer
		w := NewWriter(&buf)
		var first []Record
		for rd.Next() {
			rec := *rd.Record()
			if rec.Count > MaxCount || rec.Before > MaxCount {
				t.Fatalf("count beyond 2^53 read: %q", rd.Text())
			}
			rec.Stack = bytes.Clone(rec.Stack)
			first = append(first, rec)
			w.Write(&rec)
		}
		if rd.Err() != nil {
			t.Fatalf("lenient reader failed: %v", rd.Err())
		}
		for i := range rd.Meta() {
			w.WriteMeta(&rd.Meta()[i])
		}
		w.Flush()

		rd2 := NewReader(bytes.NewReader(buf.Bytes()), "again")
		i := 0
		for rd2.Next() {
			got := rd2.Record()
			if i >= len(first) {
				t.Fatalf("second read has extra record %q", AppendRecord(nil, got))
			}
			want := first[i]
			stack, _ := AppendStack(nil, want.Stack, want.Kind)
			if !bytes.Equal(got.Stack, stack) || got.Kind != want.Kind || got.Time != want.Time ||
				got.Has != want.Has || got.CPU != want.CPU || got.PID != want.PID || got.TID != want.TID ||
				!sameCount(got.Count, want.Count) || !sameCount(got.Before, want.Before) {
				t.Fatalf("record %d changed: %q became %q", i, AppendRecord(nil, &want), AppendRecord(nil, got))
			}
			i++
		}
		if err := rd2.Err(); err != nil {
			t.Fatalf("writer output does not read back: %v\n%q", err, buf.Bytes())
		}
		if i != len(first) || len(rd2.Meta()) != len(rd.Meta()) {
			t.Fatalf("read back %d records and %d metadata lines, want %d and %d", i, len(rd2.Meta()), len(first), len(rd.Meta()))
		}
	})
}

// sameCount compares counts up to the 15 significant digits Perl (and so
// AppendCount) prints.
func sameCount(a, b float64) bool {
	return FormatCount(a) == FormatCount(b)
}

// FuzzParseMeta checks that metadata lines never panic the parser and that
// what parses writes back identically.
func FuzzParseMeta(f *testing.F) {
	f.Add([]byte(`# flamekit v1 timed host="vm" first="1.5"`))
	f.Add([]byte(`# flamekit v1 timed cmdline="a \"b\"\n"`))
	f.Add([]byte(`# flamekit v1 timed`))
	f.Add([]byte(`# flamekit v1 classic source="a.folded"`))
	f.Add([]byte(`# flamekit v1 classicx="1"`))
	f.Fuzz(func(t *testing.T, line []byte) {
		m, err := ParseMeta(line)
		if err != nil {
			return
		}
		out := AppendMeta(nil, &m)
		m2, err := ParseMeta(out[:len(out)-1])
		if err != nil || len(m2.Fields) != len(m.Fields) || m2.Classic != m.Classic {
			t.Fatalf("%q wrote back as %q, which does not parse the same: %v", line, out, err)
		}
		for i := range m.Fields {
			if m.Fields[i] != m2.Fields[i] {
				t.Fatalf("field %d changed: %v became %v", i, m.Fields[i], m2.Fields[i])
			}
		}
	})
}
