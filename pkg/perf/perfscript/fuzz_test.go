package perfscript

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"flamekit/internal/testkit/golden"
)

// FuzzParse feeds arbitrary text to the parser: no panic, the output is
// valid folded text whose total is the weight read, and the parallel path
// gives the sequential path's output, as does a full frame table.
func FuzzParse(f *testing.F) {
	f.Add([]byte("p 1 1.0: 5 ev:\n\t1 a (/x)\n\n"))
	f.Add([]byte("Thread 2 pool 1234/1235 [000] 1.0: 5 cycles:\r\n\t1 x->y (/a)\r\n"))
	f.Add([]byte("  swapper 0 [000] 682.984451: 10 cpu-clock:pppH:  ffff pv_native_safe_halt+0xb ([kernel.kallsyms])\n"))
	f.Add([]byte("# hostname : vm\n# reference time: 2026-11-22 02:01:04.284867 = 1795312864.284867 (TOD) = 692.619527301 (monotonic)\ntp 2 2.0: sched:sched_switch: prev_comm=x\n\t1 g ([kernel.kallsyms])\n"))
	f.Add([]byte("cc 1 1.0: 1 ev:\n\t1 (anonymous namespace)::f(std::function<int (int)>) const (/x)\n\t7f5 [unknown] ([unknown])\n\n"))
	f.Add([]byte("a 5 [000] 1.500000: sched:sched_switch: prev_comm=a prev_pid=5 prev_prio=120 prev_state=S ==> next_comm=b next_pid=6 next_prio=120\n\t1 __schedule ([kernel.kallsyms])\n\n" +
		"b 6 [000] 2.250000: sched:sched_waking: comm=a pid=5 prio=120 target_cpu=000\n\t2 try_to_wake_up ([kernel.kallsyms])\n\n" +
		":-1 -1 [000] 3.000000: sched:sched_switch: prev_comm=b prev_pid=6 prev_prio=120 prev_state=X ==> next_comm=a next_pid=5 next_prio=120\n\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, opt := range []Options{{}, {NoTime: true, TID: true, Addrs: true, Kernel: true, JIT: true},
			{OffCPU: true, Wakers: true, States: "all", ClipOpen: true}, {HotCold: true, NoTime: true}} {
			seq := sequential(t, data, opt)
			// The only error text can give: input that does not meet
			// the options (--off-cpu without scheduler events).
			if seq.err != nil && !strings.Contains(seq.err.Error(), "--off-cpu needs") {
				t.Fatal(seq.err)
			}
			if tot := total(t, seq.out); math.Abs(tot-seq.sum.Weight) > 1e-6*math.Max(1, tot) {
				t.Fatalf("output total %v, weight read %v", tot, seq.sum.Weight)
			}
			par := collapseText(t, data, opt, 3, 7)
			if par.out != seq.out || !sameSummary(par.sum, seq.sum) || fmt.Sprint(par.err) != fmt.Sprint(seq.err) {
				t.Fatalf("parallel differs:\n%s", golden.Diff([]byte(seq.out), []byte(par.out)))
			}
			// With a table of two frame lines, most samples are folded
			// from their frames: the same output.
			frameLinesMax = 2
			full := sequential(t, data, opt)
			frameLinesMax = maxFrameLines
			if full.out != seq.out || !sameSummary(full.sum, seq.sum) || fmt.Sprint(full.err) != fmt.Sprint(seq.err) {
				t.Fatalf("with the frame table full, differs:\n%s", golden.Diff([]byte(seq.out), []byte(full.out)))
			}
		}
	})
}
