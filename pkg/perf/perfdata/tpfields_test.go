package perfdata

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"flamekit/internal/testkit/golden"
	"flamekit/pkg/perf/sample"
)

// traceCaptures are the real captures of testdata with tracepoint
// samples. newKernel marks a capture whose kernel's symbols are not
// committed: its %pS arguments print as addresses here, not as perf
// printed them.
var traceCaptures = []struct {
	name      string
	newKernel bool
}{{"sched", false}, {"tracepoints", false}, {"tpfields", true}, {"block", true}}

// scriptHeads returns the header lines of perf script text, one per
// sample, in order.
func scriptHeads(text []byte) []string {
	var heads []string
	for _, line := range strings.Split(string(text), "\n") {
		if line == "" || line[0] == '#' || line[0] == '\t' {
			continue
		}
		heads = append(heads, line)
	}
	return heads
}

// payloadNames returns the names a payload shows as "name=" or "name:".
var payloadName = regexp.MustCompile(`(?:^| )([A-Za-z0-9_]+)[=:]`)

// fieldNames returns the names the rules may ask of a sample of tp with
// payload text: those the payload shows, those of the format, and some
// it has not.
func fieldNames(tp *tpFormat, text []byte) []string {
	var names []string
	for _, m := range payloadName.FindAllSubmatch(text, -1) {
		names = append(names, string(m[1]))
	}
	for _, list := range [][]tpField{tp.fields, tp.common} {
		for _, fd := range list {
			names = append(names, fd.name)
		}
	}
	names = append(names, "nosuchfield", "", "ns")
	slices.Sort(names)
	return slices.Compact(names)
}

// traceDiffs returns how the reads of s's Trace differ from those of the
// payload text: Int and Word of every name fieldNames gives.
func traceDiffs(s *sample.Sample, text []byte) []string {
	tp := s.Trace.Format.(*tpFormat)
	txt := sample.Sample{Event: s.Event, Payload: text}
	var diffs []string
	for _, name := range fieldNames(tp, text) {
		n1, f1, ok1 := s.Int(name)
		n2, f2, ok2 := txt.Int(name)
		if n1 != n2 || f1 != f2 || ok1 != ok2 {
			diffs = append(diffs, fmt.Sprintf("Int(%q) = %d, %q, %v; the text gives %d, %q, %v", name, n1, f1, ok1, n2, f2, ok2))
		}
		w1, ok1 := s.Word([]byte("x"), name)
		w2, ok2 := txt.Word([]byte("x"), name)
		if !bytes.Equal(w1, w2) || ok1 != ok2 {
			diffs = append(diffs, fmt.Sprintf("Word(%q) = %q, %v; the text gives %q, %v", name, w1[1:], ok1, w2[1:], ok2))
		}
	}
	// The fields read by position (the block events'), and every
	// position around the first "+" and from the start, of any event.
	for _, p := range positions {
		n1, ok1 := s.PositionInt(p)
		n2, ok2 := txt.PositionInt(p)
		if n1 != n2 || ok1 != ok2 {
			diffs = append(diffs, fmt.Sprintf("PositionInt(%+v) = %d, %v; the text gives %d, %v", p, n1, ok1, n2, ok2))
		}
	}
	return diffs
}

// positions are the positions traceDiffs reads: those of the block
// events' fields (sample.BlockPosition) and more.
var positions = func() []sample.Position {
	var ps []sample.Position
	for i := -3; i <= 3; i++ {
		ps = append(ps, sample.Position{Index: i, FromPlus: true})
	}
	for i := -1; i <= 8; i++ {
		ps = append(ps, sample.Position{Index: i})
	}
	return ps
}()

// TestTraceAgreesWithText reads every tracepoint sample of the real
// captures and checks that what the rules read from its record (Int,
// Word: every field its payload shows, every field of its format) is what
// they read from the payload perf script printed, and that the payload
// printed on demand is perf script's; the same for the samples kept in a
// Samples batch and read back.
func TestTraceAgreesWithText(t *testing.T) {
	for _, c := range traceCaptures {
		t.Run(c.name, func(t *testing.T) {
			script, err := golden.Read(filepath.Join("testdata", c.name+".script.gz"))
			if err != nil {
				t.Fatal(err)
			}
			heads := scriptHeads(script)
			path := extract(t, c.name, script)
			sy := byBuildID{Resolver: committedResolver(t), kernelFromText: c.newKernel}
			r, err := Open(path, Options{Symbolizer: sy, AllowForeign: true})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			var kept Samples
			var texts [][]byte
			var ks sample.Sample
			checkKept := func() {
				for i := range kept.Len() {
					kept.Sample(i, &ks)
					for _, d := range traceDiffs(&ks, texts[i]) {
						t.Errorf("kept sample %s: %s", ks.Event, d)
					}
				}
				kept.Reset()
				texts = texts[:0]
			}
			perEvent := map[string]int{}
			i, errs := 0, 0
			for r.Next() {
				s := r.Sample()
				if i >= len(heads) {
					t.Fatalf("more samples than perf script printed (%d)", len(heads))
				}
				head := heads[i]
				i++
				if s.Trace.Format == nil {
					continue
				}
				ev := string(s.Event)
				k := strings.Index(head, " "+ev+": ")
				if k < 0 {
					t.Fatalf("sample %d is %s, perf script printed %q", i, ev, head)
				}
				text := []byte(head[k+len(ev)+3:])
				ours := s.AppendPayload(nil)
				tp := s.Trace.Format.(*tpFormat)
				if c.newKernel && tp.prog != nil && tp.prog.funcs > 0 {
					text = ours // its kernel symbols are not here
				}
				if !bytes.Equal(ours, text) && errs < 10 {
					errs++
					t.Errorf("sample %d (%s): payload\n%s\nperf script printed\n%s", i, ev, ours, text)
				}
				for _, d := range traceDiffs(s, text) {
					if errs < 10 {
						errs++
						t.Errorf("sample %d (%s: %s): %s", i, ev, text, d)
					}
				}
				perEvent[ev]++
				r.Keep(&kept)
				texts = append(texts, text)
				if kept.Len() == 64 {
					checkKept()
				}
			}
			checkKept()
			if err := r.Err(); err != nil {
				t.Fatal(err)
			}
			if i != len(heads) {
				t.Errorf("%d samples, perf script printed %d", i, len(heads))
			}
			if len(perEvent) == 0 {
				t.Fatal("no tracepoint sample")
			}
			t.Logf("tracepoint samples checked: %v", perEvent)
		})
	}
}

// TestTraceField reads typed fields of real samples: numbers as the
// record holds them (a prev_state of 0x100 that perf prints "R+", a
// gfp_flags it prints GFP_KERNEL), strings of char arrays and of
// __data_loc fields, common fields.
func TestTraceField(t *testing.T) {
	type want struct {
		field string
		int   int64
		bytes string // a string field
		none  bool   // no such field
	}
	tests := []struct {
		capture, event string
		nth            int    // the nth sample of event, from 1
		text           string // a part of what perf script printed, to check the sample
		want           []want
	}{
		{"sched", "sched:sched_switch", 1, "prev_state=",
			[]want{{field: "common_type", int: 0}, {field: "nosuch", none: true}}},
		{"tpfields", "sched:sched_switch", 1, "prev_comm=perf prev_pid=14827 prev_prio=120 prev_state=D ==> next_comm=migration/0 next_pid=18 next_prio=0",
			[]want{{field: "prev_comm", bytes: "perf"}, {field: "prev_pid", int: 14827}, {field: "prev_prio", int: 120},
				{field: "prev_state", int: 2}, {field: "next_comm", bytes: "migration/0"}, {field: "next_pid", int: 18},
				{field: "next_prio", int: 0}, {field: "common_pid", int: 14827}}},
		{"tracepoints", "kmem:kmalloc", 1, "call_site=sched_setaffinity+0x127 ptr=0xffff8881042ddf00 bytes_req=32 bytes_alloc=32 gfp_flags=GFP_KERNEL node=-1 accounted=false",
			[]want{{field: "ptr", int: -0x777efbd22100}, {field: "bytes_req", int: 32}, {field: "bytes_alloc", int: 32},
				{field: "gfp_flags", int: 0xcc0}, {field: "node", int: -1}, {field: "accounted", none: true}}},
		{"tracepoints", "sched:sched_process_exec", 1, "filename=/usr/bin/ls pid=10910 old_pid=10910",
			[]want{{field: "filename", bytes: "/usr/bin/ls"}, {field: "pid", int: 10910}, {field: "old_pid", int: 10910}}},
		{"tracepoints", "sched:sched_wakeup", 1, "comm=migration/0 pid=18 prio=0 target_cpu=000",
			[]want{{field: "comm", bytes: "migration/0"}, {field: "pid", int: 18}, {field: "target_cpu", int: 0}}},
		{"tracepoints", "irq:softirq_entry", 1, "vec=7 [action=SCHED]",
			[]want{{field: "vec", int: 7}, {field: "action", none: true}}},
	}
	for _, tc := range tests {
		t.Run(tc.capture+"/"+tc.event, func(t *testing.T) {
			r, script := openCapture(t, tc.capture)
			heads := scriptHeads(script)
			n, i := 0, 0
			for r.Next() {
				i++
				s := r.Head()
				if string(s.Event) != tc.event {
					continue
				}
				if n++; n < tc.nth {
					continue
				}
				if !strings.Contains(heads[i-1], tc.text) {
					t.Fatalf("perf script printed %q, not %q", heads[i-1], tc.text)
				}
				for _, w := range tc.want {
					v, ok := s.Trace.Field(w.field)
					switch {
					case w.none:
						if ok {
							t.Errorf("Field(%q) = %+v, want none", w.field, v)
						}
					case w.bytes != "":
						if !ok || !v.IsBytes || string(v.Bytes) != w.bytes {
							t.Errorf("Field(%q) = %q (%v, %v), want %q", w.field, v.Bytes, v.IsBytes, ok, w.bytes)
						}
					case w.field == "common_type":
						if !ok || v.IsBytes || uint64(v.Int) != s.Trace.Format.(*tpFormat).id {
							t.Errorf("Field(common_type) = %+v, %v, want the format's id %d", v, ok, s.Trace.Format.(*tpFormat).id)
						}
					default:
						if !ok || v.IsBytes || v.Int != w.int {
							t.Errorf("Field(%q) = %#x (%+v, %v), want %#x", w.field, v.Int, v, ok, w.int)
						}
					}
				}
				return
			}
			t.Fatalf("no sample %d of %s", tc.nth, tc.event)
		})
	}
}

// TestTraceStates: the prev_state words the off-CPU rules read, for the
// raw values of the real captures' format, as perf prints them.
func TestTraceStates(t *testing.T) {
	tp := parseFormat("sched", schedSwitchFormat)
	if tp == nil || tp.prog == nil {
		t.Fatal("sched_switch's format does not compile")
	}
	for _, tc := range []struct {
		state uint64
		want  string
	}{
		{0, "R"}, {0x100, "R+"}, {1, "S"}, {2, "D"}, {0x80, "I"}, {0x10, "X"}, {0x20, "Z"}, {3, "S|D"}, {0x200, "R"}, {0x101, "S+"},
	} {
		raw := make([]byte, 64)
		fd := fieldOf(tp, "prev_state")
		for i := range 8 {
			raw[fd.offset+i] = byte(tc.state >> (8 * i))
		}
		tr := sample.Trace{Format: tp, Raw: raw}
		s := sample.Sample{Trace: tr}
		for range 2 { // the second time from the memo
			w, ok := s.Word(nil, "prev_state")
			if string(w) != tc.want || !ok {
				t.Errorf("prev_state %#x: %q, %v; want %q", tc.state, w, ok, tc.want)
			}
		}
		for _, d := range traceDiffs(&s, tr.AppendPayload(nil)) {
			t.Errorf("prev_state %#x: %s", tc.state, d)
		}
	}
}

func fieldOf(tp *tpFormat, name string) *tpField {
	for i := range tp.fields {
		if tp.fields[i].name == name {
			return &tp.fields[i]
		}
	}
	return nil
}

// schedSwitchFormat is sched_switch's format file on the kernel of the
// tpfields capture (6.18).
const schedSwitchFormat = `name: sched_switch
ID: 372
format:
	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;
	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;
	field:int common_pid;	offset:4;	size:4;	signed:1;

	field:char prev_comm[16];	offset:8;	size:16;	signed:0;
	field:pid_t prev_pid;	offset:24;	size:4;	signed:1;
	field:int prev_prio;	offset:28;	size:4;	signed:1;
	field:long prev_state;	offset:32;	size:8;	signed:1;
	field:char next_comm[16];	offset:40;	size:16;	signed:0;
	field:pid_t next_pid;	offset:56;	size:4;	signed:1;
	field:int next_prio;	offset:60;	size:4;	signed:1;

print fmt: "prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> next_comm=%s next_pid=%d next_prio=%d", REC->prev_comm, REC->prev_pid, REC->prev_prio, (REC->prev_state & ((((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) - 1)) ? __print_flags(REC->prev_state & ((((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) - 1), "|", { 0x00000001, "S" }, { 0x00000002, "D" }, { 0x00000004, "T" }, { 0x00000008, "t" }, { 0x00000010, "X" }, { 0x00000020, "Z" }, { 0x00000040, "P" }, { 0x00000080, "I" }) : "R", REC->prev_state & (((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) ? "+" : "", REC->next_comm, REC->next_pid, REC->next_prio
`

// edgeFormats are format files whose print formats take the plans'
// other ways: fields printed without a print format, values printed
// alone, payloads read as text, records the print format fails on.
var edgeFormats = map[string]string{
	// No print format this package understands: name=value fields.
	"fields": "a unknown print format (%pM)", // fields a, s, n, l, u, p
	// A string constant with '=': the whole payload is read as text.
	"strconst": `"x=%d%s y=%u", REC->a, REC->n ? " a=1" : "", REC->u`,
	// "a:" glued to a conversion: read as text for a.
	"colonend": `"a:%d n: %d", REC->a, REC->n`,
	// No blank after the comma: the word is "5,n=6".
	"comma": `"a=%d,n=%d u=%u,", REC->a, REC->n, REC->u`,
	// Widths, signs, sizes, hexadecimal, a leading 0x.
	"conv": `"a=%5d n=%-4d u=%lu l=%ld x=0x%x p=%p h=0x%08lx o=%o c=%hhd s=%.2s", REC->a, REC->n, REC->a, REC->l, REC->u, REC->p, REC->l, REC->u, REC->a, REC->s`,
	// System call style.
	"colon": `"a: 0x%08lx, n: 0x%08lx, u: %u", ((unsigned long)(REC->a)), ((unsigned long)(REC->n)), REC->u`,
	// A division by a field: the print format fails when it is 0.
	"div": `"q=%d a=%d", REC->a / REC->n, REC->a`,
	// A dynamic string, and a field only read in one branch.
	"dyn": `"name=%s a=%d b=%d", __get_str(d), REC->a, REC->n ? REC->a : REC->u`,
	// A name glued to the conversion before it.
	"glued": `"%dn=%d a=%d", REC->u, REC->n, REC->a`,
	// Literal text before and after, name at the start.
	"start": `"a=%d [n=%d] (u=%u)", REC->a, REC->n, REC->u`,
	// A string field with blanks and tabs around a word.
	"str": `"s=%s n=%d", REC->s, REC->n`,
}

// edgeFormat returns the format file of edgeFormats[name].
func edgeFormat(name string) string {
	return "name: " + name + `
ID: 7
format:
	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
	field:int common_pid;	offset:4;	size:4;	signed:1;

	field:int a;	offset:8;	size:4;	signed:1;
	field:char s[8];	offset:12;	size:8;	signed:0;
	field:int n;	offset:20;	size:4;	signed:1;
	field:long l;	offset:24;	size:8;	signed:1;
	field:unsigned int u;	offset:32;	size:4;	signed:0;
	field:void * p;	offset:40;	size:8;	signed:0;
	field:__data_loc char[] d;	offset:48;	size:4;	signed:0;

print fmt: ` + edgeFormats[name] + "\n"
}

// edgeRaw returns a record of the edge formats.
func edgeRaw(a, n int32, s string, l int64, u uint32, d string) []byte {
	raw := make([]byte, 52, 64)
	le := func(off int, v uint64, size int) {
		for i := range size {
			raw[off+i] = byte(v >> (8 * i))
		}
	}
	le(0, 7, 2)
	le(4, 4242, 4)
	le(8, uint64(uint32(a)), 4)
	copy(raw[12:20], s)
	le(20, uint64(uint32(n)), 4)
	le(24, uint64(l), 8)
	le(32, uint64(u), 4)
	le(40, 0xffff888100001000, 8)
	le(48, uint64(len(d))<<16|52, 4)
	return append(raw, d...)
}

// TestTraceEdges checks the reads of records of the edge formats, and of
// cut or inconsistent records, against the text of their payloads.
func TestTraceEdges(t *testing.T) {
	raws := map[string][]byte{
		"plain":    edgeRaw(5, 6, "comm", 7, 8, "dyn"),
		"negative": edgeRaw(-5, -1, "a b", -7, 0xffffffff, ""),
		"zero":     edgeRaw(0, 0, "", 0, 0, "x"),
		"tab":      edgeRaw(3, 4, "ab\t", 1, 2, "a\tb"),
		"cut":      edgeRaw(5, 6, "comm", 7, 8, "dyn")[:30],
		"badloc":   append(edgeRaw(5, 6, "comm", 7, 8, "")[:48], 0xff, 0xff, 0xff, 0xff),
		"empty":    nil,
	}
	names := slices.Sorted(func(yield func(string) bool) {
		for k := range edgeFormats {
			if !yield(k) {
				return
			}
		}
	})
	for _, name := range names {
		tp := parseFormat("edge", edgeFormat(name))
		if tp == nil {
			t.Fatalf("%s: format not parsed", name)
		}
		for rn, raw := range raws {
			s := sample.Sample{Event: []byte("edge:" + name), Trace: sample.Trace{Format: tp, Raw: raw}}
			text := s.AppendPayload(nil)
			for _, d := range traceDiffs(&s, text) {
				t.Errorf("%s, record %s (%q): %s", name, rn, text, d)
			}
		}
	}
}

// TestTracePlans: the fields the rules read per sample are read from the
// record, not printed: sched_switch's pids, the system calls' arguments;
// prev_state is printed alone, once per value.
func TestTracePlans(t *testing.T) {
	sw := parseFormat("sched", schedSwitchFormat)
	colon := parseFormat("edge", edgeFormat("colon"))
	conv := parseFormat("edge", edgeFormat("conv"))
	tests := []struct {
		tp   *tpFormat
		name string
		kind uint8
		memo bool
	}{
		{sw, "prev_pid", planDirect, false}, {sw, "next_pid", planDirect, false}, {sw, "prev_prio", planDirect, false},
		{sw, "prev_state", planWord, true}, {sw, "prev_comm", planWord, false},
		{colon, "a", planHex, false}, {colon, "n", planHex, false}, {colon, "u", planDirect, false},
		{conv, "a", planWord, false}, {conv, "u", planDirect, false}, {conv, "l", planDirect, false},
		{conv, "x", planHex, false}, {conv, "h", planHex, false}, {conv, "p", planWord, false},
	}
	for _, tc := range tests {
		p, ok := tc.tp.show.prog.find(tc.name)
		if !ok || p.kind != tc.kind || (p.memo != nil) != tc.memo {
			t.Errorf("%s %s: plan %+v, %v; want kind %d, memo %v", tc.tp.name, tc.name, p, ok, tc.kind, tc.memo)
		}
	}
	if tp := parseFormat("edge", edgeFormat("strconst")); !tp.show.text {
		t.Error("strconst: a string constant with '=' must make the payload read as text")
	}
	if tp := parseFormat("edge", edgeFormat("glued")); !tp.show.text {
		t.Error("glued: a name glued to a conversion must make the payload read as text")
	}
}

// FuzzTraceFields checks, for any format file and record, that the
// reads of the record are those of its printed payload. String fields
// are made of letters first: a string holding a field token ("x a=1")
// fools the text, which the plans do not mimic.
func FuzzTraceFields(f *testing.F) {
	f.Add(schedSwitchFormat, edgeRaw(5, 6, "comm", 0x100, 8, "dyn"))
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range edgeFormats {
			if !yield(k) {
				return
			}
		}
	}) {
		f.Add(edgeFormat(name), edgeRaw(-5, 6, "ab", 7, 0xffffffff, "dyn"))
	}
	// Fields printed by position (tppos.go).
	var blocks []string
	formats := blockFormats(f)
	for name := range formats {
		blocks = append(blocks, name)
	}
	slices.Sort(blocks)
	for _, name := range blocks {
		tp := parseFormat("block", formats[name])
		for _, rec := range []string{"issue", "cmd", "nosector"} {
			f.Add(formats[name], blockRecord(tp, blockRecords[rec]))
		}
	}
	files, _ := filepath.Glob("testdata/tracefs/events/*/*/format")
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b), edgeRaw(1, 2, "migration/0", 1, 2, ""))
	}
	f.Fuzz(func(t *testing.T, format string, raw []byte) {
		tp := parseFormat("fuzz", format)
		if tp == nil {
			return
		}
		for _, list := range [][]tpField{tp.fields, tp.common} {
			for i := range list {
				fd := &list[i]
				if fd.array {
					// once: a string may overlap its own __data_loc
					// word, which the first byte written then moves
					b := fieldBytes(raw, fd)
					for j, c := range b {
						b[j] = 'a' + c%26
					}
				}
			}
		}
		s := sample.Sample{Event: []byte("fuzz:fuzz"), Trace: sample.Trace{Format: tp, Raw: raw}}
		for _, fd := range tp.fields {
			s.Trace.Field(fd.name)
		}
		text := s.AppendPayload(nil)
		if tp.prog != nil && tp.prog.funcs > 0 {
			return // printed without the symbols
		}
		if d := traceDiffs(&s, text); len(d) > 0 {
			t.Errorf("payload %q: %s", text, strings.Join(d, "\n"))
		}
	})
}

// BenchmarkTraceFields reads what the off-CPU rules read of each
// sched_switch sample of the sched capture (prev_pid, next_pid,
// prev_state): from the record ("typed"), and by printing the payload and
// parsing it, as before sample.Trace ("text").
func BenchmarkTraceFields(b *testing.B) {
	r, _ := openCapture(b, "sched")
	var traces []sample.Sample
	for r.Next() {
		s := r.Head()
		traces = append(traces, sample.Sample{Event: s.Event, Trace: sample.Trace{Format: s.Trace.Format, Raw: bytes.Clone(s.Trace.Raw)}})
	}
	var buf []byte
	b.Run("typed", func(b *testing.B) {
		for b.Loop() {
			for i := range traces {
				s := &traces[i]
				s.Int("prev_pid")
				s.Int("next_pid")
				buf, _ = s.Word(buf[:0], "prev_state")
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(traces)), "ns/sample")
	})
	b.Run("text", func(b *testing.B) {
		var word []byte
		for b.Loop() {
			for i := range traces {
				buf = traces[i].AppendPayload(buf[:0])
				t := sample.Sample{Payload: buf}
				t.Int("prev_pid")
				t.Int("next_pid")
				word, _ = t.Word(word[:0], "prev_state")
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(traces)), "ns/sample")
	})
}
