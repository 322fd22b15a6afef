// Package idle tells the samples of an idle CPU from real work. It is the
// one list that both stackcollapse --no-idle and timeslice --no-idle use.
//
// A folded stack is idle when its root frame (the process) is the idle task
// (swapper, shown as "swapper", "swapper-0", "swapper-?/0" ...) and one of
// its frames is an idle-loop function (cpu_idle, do_idle, default_idle,
// native_safe_halt, intel_idle ...), unless a frame above the idle loop is
// the entry of an interrupt or softirq: the work an interrupt does on an
// idle CPU is real work, and it is kept (unlike FlameScope, issue #83).
package idle

import "bytes"

// LoopFrames are substrings of the frames of the kernel's idle loop.
var LoopFrames = []string{
	"cpuidle", "cpu_idle", "cpu_bringup_and_idle", "native_safe_halt",
	"xen_hypercall_sched_op", "xen_hypercall_vcpu_op",
	"default_idle", "do_idle", "intel_idle", "acpi_idle", "poll_idle",
	"mwait_idle", "arch_cpu_idle", "cpu_startup_entry",
}

// InterruptFrames are substrings of the frames that enter an interrupt or
// softirq; one of them above the idle loop makes the sample real work.
var InterruptFrames = []string{
	"asm_common_interrupt", "common_interrupt", "asm_sysvec_", "sysvec_",
	"__irq_exit_rcu", "irq_exit", "handle_softirqs", "__do_softirq",
	"do_softirq", "do_IRQ", "handle_irq", "smp_apic_timer_interrupt",
	"apic_timer_interrupt", "irq_enter", "net_rx_action",
}

// Process is the name of the idle task as perf shows it.
const Process = "swapper"

// Is reports whether the folded stack (frames joined by ';', root first) is
// an idle CPU's sample.
func Is(stack []byte) bool {
	root, rest, _ := bytes.Cut(stack, []byte{';'})
	if !bytes.HasPrefix(root, []byte(Process)) {
		return false
	}
	if len(root) > len(Process) {
		if c := root[len(Process)]; c != '-' && c != '/' && c != '_' {
			return false // a process that merely starts with "swapper"
		}
	}
	// Find the deepest idle-loop frame; an interrupt frame deeper than it
	// (further right) means the CPU was working.
	lastIdle := -1
	for i, n := 0, 0; i <= len(rest); n++ {
		j := bytes.IndexByte(rest[i:], ';')
		if j < 0 {
			j = len(rest) - i
		}
		frame := rest[i : i+j]
		if containsAny(frame, LoopFrames) {
			lastIdle = i
		} else if lastIdle >= 0 && containsAny(frame, InterruptFrames) {
			return false
		}
		i += j + 1
	}
	return lastIdle >= 0
}

func containsAny(frame []byte, subs []string) bool {
	for _, s := range subs {
		if len(frame) >= len(s) && bytes.Contains(frame, []byte(s)) {
			return true
		}
	}
	return false
}

// Filter is Is with a memory: samples repeat their stacks, so it keeps the
// verdict for each distinct idle-task stack it has seen, and a map lookup
// replaces the search of the idle-loop names on every later sample. Stacks
// of other processes are answered at once and not kept, so its memory grows
// with the distinct stacks of the idle task only. The zero value is ready
// to use; a Filter is not safe for concurrent use.
type Filter struct {
	seen map[string]bool
	// The last idle-process stack asked about, and the answer: an idle
	// CPU's samples repeat one stack, and hashing it for the map took
	// 2% of timeslice --heatmap.
	last   []byte
	lastIs bool
}

// Is reports whether stack is an idle CPU's sample, as the function Is.
func (f *Filter) Is(stack []byte) bool {
	if !bytes.HasPrefix(stack, []byte(Process)) {
		return false
	}
	if f.last != nil && bytes.Equal(stack, f.last) {
		return f.lastIs
	}
	v, ok := f.seen[string(stack)]
	if !ok {
		v = Is(stack)
		if f.seen == nil {
			f.seen = make(map[string]bool)
		}
		f.seen[string(stack)] = v
	}
	f.last, f.lastIs = append(f.last[:0], stack...), v
	return v
}
