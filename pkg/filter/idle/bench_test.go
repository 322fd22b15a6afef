package idle

import "testing"

var benchStacks = [][]byte{
	[]byte("swapper;common_startup_64;x86_64_start_kernel;start_kernel;rest_init;cpu_startup_entry;do_idle;default_idle_call;default_idle;pv_native_safe_halt"),
	[]byte("swapper;common_startup_64;start_kernel;rest_init;cpu_startup_entry;do_idle;default_idle_call;default_idle;pv_native_safe_halt;asm_sysvec_apic_timer_interrupt;sysvec_apic_timer_interrupt;__irq_exit_rcu;handle_softirqs;rcu_core"),
	[]byte("java;start_thread;thread_native_entry;JavaThread::run;Interpreter;com/example/Work:::step"),
}

func BenchmarkIs(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		for _, s := range benchStacks {
			Is(s)
		}
	}
}

func BenchmarkFilter(b *testing.B) {
	var f Filter
	b.ReportAllocs()
	for b.Loop() {
		for _, s := range benchStacks {
			f.Is(s)
		}
	}
}
