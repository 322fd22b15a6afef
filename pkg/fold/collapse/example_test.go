package collapse_test

import (
	"fmt"
	"os"

	"flamekit/pkg/fold/collapse"
	"flamekit/pkg/folded"
	"flamekit/pkg/perf/sample"
)

// A reader that builds its samples itself hands them to the Driver through
// Samples: here two hand-built cpu-clock samples, written as classic
// folded stacks.
func ExampleSamples() {
	s := sample.Sample{
		Comm: []byte("dd"), TID: []byte("4242"), CPU: 1,
		Event: []byte("cpu-clock:pppH"), Period: 1003009, HasPeriod: true,
		Frames: []sample.Frame{
			{Addr: []byte("ffffffff821ecc51"), Symbol: []byte("do_syscall_64+0x71"), DSO: []byte("[kernel.kallsyms]")},
			{Addr: []byte("2724a"), Symbol: []byte("__libc_start_call_main+0x7a"), DSO: []byte("/usr/lib/x86_64-linux-gnu/libc.so.6")},
		},
	}
	d := &collapse.Driver{Options: collapse.Options{NoTime: true, Kernel: true}}
	in := collapse.Input{Name: "perf.data", Source: "perf.data", Open: func() (collapse.Producer, error) {
		return collapse.Samples(&sample.Capture{Host: "vm"}, []sample.Sample{s, s}, 0), nil
	}}
	sum, err := d.Run(os.Stdout, []collapse.Input{in})
	fmt.Printf("%d samples, weight %.0f, error %v\n", sum.Samples, sum.Weight, err)
	// Output:
	// dd;__libc_start_call_main;do_syscall_64_[k] 2006018
	// 2 samples, weight 2006018, error <nil>
}

// Off-CPU time from two sched:sched_switch samples: thread 5 blocks in
// read at 10.0 s and runs again at 10.25 s, 250,000 us later.
func ExampleOptions_offCPU() {
	var samples []sample.Sample
	sw := func(sec float64, payload string, frames ...sample.Frame) {
		samples = append(samples, sample.Sample{
			Comm: []byte("app"), TID: []byte("5"), CPU: 0,
			Time: folded.Time(sec * 1e9), HasTime: true,
			Event: []byte("sched:sched_switch"), Payload: []byte(payload), Frames: frames,
		})
	}
	sw(10.0, "prev_comm=app prev_pid=5 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120",
		sample.Frame{Addr: []byte("1"), Symbol: []byte("__schedule+0x618"), DSO: []byte("[kernel.kallsyms]")},
		sample.Frame{Addr: []byte("2"), Symbol: []byte("read"), DSO: []byte("/usr/lib/libc.so.6")})
	sw(10.25, "prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=app next_pid=5 next_prio=120")
	d := &collapse.Driver{Options: collapse.Options{OffCPU: true, NoTime: true}}
	d.Run(os.Stdout, []collapse.Input{{Name: "sched", Open: func() (collapse.Producer, error) {
		return collapse.Samples(nil, samples, 0), nil
	}}})
	// Output:
	// app;read;__schedule 250000
}
