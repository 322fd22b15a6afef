package collapse

import (
	"testing"

	"flamekit/pkg/folded"
	"flamekit/pkg/perf/sample"
)

// whereOf gives a record the fields that a folded reader reads from the
// line appendWhere writes for the same sample.
func TestWhereOf(t *testing.T) {
	for _, s := range []sample.Sample{
		{CPU: 1, TID: []byte("4243"), ProcessID: 4242, HasProcessID: true},
		{CPU: -1, TID: []byte("-1")},
		{CPU: 0, TID: []byte("2147483647")},
		{CPU: 3, TID: []byte("2147483648")},
		{CPU: 3, TID: []byte("0042"), ProcessID: -1, HasProcessID: true},
		{CPU: 2, TID: []byte("12a")},
		{CPU: 2},
	} {
		line := appendWhere([]byte("a;b 1 @1.000000"), &s)
		var want folded.Record
		if err := folded.ParseLine(line, &want); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		var got folded.Record
		whereOf(&s).record(&got)
		if got.CPU != want.CPU || got.PID != want.PID || got.TID != want.TID || got.Has != want.Has {
			t.Errorf("%s: whereOf gives cpu %d pid %d tid %d has %b", line, got.CPU, got.PID, got.TID, got.Has)
		}
	}
}

// lineEnds, which keeps the text of the count and fields of the line
// before, writes what lineEnd writes for each line of a sequence whose
// count, CPU, pid and thread change, or not, from line to line.
func TestLineEnds(t *testing.T) {
	tid := func(s string) []byte { return []byte(s) }
	type line struct {
		weight int64
		s      sample.Sample
	}
	timed := func(w int64, cpu int, pid int32, hasPID bool, t string) line {
		return line{w, sample.Sample{HasTime: true, Time: folded.Time(1841239537000 + w), CPU: cpu, ProcessID: pid, HasProcessID: hasPID, TID: tid(t)}}
	}
	seq := []line{
		timed(333444, 1, 19441, true, "19441"),
		timed(333444, 1, 19441, true, "19441"),    // all the same
		timed(333444, 0, 19441, true, "19441"),    // the CPU changes
		timed(333444, 0, 19441, true, "19442"),    // the thread
		timed(333444, 0, 19441, true, "1944"),     // a thread that starts the last
		timed(333444, 0, 19441, false, "1944"),    // no pid
		timed(333444, 0, 0, true, "1944"),         // pid 0
		timed(1, 0, 0, true, "1944"),              // the count
		timed(0, -1, 0, false, "-1"),              // no CPU, no thread
		timed(-5, -1, 0, false, ""),               // a negative count, no tid
		{7, sample.Sample{CPU: 2, TID: tid("9")}}, // no time
		{7, sample.Sample{CPU: 2, TID: tid("9")}}, // again
		timed(7, 2, 9, true, "9"),                 // the fields return
		{7, sample.Sample{HasTime: true, CPU: 2, ProcessID: 9, HasProcessID: true, TID: tid("9")}},
	}
	var e lineEnds
	for i, l := range seq {
		got := string(e.add([]byte("a;b"), l.weight, &l.s))
		want := string(lineEnd([]byte("a;b"), l.weight, &l.s))
		if got != want {
			t.Errorf("line %d: lineEnds wrote %q, lineEnd %q", i, got, want)
		}
	}
	// lineEnd itself, as a folded reader reads it.
	var rec folded.Record
	l := seq[0]
	text := lineEnd([]byte("a;b"), l.weight, &l.s)
	if err := folded.ParseLine(text[:len(text)-1], &rec); err != nil || rec.Count != 333444 || rec.CPU != 1 || rec.PID != 19441 || rec.TID != 19441 {
		t.Errorf("lineEnd's line reads as %+v, %v", rec, err)
	}
}
