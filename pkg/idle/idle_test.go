package idle

import (
	"flamekit/pkg/source"
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

// TestRealCapture classifies the stacks of a real system-wide capture (2
// vCPUs, mostly idle, stackcollapse-perf.pl output): idle must be most of
// it, only swapper stacks may be idle, and the softirq work seen on the
// idle CPUs must be kept.
func TestRealCapture(t *testing.T) {
	fs := files(t, []string{"../../testdata/perf/perl/burst.collapsed-none.txt.gz"}, false)
	var idle, busy, irqOnIdle float64
	for fs.Next() {
		rec := fs.Record()
		st := string(rec.Stack)
		if Is(rec.Stack) {
			idle += rec.Count
			if !strings.HasPrefix(st, "swapper;") {
				t.Errorf("non-swapper stack classified idle: %s", st)
			}
			continue
		}
		busy += rec.Count
		if strings.HasPrefix(st, "swapper;") && strings.Contains(st, "handle_softirqs") {
			irqOnIdle += rec.Count
		}
	}
	if err := fs.Err(); err != nil {
		t.Fatal(err)
	}
	if share := idle / (idle + busy); share < 0.5 || share > 0.95 {
		t.Errorf("idle share %.2f, want most of a mostly idle capture but not all of it", share)
	}
	if irqOnIdle == 0 {
		t.Error("no softirq work on idle CPUs kept; the capture has some")
	}
}

// TestFilter checks that the memo gives the same verdicts as Is, the first
// time and the second.
func TestFilter(t *testing.T) {
	var f Filter
	fs := files(t, []string{"../../testdata/perf/perl/burst.collapsed-none.txt.gz", "../../testdata/perf/perl/syswide.collapsed-all.txt.gz"}, false)
	n := 0
	for fs.Next() {
		st := fs.Record().Stack
		for range 2 {
			if got, want := f.Is(st), Is(st); got != want {
				t.Fatalf("Filter.Is(%q) = %v, Is = %v", st, got, want)
			}
		}
		n++
	}
	if fs.Err() != nil || n == 0 {
		t.Fatalf("read %d stacks: %v", n, fs.Err())
	}
	for st := range f.seen {
		if !strings.HasPrefix(st, Process) {
			t.Errorf("kept a stack of another process: %q", st)
		}
	}
}

// files reads the named folded files as one stream.
func files(t *testing.T, names []string, lenient bool) *source.Files {
	t.Helper()
	ins, err := source.OpenAll(names, source.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ins.Close() })
	return source.NewFiles(ins, lenient)
}
