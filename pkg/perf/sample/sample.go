// Package sample is flamekit's one model of a profiling sample: the fields
// of one sample as `perf script` prints them. The text parser
// (pkg/perf/perfscript) and the perf.data reader (pkg/perf/perfdata) both deliver
// samples in this form, so that everything downstream (the collapse rules,
// the event filter, payload weights, the off-CPU state machine) works the
// same whichever reader ran.
//
// Fields hold bytes as perf prints them, not decoded numbers, because the
// stackcollapse-perf.pl rules that turn a sample into a folded stack work
// on the printed text (an id of "-1", an address printed without 0x, a
// symbol with its "+0x1f" offset). A reader that decodes a binary file
// formats its values as perf script would, except a tracepoint's payload:
// the perf.data reader gives the raw record and its format (Trace), whose
// fields are read typed, without printing the payload and parsing it
// again (Sample.Int, Sample.Word, Trace.Field); the text is printed only
// when asked for (AppendPayload).
//
// A Sample and the slices it holds belong to the reader that filled it:
// they are valid until the reader's next sample. Copy what must be kept.
package sample

import (
	"bytes"
	"strconv"

	"flamekit/pkg/folded"
)

// Frame is one entry of a call chain, as perf script prints it on a frame
// line:
//
//	ffffffff821f8298 __schedule+0x618 ([kernel.kallsyms])
//	           2724a __libc_start_call_main+0x7a (/usr/lib/x86_64-linux-gnu/libc.so.6)
//	          146f7c [unknown] (/usr/bin/perf)
//	           27304 __libc_start_main_impl+0x84 (inlined)
type Frame struct {
	// Addr is the address as printed: lowercase hexadecimal without "0x"
	// (for user code perf prints the address relative to the file).
	Addr []byte
	// Symbol is the symbol as printed, with perf's "+0x…" offset when it
	// printed one; "[unknown]" when perf could not resolve the address.
	Symbol []byte
	// DSO is the text between the parentheses: "[kernel.kallsyms]", a
	// path, "/tmp/perf-PID.map" for JIT code, "[unknown]", or "inlined".
	DSO []byte
	// Srcline is what `perf script -F+srcline` printed after the frame
	// line ("  inl.c:4"), as read, or nil. A frame whose symbol holds
	// several "->" pieces may own several such lines, separated by '\n'.
	// Only the text reader fills it, when asked to (stackcollapse
	// --srcline).
	Srcline []byte
	// ID, when not 0, names the frame among those of one reader, so
	// that what is derived from a frame is derived once per ID: two
	// frames of a reader with the same ID have the same DSO and the
	// same Symbol but for its "+0x…" offset, and the same Addr when
	// their Symbol contains "[unknown]". The perf.data reader sets it;
	// the text reader leaves it 0.
	ID uint32
}

// Sample is one sample: the header line of `perf script` and its frames.
type Sample struct {
	// Comm is the thread's name (may hold blanks, digits, ':' …).
	Comm []byte
	// PID and TID are the ids as printed. PID is nil when perf printed a
	// single id (the default fields print the tid only).
	PID, TID []byte
	// ProcessID is the process id when the reader knows it (HasProcessID),
	// printed or not: a perf.data file always holds it, while perf script's
	// default fields print only the tid. It goes to the "pid=" field of a
	// timed line; the folding rules use PID, as printed.
	ProcessID    int32
	HasProcessID bool
	// CPU is the CPU number, or -1 when it was not printed.
	CPU int
	// Time is the sample's time on perf's clock; HasTime is false when
	// no time was printed.
	Time    folded.Time
	HasTime bool
	// Period is perf's period for the sample (the weight of a cpu-clock
	// sample in nanoseconds, 1 for most tracepoint and software events
	// recorded with -c 1); HasPeriod is false when none was printed
	// (tracepoints, perf script -F -period).
	Period    int64
	HasPeriod bool
	// Event is the event name without its final ':', as perf prints it
	// ("cpu-clock:pppH", "page-faults", "sched:sched_switch",
	// "probe_libc:malloc").
	Event []byte
	// Payload is the text after the event on the header line: the fields
	// of a tracepoint or probe ("prev_comm=perf prev_pid=19275 …"), or
	// nil. See Field. A binary reader leaves it nil and fills Trace.
	Payload []byte
	// Trace is the tracepoint record of a sample read from a binary
	// capture (Trace.Format nil otherwise): its fields typed, its
	// payload printed on demand (AppendPayload). Use Int and Word to
	// read a field whichever reader filled the sample.
	Trace Trace
	// Frames is the call chain, leaf first.
	Frames []Frame
	// Line is the line number of the header line within its input, or 0
	// when the sample was not read from text (for messages).
	Line int
}

// Reset empties s for reuse, keeping the capacity of Frames.
func (s *Sample) Reset() {
	*s = Sample{Frames: s.Frames[:0], CPU: -1}
}

// Field returns the value of the payload field name (for example "size",
// "prev_state", "next_pid") and whether the payload has it. A field is a
// blank-separated "name=value" token; its value runs up to the next
// " name=" token, so values with blanks (a comm such as "Worker 2 pool 7")
// are returned whole. Trailing blanks are removed. A sample with a Trace
// and no Payload is printed for it, into a new buffer: per-sample rules
// use Int and Word, which do not print it.
func (s *Sample) Field(name string) ([]byte, bool) {
	if s.Payload == nil && s.Trace.Format != nil {
		return Field(s.AppendPayload(nil), name)
	}
	return Field(s.Payload, name)
}

// Field looks name up in a payload text; see Sample.Field.
func Field(payload []byte, name string) ([]byte, bool) {
	p := payload
	for len(p) > 0 {
		// p starts at a token.
		for len(p) > 0 && p[0] == ' ' {
			p = p[1:]
		}
		eq := fieldName(p)
		if eq < 0 {
			// Not a field token: skip to the next blank.
			i := bytes.IndexByte(p, ' ')
			if i < 0 {
				return nil, false
			}
			p = p[i:]
			continue
		}
		key, rest := p[:eq], p[eq+1:]
		end := nextField(rest)
		if string(key) == name {
			return bytes.TrimRight(rest[:end], " \t\r"), true
		}
		p = rest[end:]
	}
	return nil, false
}

// FieldInt returns the payload field name as an integer (decimal, or
// hexadecimal with 0x).
func (s *Sample) FieldInt(name string) (int64, bool) {
	v, ok := s.Field(name)
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(string(v), 0, 64)
	if err != nil {
		u, uerr := strconv.ParseUint(string(v), 0, 64)
		if uerr != nil {
			return 0, false
		}
		n = int64(u)
	}
	return n, true
}

// fieldName returns the index of the '=' ending a field name at the start
// of p ([A-Za-z0-9_]+ then '='), or -1.
func fieldName(p []byte) int {
	for i, c := range p {
		switch {
		case c == '=':
			if i == 0 {
				return -1
			}
			return i
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_':
		default:
			return -1
		}
	}
	return -1
}

// nextField returns the length of the value at the start of p: up to the
// blank before the next field token, or to the end.
func nextField(p []byte) int {
	for i := 0; i < len(p); i++ {
		if p[i] != ' ' {
			continue
		}
		j := i
		for j < len(p) && p[j] == ' ' {
			j++
		}
		if fieldName(p[j:]) >= 0 {
			return i
		}
		i = j - 1
	}
	return len(p)
}
