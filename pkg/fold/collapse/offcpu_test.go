package collapse

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"flamekit/pkg/folded"
	"flamekit/pkg/perf/sample"
)

// at returns a perf time from seconds.
func at(sec float64) folded.Time { return folded.Time(sec*1e9 + 0.5) }

// timed gives s a time, an event and a payload.
func timed(s sample.Sample, sec float64, event, payload string) sample.Sample {
	s.Time, s.HasTime = at(sec), true
	s.Event = []byte(event)
	if payload != "" {
		s.Payload = []byte(payload)
	}
	return s
}

// sw is a sched_switch sample taken in prev's context: prev switches out
// in state with the given stack (leaf first), next switches in.
func sw(sec float64, prev string, prevPID int, state string, next string, nextPID int, frames ...string) sample.Sample {
	s := smp(prev, frames...)
	s.TID = []byte(fmt.Sprint(prevPID))
	payload := fmt.Sprintf("prev_comm=%s prev_pid=%d prev_prio=120 prev_state=%s ==> next_comm=%s next_pid=%d next_prio=120",
		prev, prevPID, state, next, nextPID)
	return timed(s, sec, "sched:sched_switch", payload)
}

// wake is a sched_waking sample of target, taken in the waker's context.
func wake(sec float64, waker string, target int, frames ...string) sample.Sample {
	return timed(smp(waker, frames...), sec, "sched:sched_waking", fmt.Sprintf("comm=x pid=%d prio=120 target_cpu=000", target))
}

// onCPU is a cpu-clock sample of 10 ms.
func onCPU(sec float64, comm string, frames ...string) sample.Sample {
	s := timed(smp(comm, frames...), sec, "cpu-clock:pppH", "")
	s.Period, s.HasPeriod = 10000000, true
	return s
}

func TestOffCPUIntervals(t *testing.T) {
	k := "1 __schedule ([kernel.kallsyms])"
	tests := []struct {
		name    string
		opt     Options
		samples []sample.Sample
		want    string
		check   func(t *testing.T, r result)
	}{
		{"switch-out to switch-in, in microseconds", Options{},
			[]sample.Sample{
				sw(1.0, "a", 5, "S", "b", 6, k, "2 f (/a)"),
				sw(1.5, "b", 6, "R", "a", 5, k),
			},
			"a;f;__schedule 500000\n", nil},
		{"states S and D by default; D|K is D", Options{},
			[]sample.Sample{
				sw(1.0, "a", 5, "R+", "b", 6, k),
				sw(1.1, "b", 6, "D|K", "a", 5, k),
				sw(1.2, "a", 5, "I", "b", 6, k),
				sw(1.4, "b", 6, "R", "a", 5, k),
			},
			"b;__schedule 100000\n", nil},
		{"--states all counts preemption and idle waits", Options{States: "all"},
			[]sample.Sample{
				sw(1.0, "a", 5, "R+", "b", 6, k),
				sw(1.1, "b", 6, "D|K", "a", 5, k),
				sw(1.2, "a", 5, "I", "b", 6, k),
				sw(1.4, "b", 6, "R", "a", 5, k),
			},
			"a;__schedule 300000\nb;__schedule 100000\n", nil},
		{"--states letters", Options{States: "I"},
			[]sample.Sample{
				sw(1.0, "a", 5, "I", "b", 6, k),
				sw(1.1, "b", 6, "S", "a", 5, k),
				sw(1.2, "a", 5, "R", "b", 6, k),
			},
			"a;__schedule 100000\n", nil},
		{"pid 0 (idle) is ignored", Options{},
			[]sample.Sample{
				sw(1.0, "swapper/0", 0, "S", "a", 5, k),
				sw(1.1, "a", 5, "S", "swapper/0", 0, k),
				sw(1.3, "swapper/0", 0, "R", "a", 5, k),
			},
			"a;__schedule 200000\n", nil},
		{"keyed on the payload: an exiting task is printed :-1", Options{},
			[]sample.Sample{
				sw(1.0, "a", 5, "S", "b", 6, k),
				func() sample.Sample {
					s := sw(1.25, "b", 6, "X", "a", 5)
					s.Comm, s.PID, s.TID = []byte(":-1"), []byte("-1"), []byte("-1")
					return s
				}(),
				sw(1.5, "a", 5, "S", "c", 7, k),
			},
			"a;__schedule 250000\n", func(t *testing.T, r result) {
				if s := r.sum.OffCPU; s.OpenAtEnd != 1 || s.OpenAtStart != 2 || s.Intervals != 1 {
					t.Errorf("stats %+v: want 1 interval, 1 open at the end (a), 2 first switch-ins (b, c)", s)
				}
				if !strings.Contains(r.stderr, "left out 1 still open at the capture's end") {
					t.Errorf("stderr %q", r.stderr)
				}
			}},
		{"--clip-open counts an open interval to the last sample", Options{ClipOpen: true},
			[]sample.Sample{
				sw(1.0, "a", 5, "S", "b", 6, k),
				onCPU(1.75, "b"),
			},
			"a;__schedule 750000\n", nil},
		{"a second switch-out means a lost switch-in", Options{},
			[]sample.Sample{
				sw(1.0, "a", 5, "S", "b", 6, k),
				sw(1.2, "a", 5, "S", "b", 6, k),
				sw(1.3, "b", 6, "R", "a", 5, k),
			},
			"a;__schedule 100000\n", func(t *testing.T, r result) {
				if r.sum.OffCPU.Lost != 1 || !strings.Contains(r.stderr, "1 switch-outs came while the thread was already off CPU") {
					t.Errorf("lost %d, stderr %q", r.sum.OffCPU.Lost, r.stderr)
				}
			}},
		{"--min-block and --max-block", Options{MinBlock: 150 * time.Millisecond, MaxBlock: 300 * time.Millisecond},
			[]sample.Sample{
				sw(1.0, "a", 5, "S", "b", 6, k),
				sw(1.1, "b", 6, "S", "a", 5, k), // a: 100 ms, too short
				sw(1.3, "a", 5, "S", "b", 6, k), // b: 200 ms
				sw(1.7, "b", 6, "S", "a", 5, k), // a: 400 ms, too long
			},
			"b;__schedule 200000\n", func(t *testing.T, r result) {
				if s := r.sum.OffCPU; s.Short != 1 || s.Long != 1 {
					t.Errorf("stats %+v", s)
				}
			}},
		{"intervals under a microsecond are dropped", Options{},
			[]sample.Sample{
				sw(1.0, "a", 5, "S", "b", 6, k),
				sw(1.0000005, "b", 6, "S", "a", 5, k),
			},
			"", nil},
		{"wakers in offwaketime's layout", Options{Wakers: true},
			[]sample.Sample{
				sw(1.0, "a", 5, "S", "b", 6, k, "2 read (/libc)", "3 main (/a)"),
				wake(1.2, "b", 5, "4 try_to_wake_up ([kernel.kallsyms])", "5 pipe_write ([kernel.kallsyms])", "6 writer (/b)"),
				wake(1.3, "c", 5, "7 other ([kernel.kallsyms])"), // only the first wakeup counts
				sw(1.4, "b", 6, "S", "a", 5, k),
				sw(1.5, "a", 5, "S", "b", 6, k),
				sw(1.6, "c", 8, "R", "a", 5, k),
			},
			"a;__schedule 100000\na;main;read;__schedule;--;try_to_wake_up;pipe_write;writer;b 400000\nb;__schedule 100000\n",
			func(t *testing.T, r result) {
				if s := r.sum.OffCPU; s.WithWaker != 1 || s.NoWaker != 2 {
					t.Errorf("stats %+v", s)
				}
			}},
		{"hot/cold: on-CPU and off-CPU time in microseconds, off-CPU frames marked", Options{HotCold: true},
			[]sample.Sample{
				onCPU(0.9, "a", "1 compute (/a)", "2 main (/a)"),
				sw(1.0, "a", 5, "S", "b", 6, k, "2 main (/a)"),
				sw(1.5, "b", 6, "R", "a", 5, k),
			},
			"a;main;compute 10000\na;main_[i];__schedule_[i] 500000\n", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opt := tc.opt
			if !opt.HotCold {
				opt.OffCPU = true
			}
			opt.NoTime = true
			r := run(t, opt, tc.samples...)
			if r.err != nil {
				t.Fatal(r.err)
			}
			if r.out != tc.want {
				t.Errorf("got\n%s\nwant\n%s\nstderr %s", r.out, tc.want, r.stderr)
			}
			if r.sum.Unit != "us" {
				t.Errorf("unit %q", r.sum.Unit)
			}
			if tc.check != nil {
				tc.check(t, r)
			}
		})
	}
}

// TestOffCPUTimed checks timed off-CPU output: one line per interval cut at
// whole seconds, stamped with the switch-in (or the second's last
// microsecond), in time order, with the unit in the metadata.
func TestOffCPUTimed(t *testing.T) {
	k := "1 __schedule ([kernel.kallsyms])"
	r := run(t, Options{OffCPU: true},
		sw(1.7, "a", 5, "S", "b", 6, k),
		sw(2.1, "b", 6, "S", "c", 7, k),
		sw(2.2, "c", 7, "R", "b", 6, k), // b: 2.1 to 2.2
		sw(3.2, "b", 6, "R", "a", 5, k), // a: 1.7 to 3.2, written after b's
	)
	want := `# flamekit v1 timed event="sched:sched_switch" weight="off-cpu" unit="us"
a;__schedule 300000 @1.999999 tid=5
b;__schedule 100000 @2.200000 tid=6
a;__schedule 1000000 @2.999999 tid=5
a;__schedule 200000 @3.200000 tid=5
# flamekit v1 timed event="sched:sched_switch" first="1.999999" last="3.200000" samples="4" weight="off-cpu" unit="us"
`
	if r.out != want {
		t.Errorf("got\n%s\nwant\n%s", r.out, want)
	}
	if r.sum.Weight != 1600000 || r.sum.Samples != 4 {
		t.Errorf("summary %+v", r.sum)
	}
}

// TestSchedStat reads the input of FlameGraph's stackcollapse-perf-sched.awk:
// sched_stat_sleep/blocked/iowait give the delay from switch-out to
// wakeup, attributed to the stack of the last switch-out, once per sleep.
func TestSchedStat(t *testing.T) {
	k := "1 __schedule ([kernel.kallsyms])"
	stat := func(sec float64, event string, pid int, delay int) sample.Sample {
		return timed(smp("waker", "9 ttwu ([kernel.kallsyms])"), sec, event, fmt.Sprintf("comm=a pid=%d delay=%d [ns]", pid, delay))
	}
	samples := []sample.Sample{
		sw(1.0, "a", 5, "S", "b", 6, k, "2 f (/a)"),
		stat(1.3, "sched:sched_stat_sleep", 5, 300000000),
		stat(1.3, "sched:sched_stat_blocked", 5, 300000000), // the same sleep again: ignored
		sw(1.35, "b", 6, "R", "a", 5, k),
		sw(2.0, "a", 5, "D", "b", 6, k, "3 g (/a)"),
		stat(2.1, "sched:sched_stat_iowait", 5, 100000000),
	}
	r := run(t, Options{OffCPU: true, NoTime: true}, samples...)
	if want := "a;f;__schedule 300000\na;g;__schedule 100000\n"; r.out != want || r.sum.OffCPU.Source != "sched:sched_stat_*" {
		t.Errorf("got %q (source %q), want %q", r.out, r.sum.OffCPU.Source, want)
	}
	r = run(t, Options{OffCPU: true, NoTime: true, Wakers: true}, samples[:3]...)
	if want := "a;f;__schedule;--;ttwu;waker 300000\n"; r.out != want {
		t.Errorf("--wakers: got %q, want %q", r.out, want)
	}
	r = run(t, Options{OffCPU: true, NoTime: true, States: "S"}, samples...)
	if want := "a;f;__schedule 300000\n"; r.out != want {
		t.Errorf("--states S: got %q, want %q", r.out, want)
	}
}

// TestOffCPUTimeEvent reads perf record --off-cpu's offcpu-time samples:
// the period is the time off CPU; most carry a dummy end-of-run time that
// does not fit a perf time, and are written without one.
func TestOffCPUTimeEvent(t *testing.T) {
	real := timed(smp("a", "1 read (/libc)", "2 main (/a)"), 5.5, "offcpu-time", "")
	real.Period, real.HasPeriod = 700000000, true
	dummy := smp("a", "3 poll (/libc)", "2 main (/a)")
	dummy.Event, dummy.Period, dummy.HasPeriod = []byte("offcpu-time"), 2500000, true // no usable time
	cpu := onCPU(5.0, "a", "4 work (/a)")
	r := run(t, Options{OffCPU: true}, cpu, real, dummy)
	want := `# flamekit v1 timed event="offcpu-time" weight="off-cpu" unit="us"
a;main;read 200000 @4.999999 tid=1
a;main;read 500000 @5.500000 tid=1
a;main;poll 2500
# flamekit v1 timed event="offcpu-time" first="4.999999" last="5.500000" samples="3" weight="off-cpu" unit="us"
`
	if r.out != want {
		t.Errorf("got\n%s\nwant\n%s", r.out, want)
	}
	if r.sum.OffCPU.Untimed != 1 || !strings.Contains(r.stderr, "1 offcpu-time samples carry perf's end-of-run time") {
		t.Errorf("untimed %d, stderr %q", r.sum.OffCPU.Untimed, r.stderr)
	}
}

// TestOffCPUWhere: an off-CPU line carries the thread switched out (tid),
// its process when the sample is that thread's (pid), and the CPU it left
// (cpu), so that timeslice --tid, --pid and --cpu select off-CPU time; a
// sched_stat interval carries those of its switch-out; --hot-cold's
// on-CPU lines carry their sample's, as without --hot-cold.
func TestOffCPUWhere(t *testing.T) {
	k := "1 __schedule ([kernel.kallsyms])"
	on := func(s sample.Sample, cpu int, pid int32) sample.Sample {
		s.CPU, s.ProcessID, s.HasProcessID = cpu, pid, true
		return s
	}
	stat := timed(smp("waker", "9 ttwu ([kernel.kallsyms])"), 1.3, "sched:sched_stat_sleep", "comm=a pid=5 delay=300000000 [ns]")
	stranger := sw(1.5, "c", 7, "S", "b", 6, k) // its header names another thread than prev_pid
	stranger.TID = []byte("8")
	for _, tc := range []struct {
		name    string
		opt     Options
		samples []sample.Sample
		want    string
	}{
		{"switch", Options{OffCPU: true}, []sample.Sample{
			on(sw(1.0, "a", 5, "S", "b", 6, k), 1, 100),
			on(sw(1.2, "b", 6, "R", "a", 5, k), 0, 200),
		}, "a;__schedule 200000 @1.200000 cpu=1 pid=100 tid=5\n"},
		{"header of another thread", Options{OffCPU: true}, []sample.Sample{
			on(stranger, 1, 100),
			on(sw(1.7, "b", 6, "R", "c", 7, k), 0, 200),
		}, "c;__schedule 200000 @1.700000 cpu=1 tid=7\n"},
		{"sched_stat", Options{OffCPU: true}, []sample.Sample{
			on(sw(1.0, "a", 5, "S", "b", 6, k, "2 f (/a)"), 1, 100),
			on(stat, 0, 300),
		}, "a;f;__schedule 300000 @1.300000 cpu=1 pid=100 tid=5\n"},
		{"hot-cold", Options{HotCold: true}, []sample.Sample{
			on(onCPU(0.9, "a", "4 work (/a)"), 1, 100),
			on(sw(1.0, "a", 5, "S", "b", 6, k), 1, 100),
			on(sw(1.2, "b", 6, "R", "a", 5, k), 0, 200),
		}, "a;work 10000 @0.900000 cpu=1 pid=100 tid=1\na;__schedule_[i] 200000 @1.200000 cpu=1 pid=100 tid=5\n"},
	} {
		r := run(t, tc.opt, tc.samples...)
		var lines []string
		for _, l := range strings.SplitAfter(r.out, "\n") {
			if l != "" && !strings.HasPrefix(l, "#") {
				lines = append(lines, l)
			}
		}
		if got := strings.Join(lines, ""); got != tc.want {
			t.Errorf("%s: got\n%s\nwant\n%s", tc.name, got, tc.want)
		}
	}
}

func TestOffCPUErrors(t *testing.T) {
	r := run(t, Options{OffCPU: true}, onCPU(1, "a", "1 f (/a)"))
	if r.err == nil || !strings.Contains(r.err.Error(), "--off-cpu needs sched:sched_switch samples") {
		t.Errorf("no scheduler events: err %v", r.err)
	}
	if r := run(t, Options{OffCPU: true}); r.err != nil || r.out != "" {
		t.Errorf("empty input: %q %v", r.out, r.err)
	}
	for _, opt := range []Options{
		{OffCPU: true, Weight: "size"},
		{OffCPU: true, EventFilter: "cpu-clock"},
		{OffCPU: true, States: "S?"},
		{OffCPU: true, MinBlock: time.Second, MaxBlock: time.Millisecond},
		{Weight: "no spaces"},
	} {
		if _, err := newStage(nil, opt); err == nil {
			t.Errorf("%+v: no error", opt)
		}
	}
	r = run(t, Options{Wakers: true}, sw(1, "a", 5, "S", "b", 6))
	if !strings.Contains(r.stderr, "--wakers: the input has no sched:sched_waking") {
		t.Errorf("--wakers without wakeups: stderr %q", r.stderr)
	}
}

func TestStatesOf(t *testing.T) {
	for in, want := range map[string]string{"S": "S", "D|K": "DK", "R+": "R", "": "", "X": "X", "t": "t"} {
		var w stateSet
		for i := 0; i < len(want); i++ {
			w |= stateBit(want[i])
		}
		if got := statesOf([]byte(in)); got != w {
			t.Errorf("statesOf(%q) = %b, want %b", in, got, w)
		}
	}
}
