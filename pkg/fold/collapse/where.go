package collapse

import (
	"math"

	"flamekit/pkg/folded"
	"flamekit/pkg/perf/sample"
)

// where is the CPU and the thread of a timed line: its optional fields
// cpu=, pid= and tid= (folded.Record's CPU, PID, TID and Has).
type where struct {
	cpu, pid, tid int32
	has           folded.Has
}

// whereOf returns the fields of an on-CPU sample as appendWhere writes
// them: its CPU, its process id where the reader knows it, and the tid
// perf printed when it is one a folded reader takes back.
func whereOf(s *sample.Sample) where {
	var w where
	if s.CPU >= 0 && s.CPU <= math.MaxInt32 {
		w.cpu, w.has = int32(s.CPU), w.has|folded.HasCPU
	}
	if s.HasProcessID {
		w.pid, w.has = s.ProcessID, w.has|folded.HasPID
	}
	if isID(s.TID) {
		w.tid, w.has = parseID(s.TID), w.has|folded.HasTID
	}
	return w
}

// parseID returns the value of a thread id that isID accepts.
func parseID(b []byte) int32 {
	if b[0] == '-' {
		return -1
	}
	var n int64
	for _, c := range b {
		n = n*10 + int64(c-'0')
	}
	return int32(n)
}

// switchedOut returns the fields of the thread a sched_switch sample
// switches out: prev_pid (a thread id, the key of the off-CPU state
// machine) as tid; the sample's process id when the sample is that
// thread's (perf records sched_switch in the context of the thread leaving
// the CPU); and the CPU it left, where its interval off CPU begins.
func switchedOut(s *sample.Sample, prev int64) where {
	w := whereOf(s)
	same := w.has&folded.HasTID != 0 && int64(w.tid) == prev
	if prev < math.MinInt32 || prev > math.MaxInt32 {
		w.tid, w.has = 0, w.has&^folded.HasTID
	} else {
		w.tid, w.has = int32(prev), w.has|folded.HasTID
	}
	if !same {
		w.pid, w.has = 0, w.has&^folded.HasPID
	}
	return w
}

// record fills the fields of rec.
func (w where) record(rec *folded.Record) {
	rec.CPU, rec.PID, rec.TID, rec.Has = w.cpu, w.pid, w.tid, w.has
}

// append appends the fields as a timed line carries them (" cpu=1
// pid=4242 tid=4243").
func (w where) append(dst []byte) []byte {
	rec := folded.Record{}
	w.record(&rec)
	return folded.AppendFields(dst, &rec)
}

// offCPUTimeWhere returns the fields of an offcpu-time sample (perf record
// --off-cpu): its thread and process. It has no CPU: the sample sums the
// time its thread spent off CPU in one stack, on whatever CPUs it left,
// and perf writes a placeholder there.
func offCPUTimeWhere(s *sample.Sample) where {
	w := whereOf(s)
	w.cpu, w.has = 0, w.has&^folded.HasCPU
	return w
}
