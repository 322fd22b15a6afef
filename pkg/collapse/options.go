package collapse

// Options select what stackcollapse-perf.pl's flags select, plus
// flamekit's own.
type Options struct {
	PID         bool   // root frame "comm-PID"
	TID         bool   // root frame "comm-PID/TID" (wins over PID)
	Kernel      bool   // append _[k] to kernel frames
	JIT         bool   // append _[j] to perf-map (JIT) frames
	Addrs       bool   // "[module <addr>]" for unknown symbols
	Inline      bool   // expand inlined functions with addr2line
	Context     bool   // with Inline: append ":file:line"
	Srcline     bool   // frames carry perf script -F+srcline lines (Frame.Srcline)
	EventFilter string // keep only this event; "" = the first event seen
	NoIdle      bool   // drop idle CPU stacks (pkg/idle)
	NoTime      bool   // classic output even when the input has times
}
