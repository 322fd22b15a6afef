package timeline

import "flamekit/pkg/folded"

// ids returns the CPU a timed line carried (-1 when none) and its thread:
// pid and tid, with the bits that say which of them it carried.
func ids(rec *folded.Record) (cpu int32, th Thread) {
	cpu = -1
	if rec.Has&folded.HasCPU != 0 {
		cpu = rec.CPU
	}
	th.PID, th.TID = -1, -1
	if rec.Has&folded.HasPID != 0 {
		th.PID = rec.PID
	}
	if rec.Has&folded.HasTID != 0 {
		th.TID = rec.TID
	}
	th.Has = rec.Has & (folded.HasPID | folded.HasTID)
	return cpu, th
}
