package sample

import (
	"bytes"
	"strings"
	"testing"
)

func TestDecimal(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0", 0, true}, {"7", 7, true}, {"100078421", 100078421, true}, {"999999999999999999", 999999999999999999, true},
		{"", 0, false}, {"010", 0, false}, {"0x10", 0, false}, {"-1", 0, false}, {"12a", 0, false}, {"1234567890123456789", 0, false},
	} {
		if got, ok := decimal([]byte(tc.in)); got != tc.want || ok != tc.ok {
			t.Errorf("decimal(%q) = %d, %v; want %d, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestWordInt(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"4096", 4096, true}, {"0x00002000,", 0x2000, true}, {"-1", -1, true}, {"0xffffff9c", 0xffffff9c, true},
		{"010", 8, true}, // octal, as strconv reads it (perf's %03d target_cpu)
		{"9223372036854775807", 1<<63 - 1, true}, {"18446744073709551615", 0, false}, {"0xffffffffffffffff", 0, false},
		{"S", 0, false}, {"", 0, false}, {",", 0, false}, {"(nil)", 0, false},
	} {
		if got, ok := WordInt([]byte(tc.in)); got != tc.want || ok != tc.ok {
			t.Errorf("WordInt(%q) = %d, %v; want %d, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestColonField(t *testing.T) {
	const sys = "fd: 0x00000003, buf: 0x7ffd52a0, count: 0x00002000"
	for _, tc := range []struct {
		payload, name, want string
		ok                  bool
	}{
		{sys, "fd", "0x00000003, buf: 0x7ffd52a0, count: 0x00002000", true},
		{sys, "count", "0x00002000", true},
		{sys, "buf", "0x7ffd52a0, count: 0x00002000", true},
		{sys, "unt", "", false}, // "count:": not after a blank
		{"a:1 a: 2", "a", "2", true},
		{"a:", "a", "", false},
		{"a:a: 1", "a", "", false}, // the second "a:" follows a ':', not a blank
	} {
		got, ok := ColonField([]byte(tc.payload), tc.name)
		if string(got) != tc.want || ok != tc.ok {
			t.Errorf("ColonField(%q, %q) = %q, %v; want %q, %v", tc.payload, tc.name, got, ok, tc.want, tc.ok)
		}
	}
}

// TestSampleIntWord reads fields of payload texts as the folding rules
// do: "name=" first, then "name: ", the first word.
func TestSampleIntWord(t *testing.T) {
	const sw = "prev_comm=Worker 2 pool 7 prev_pid=19275 prev_prio=120 prev_state=R+ ==> next_comm=migration/0 next_pid=18 next_prio=0"
	tests := []struct {
		payload, name string
		n             int64
		form          byte
		ok            bool
		word          string
		wok           bool
	}{
		{sw, "prev_pid", 19275, '=', true, "19275", true},
		{sw, "prev_state", 0, '=', false, "R+", true},
		{sw, "prev_comm", 0, '=', false, "Worker", true},
		{sw, "next_prio", 0, '=', true, "0", true},
		{sw, "nope", 0, 0, false, "", false},
		{"comm=a pid=42 delay=100078421 [ns]", "delay", 100078421, '=', true, "100078421", true},
		{"fd: 0x00000003, count: 0x00002000", "count", 0x2000, ':', true, "", false},
		{"fd: 0x00000003, count: 0x00002000", "fd", 3, ':', true, "", false},
		{"a: 1 a=2", "a", 2, '=', true, "2", true},
		{"x=", "x", 0, '=', false, "", true},
		{"", "x", 0, 0, false, "", false},
	}
	for _, tc := range tests {
		s := Sample{Payload: []byte(tc.payload)}
		n, form, ok := s.Int(tc.name)
		if n != tc.n || form != tc.form || ok != tc.ok {
			t.Errorf("Int(%q) of %q = %d, %q, %v; want %d, %q, %v", tc.name, tc.payload, n, form, ok, tc.n, tc.form, tc.ok)
		}
		w, ok := s.Word([]byte("pre"), tc.name)
		if string(w) != "pre"+tc.word || ok != tc.wok {
			t.Errorf("Word(%q) of %q = %q, %v; want %q, %v", tc.name, tc.payload, w, ok, "pre"+tc.word, tc.wok)
		}
	}
}

// fakeFormat is a TraceFormat whose records are their payload text, to
// check what Sample does with a Trace.
type fakeFormat struct{ calls []string }

func (f *fakeFormat) Field(t *Trace, name string) (Value, bool) {
	f.calls = append(f.calls, "Field "+name)
	v, ok := Field(t.Raw, name)
	return Value{Bytes: v, IsBytes: true}, ok
}

func (f *fakeFormat) Int(t *Trace, name string) (int64, byte, bool) {
	f.calls = append(f.calls, "Int "+name)
	return (&Sample{Payload: t.Raw}).Int(name)
}

func (f *fakeFormat) Word(dst []byte, t *Trace, name string) ([]byte, byte) {
	f.calls = append(f.calls, "Word "+name)
	w, ok := (&Sample{Payload: t.Raw}).Word(dst, name)
	if !ok {
		return dst, 0
	}
	return w, '='
}

func (f *fakeFormat) PositionInt(t *Trace, p Position) (int64, bool) {
	f.calls = append(f.calls, "PositionInt")
	return p.Int(t.Raw)
}

func (f *fakeFormat) AppendPayload(dst []byte, t *Trace) []byte {
	f.calls = append(f.calls, "AppendPayload")
	return append(dst, t.Raw...)
}

// TestSampleTrace: a sample with a Trace and no Payload is read through
// its format, and printed (AppendPayload, AppendScript, Field) only when
// the text is asked for.
func TestSampleTrace(t *testing.T) {
	f := &fakeFormat{}
	s := Sample{Comm: []byte("perf"), TID: []byte("7"), CPU: 1, Event: []byte("sched:sched_switch"),
		Trace: Trace{Format: f, Raw: []byte("prev_pid=7 prev_state=S ==> next_pid=0")}}
	if n, form, ok := s.Int("prev_pid"); n != 7 || form != '=' || !ok {
		t.Errorf("Int = %d, %q, %v", n, form, ok)
	}
	if w, ok := s.Word(nil, "prev_state"); string(w) != "S" || !ok {
		t.Errorf("Word = %q, %v", w, ok)
	}
	if v, ok := s.Trace.Field("next_pid"); string(v.Bytes) != "0" || !ok {
		t.Errorf("Trace.Field = %+v, %v", v, ok)
	}
	if got := strings.Join(f.calls, ","); got != "Int prev_pid,Word prev_state,Field next_pid" {
		t.Errorf("calls %s: the payload was printed for a field", got)
	}
	if v, ok := s.Field("prev_state"); string(v) != "S ==>" || !ok {
		t.Errorf("Field = %q, %v", v, ok)
	}
	if got := AppendScript(nil, &s); !bytes.Equal(got, []byte("perf 7 [001] sched:sched_switch: prev_pid=7 prev_state=S ==> next_pid=0\n\n")) {
		t.Errorf("AppendScript = %q", got)
	}
	// An empty payload prints as none.
	s.Trace.Raw = nil
	if got := AppendScript(nil, &s); string(got) != "perf 7 [001] sched:sched_switch:\n\n" {
		t.Errorf("AppendScript of an empty payload = %q", got)
	}
	// A sample without a Trace reads nothing through it.
	var none Trace
	if _, ok := none.Field("x"); ok {
		t.Error("Field of a zero Trace")
	}
	if _, _, ok := none.Int("x"); ok || len(none.AppendPayload(nil)) != 0 {
		t.Error("Int or AppendPayload of a zero Trace")
	}
}

// TestBlockPosition: the block events' fields read by position, as perf
// prints them: sector and nr_sector around the first "+" token, bytes
// third in block_rq_issue and block_rq_insert only, nothing without a
// "+" token or out of the payload.
func TestBlockPosition(t *testing.T) {
	const issue = "254,0 RA 4096 () 321615200 + 8 none,0,0 [link]"
	tests := []struct {
		event, payload, name string
		n                    int64
		ok                   bool
	}{
		{"block:block_rq_issue", issue, "sector", 321615200, true},
		{"block:block_rq_issue", issue, "nr_sector", 8, true},
		{"block:block_rq_issue", issue, "bytes", 4096, true},
		{"block:block_rq_insert", issue, "bytes", 4096, true},
		{"block:block_rq_merge", issue, "bytes", 0, false},
		{"block:block_rq_complete", "254,0 RA () 321615200 + 8 none,0,0 [0]", "nr_sector", 8, true},
		{"block:block_bio_queue", "254,0 W 2048 + 16 [dd]", "sector", 2048, true},
		{"block:block_bio_queue", "254,0 W 2048 + 16 [dd]", "bytes", 0, false},
		{"block:block_split", "254,0 W 2048 / 2056 [dd]", "sector", 0, false},
		{"block:block_bio_queue", "+ 16", "sector", 0, false},
		{"block:block_bio_queue", "254,0 W 2048 +", "nr_sector", 0, false},
		{"block:block_bio_queue", "254,0 W 18446744073709551615 + 0 [dd]", "sector", 0, false},
		{"block:block_bio_queue", "254,0 W 2048 + 0x10, [dd]", "nr_sector", 16, true},
		{"block:block_bio_queue", "254,0 W 2048 + 16 [dd]", "dev", 0, false},
		{"sched:sched_switch", "a 1 + 2", "sector", 0, false},
	}
	for _, tc := range tests {
		n, ok := int64(0), false
		if p, is := BlockPosition([]byte(tc.event), tc.name); is {
			n, ok = p.Int([]byte(tc.payload))
		}
		if n != tc.n || ok != tc.ok {
			t.Errorf("%s %q: %s = %d, %v; want %d, %v", tc.event, tc.payload, tc.name, n, ok, tc.n, tc.ok)
		}
	}
	// A sample with a Trace is read through its format, not printed.
	f := &fakeFormat{}
	s := Sample{Event: []byte("block:block_rq_issue"), Trace: Trace{Format: f, Raw: []byte(issue)}}
	p, _ := BlockPosition(s.Event, "sector")
	if n, ok := s.PositionInt(p); n != 321615200 || !ok || strings.Join(f.calls, ",") != "PositionInt" {
		t.Errorf("PositionInt = %d, %v; calls %v", n, ok, f.calls)
	}
}
