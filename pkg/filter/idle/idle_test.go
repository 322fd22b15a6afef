package idle

import (
	"flamekit/internal/testkit/golden"
	"strings"
	"testing"
)

func TestIs(t *testing.T) {
	const loop = "swapper;common_startup_64;x86_64_start_kernel;start_kernel;rest_init;cpu_startup_entry;do_idle;default_idle_call;default_idle;pv_native_safe_halt"
	tests := []struct {
		stack string
		want  bool
	}{
		{loop, true},
		{"swapper;secondary_startup_64;start_secondary;cpu_startup_entry;do_idle;cpuidle_enter;intel_idle", true},
		{"swapper-0;cpu_idle;native_safe_halt", true},                        // --pid
		{"swapper-?/0;cpu_bringup_and_idle;xen_hypercall_sched_op", true},    // --tid, Xen
		{"swapper;cpu_startup_entry_[k];do_idle_[k];default_idle_[k]", true}, // --kernel
		// Work done by interrupts and softirqs on an idle CPU is kept.
		{loop + ";asm_sysvec_apic_timer_interrupt;sysvec_apic_timer_interrupt;__irq_exit_rcu;handle_softirqs;rcu_core", false},
		{loop + ";asm_common_interrupt;common_interrupt;handle_edge_irq;e1000_intr", false},
		{loop + ";asm_sysvec_call_function_single;sysvec_call_function_single;__irq_exit_rcu;handle_softirqs;net_rx_action", false},
		// Not the idle task, or no idle loop.
		{"bash;main;cpu_idle_poll_ctrl", false},
		{"swapperd;do_idle", false},
		{"swapper;start_kernel;rest_init;kernel_init", false},
		{"swapper", false},
		{"", false},
		{"java;cpuidle_fake", false},
	}
	for _, tt := range tests {
		if got := Is([]byte(tt.stack)); got != tt.want {
			t.Errorf("Is(%q) = %v, want %v", tt.stack, got, tt.want)
		}
	}
}

// TestFilter checks that the memo gives the same verdicts as Is, the first
// time and the second.
func TestFilter(t *testing.T) {
	var f Filter
	n := 0
	for _, name := range []string{"../../../testdata/perf/perl/burst.collapsed-none.txt.gz", "../../../testdata/perf/perl/syswide.collapsed-all.txt.gz"} {
		text, err := golden.Read(name)
		if err != nil {
			t.Fatal(err)
		}
		for line := range strings.Lines(string(text)) {
			st := line[:max(strings.LastIndexByte(line, ' '), 0)] // the stack is all but the count
			for range 2 {
				if got, want := f.Is([]byte(st)), Is([]byte(st)); got != want {
					t.Fatalf("Filter.Is(%q) = %v, Is = %v", st, got, want)
				}
			}
			n++
		}
	}
	if n == 0 {
		t.Fatal("read no stacks")
	}
	for st := range f.seen {
		if !strings.HasPrefix(st, Process) {
			t.Errorf("kept a stack of another process: %q", st)
		}
	}
}
