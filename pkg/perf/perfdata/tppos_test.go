package perfdata

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"flamekit/pkg/perf/sample"
)

// blockFormats returns the format files of block events (kernel 6.18,
// the block capture's), by event name, from the tracefs tree of
// testdata: fields printed by position, around a "+" but for
// block_split's.
func blockFormats(t testing.TB) map[string]string {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join("testdata", "tracefs", "events", "block", "*"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no block event in testdata/tracefs: %v", err)
	}
	formats := make(map[string]string)
	for _, dir := range dirs {
		b, err := os.ReadFile(filepath.Join(dir, "format"))
		if err != nil {
			t.Fatal(err)
		}
		formats[filepath.Base(dir)] = string(b)
	}
	return formats
}

// blockRecord returns a record of tp with the fields of vals: numbers
// (uint64; for a __data_loc field, its location word) and strings, a
// __data_loc string after the fixed fields.
func blockRecord(tp *tpFormat, vals map[string]any) []byte {
	end := 0
	for _, fd := range tp.fields {
		end = max(end, fd.offset+fd.size)
	}
	raw := make([]byte, end)
	for _, fd := range tp.fields {
		v, ok := vals[fd.name]
		if !ok {
			continue
		}
		switch v := v.(type) {
		case uint64:
			for i := range fd.size {
				raw[fd.offset+i] = byte(v >> (8 * i))
			}
		case string:
			if !fd.dynamic {
				copy(raw[fd.offset:fd.offset+fd.size], v)
				continue
			}
			loc := uint32(len(v)+1)<<16 | uint32(len(raw))
			for i := range 4 {
				raw[fd.offset+i] = byte(loc >> (8 * i))
			}
			raw = append(append(raw, v...), 0)
		}
	}
	return raw
}

// blockRecords are records of the block events, real-looking and odd:
// strings that break the token model (blanks, a "+", an empty rwbs, a
// multibyte blank around an empty cmd), a sector perf prints beyond int64,
// a cmd out of the record (printed as name=value fields, comm "a + 5").
var blockRecords = map[string]map[string]any{
	"issue":      {"dev": uint64(254<<20 | 3), "sector": uint64(321615200), "nr_sector": uint64(8), "bytes": uint64(4096), "ioprio": uint64(0x4004), "rwbs": "WS", "comm": "dd", "cmd": ""},
	"cmd":        {"sector": uint64(7), "nr_sector": uint64(1), "bytes": uint64(512), "rwbs": "R", "comm": "sg_inq", "cmd": "12 00 00 00 24 00"},
	"cmdplus":    {"sector": uint64(7), "nr_sector": uint64(1), "bytes": uint64(512), "rwbs": "R", "comm": "x", "cmd": "a + 5"},
	"rwbsempty":  {"sector": uint64(7), "nr_sector": uint64(3), "bytes": uint64(512), "rwbs": "", "comm": "x"},
	"rwbsblank":  {"sector": uint64(7), "nr_sector": uint64(3), "bytes": uint64(512), "rwbs": "W S", "comm": "x"},
	"rwbsplus":   {"sector": uint64(7), "nr_sector": uint64(3), "bytes": uint64(512), "rwbs": "+", "comm": "+"},
	"commblank":  {"sector": uint64(9), "nr_sector": uint64(2), "bytes": uint64(1024), "rwbs": "F", "comm": "a + b"},
	"nbsp":       {"sector": uint64(9), "nr_sector": uint64(2), "bytes": uint64(1024), "rwbs": "W\xc2\xa0S", "comm": "\xc2\xa0"},
	"nosector":   {"sector": ^uint64(0), "nr_sector": uint64(0), "bytes": uint64(0), "rwbs": "FF", "comm": "kworker/0:1H"},
	"bigsector":  {"sector": uint64(1) << 63, "nr_sector": ^uint64(0), "bytes": ^uint64(0), "rwbs": "N", "comm": "x"},
	"zero":       {},
	"badcmd":     {"sector": uint64(5), "nr_sector": uint64(4), "bytes": uint64(2048), "rwbs": "W", "comm": "a + 5", "cmd": uint64(0xfff0fff0)},
	"controlchr": {"sector": uint64(1), "nr_sector": uint64(1), "bytes": uint64(1), "rwbs": "\x01", "comm": "\t"},
}

// TestTracePositionEdges: what the rules read by position from records
// of the block events, odd ones included, is what they read from the
// printed payload (traceDiffs reads every position).
func TestTracePositionEdges(t *testing.T) {
	for name, format := range blockFormats(t) {
		tp := parseFormat("block", format)
		if tp == nil || tp.prog == nil || tp.show.pos == nil {
			t.Fatalf("%s: format not understood", name)
		}
		for rn, vals := range blockRecords {
			raw := blockRecord(tp, vals)
			for _, cut := range []int{len(raw), 40, 0} {
				s := sample.Sample{Event: []byte("block:" + name), Trace: sample.Trace{Format: tp, Raw: raw[:min(cut, len(raw))]}}
				text := s.AppendPayload(nil)
				for _, d := range traceDiffs(&s, text) {
					t.Errorf("%s, record %s cut at %d (%q): %s", name, rn, cut, text, d)
				}
			}
		}
	}
}

// TestTracePositionTyped: the block events' fields of the real captures
// are read from their records, never printed, and their token models are
// those of the print formats: sector and nr_sector around the "+" token,
// bytes third in block_rq_issue.
func TestTracePositionTyped(t *testing.T) {
	issue := parseFormat("block", blockFormats(t)["block_rq_issue"])
	m := issue.show.pos
	if m.plus != 5 || len(m.tokens) != 9 {
		t.Fatalf("block_rq_issue: \"+\" token %d of %d tokens, want 5 of 9", m.plus, len(m.tokens))
	}
	for i, want := range map[int]string{2: "bytes", 4: "sector", 6: "nr_sector"} {
		if c := m.tokens[i].conv; c < 0 || !fieldsOf(issue.prog.segs[c].arg, want) {
			t.Errorf("block_rq_issue: token %d is not the conversion of %s alone", i, want)
		}
	}
	for _, capture := range []string{"block", "tpfields"} {
		r, _ := openCapture(t, capture)
		n := map[string]int{}
		for r.Next() {
			s := r.Head()
			if s.Trace.Format == nil {
				continue
			}
			tp := s.Trace.Format.(*tpFormat)
			for _, field := range []string{"sector", "nr_sector", "bytes"} {
				p, ok := sample.BlockPosition(s.Event, field)
				if !ok {
					continue
				}
				if _, _, typed := tp.position(&s.Trace, p); !typed {
					t.Errorf("%s: %s of %s (%s) is printed to be read", capture, field, s.Event, s.AppendPayload(nil))
				}
				n[string(s.Event)+" "+field]++
			}
			for _, p := range positions {
				if _, _, typed := tp.position(&s.Trace, p); !typed && bytes.HasPrefix(s.Event, []byte("block:")) {
					t.Errorf("%s: position %+v of %s (%s) is printed to be read", capture, p, s.Event, s.AppendPayload(nil))
				}
			}
		}
		if len(n) == 0 {
			t.Fatalf("%s: no block sample", capture)
		}
		t.Logf("%s: typed reads %v", capture, n)
	}
}

// fieldsOf reports whether node n reads field name (and no other).
func fieldsOf(n *node, name string) bool {
	ok, any := true, false
	walkFields(n, func(fd *tpField) { ok, any = ok && fd.name == name, true })
	return ok && any
}

// BenchmarkTracePositions reads what --weight bytes, sector and
// nr_sector read of each sample of the block capture (sector and
// nr_sector of every block event, absent from block_plug, block_unplug and
// block_split, which print no "+"; bytes too in block_rq_issue and
// block_rq_insert): from the
// record ("typed"), and by printing the payload and reading its tokens,
// as before ("text").
func BenchmarkTracePositions(b *testing.B) {
	r, _ := openCapture(b, "block")
	type read struct {
		s  sample.Sample
		ps []sample.Position // the fields the rules read of its event
	}
	var reads []read
	for r.Next() {
		s := r.Head()
		rd := read{s: sample.Sample{Event: bytes.Clone(s.Event), Trace: sample.Trace{Format: s.Trace.Format, Raw: bytes.Clone(s.Trace.Raw)}}}
		for _, f := range []string{"bytes", "sector", "nr_sector"} {
			if p, ok := sample.BlockPosition(s.Event, f); ok {
				rd.ps = append(rd.ps, p)
			}
		}
		reads = append(reads, rd)
	}
	b.Run("typed", func(b *testing.B) {
		for b.Loop() {
			for i := range reads {
				for _, p := range reads[i].ps {
					reads[i].s.PositionInt(p)
				}
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(reads)), "ns/sample")
	})
	b.Run("text", func(b *testing.B) {
		var buf []byte
		for b.Loop() {
			for i := range reads {
				for _, p := range reads[i].ps {
					buf = reads[i].s.AppendPayload(buf[:0])
					p.Int(buf)
				}
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(reads)), "ns/sample")
	})
}
