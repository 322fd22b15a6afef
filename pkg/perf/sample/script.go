package sample

import (
	"strconv"
)

// AppendScript appends s as `perf script` prints a sample with a call
// graph (header line, one frame line per frame, a blank line), to dst:
//
//	perf 19275/19275 [000]   685.252994:          1 sched:sched_switch: prev_comm=perf ...
//		ffffffff821f8298 __schedule+0x618 ([kernel.kallsyms])
//
// Fields the sample does not have are left out, as perf leaves them out.
// The text reads back through pkg/perf/perfscript as the same sample; readers
// of binary captures use it to compare themselves with perf script.
func AppendScript(dst []byte, s *Sample) []byte {
	dst = append(dst, s.Comm...)
	dst = append(dst, ' ')
	if s.PID != nil {
		dst = append(dst, s.PID...)
		dst = append(dst, '/')
	}
	dst = append(dst, s.TID...)
	if s.CPU >= 0 {
		dst = append(dst, " ["...)
		if s.CPU < 100 {
			dst = append(dst, '0')
		}
		if s.CPU < 10 {
			dst = append(dst, '0')
		}
		dst = strconv.AppendInt(dst, int64(s.CPU), 10)
		dst = append(dst, ']')
	}
	if s.HasTime {
		dst = append(dst, ' ')
		dst = s.Time.Append(dst)
		dst = append(dst, ':')
	}
	if s.HasPeriod {
		dst = append(dst, ' ')
		dst = strconv.AppendInt(dst, s.Period, 10)
	}
	if len(s.Event) > 0 {
		dst = append(dst, ' ')
		dst = append(dst, s.Event...)
		dst = append(dst, ':')
	}
	if len(s.Payload) > 0 {
		dst = append(dst, ' ')
		dst = append(dst, s.Payload...)
	} else if s.Trace.Format != nil {
		n := len(dst)
		dst = s.Trace.AppendPayload(append(dst, ' '))
		if len(dst) == n+1 {
			dst = dst[:n] // an empty payload, as perf prints none
		}
	}
	dst = append(dst, '\n')
	for _, f := range s.Frames {
		dst = append(dst, '\t')
		dst = append(dst, f.Addr...)
		dst = append(dst, ' ')
		dst = append(dst, f.Symbol...)
		dst = append(dst, " ("...)
		dst = append(dst, f.DSO...)
		dst = append(dst, ")\n"...)
	}
	return append(dst, '\n')
}
