package collapse

import (
	"strconv"
	"strings"
	"testing"

	"flamekit/pkg/sample"
)

func TestMatchEvent(t *testing.T) {
	tests := []struct {
		filter, name string
		want         bool
	}{
		{"sched:sched_switch", "sched:sched_switch", true},
		{"sched_switch", "sched:sched_switch", true},
		{"sched", "sched:sched_switch", true}, // a part between colons: ambiguity is caught later
		{"switch", "sched:sched_switch", false},
		{"cpu-clock", "cpu-clock:pppH", true},
		{"pppH", "cpu-clock:pppH", true},
		{"clock", "cpu-clock:pppH", false},
		{"cpu-clock", "cpu-clock/freq=99/", true},
		{"freq=99", "cpu-clock/freq=99/", true},
		{"cycles:u", "cycles:u", true},
		{"cycles", "cycles:u", true},
		{"probe_libc:malloc", "probe_libc:malloc", true},
		{"malloc", "probe_libc:mallocx", false},
		{"", "x", false},
	}
	for _, tc := range tests {
		if got := matchEvent([]byte(tc.filter), []byte(tc.name)); got != tc.want {
			t.Errorf("matchEvent(%q, %q) = %v", tc.filter, tc.name, got)
		}
	}
}

// event gives a sample an event, a period and a payload.
func event(s sample.Sample, name string, period int64, payload string) sample.Sample {
	s.Event = []byte(name)
	if period > 0 {
		s.Period, s.HasPeriod = period, true
	}
	if payload != "" {
		s.Payload = []byte(payload)
	}
	return s
}

func TestEventFilter(t *testing.T) {
	mixed := []sample.Sample{
		event(smp("a", "1 f (/a)"), "cpu-clock:pppH", 10, ""),
		event(smp("a", "1 __schedule ([kernel.kallsyms])"), "sched:sched_switch", 1, "prev_comm=a prev_pid=1 prev_state=S ==> next_comm=b next_pid=2"),
		event(smp("a", "1 g (/a)"), "cpu-clock:pppH", 10, ""),
		event(smp("b", "1 h (/a)"), "page-faults", 3, ""),
	}
	tests := []struct {
		name, filter, want, stderr string
		err                        bool
	}{
		{"the first event by default, tracepoints filtered", "", "a;f 10\na;g 10\n",
			"the input holds 3 events: cpu-clock:pppH (2 samples, kept), sched:sched_switch (1 sample), page-faults (1 sample); pick another with --event-filter NAME", false},
		{"a tracepoint by a part of its name", "sched_switch", "a;__schedule 1\n",
			"each line counts one context switch, not time; for the time threads spent off CPU use --off-cpu", false},
		{"cpu-clock without its modifiers", "cpu-clock", "a;f 10\na;g 10\n", "", false},
		{"an event that is not there", "cycles", "",
			`no samples of event "cycles": the input holds cpu-clock:pppH (2 samples), sched:sched_switch (1 sample), page-faults (1 sample)`, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := run(t, Options{NoTime: true, EventFilter: tc.filter}, mixed...)
			if (r.err != nil) != tc.err {
				t.Fatalf("err %v", r.err)
			}
			if r.out != tc.want {
				t.Errorf("got %q, want %q", r.out, tc.want)
			}
			if tc.stderr != "" && !strings.Contains(r.stderr, tc.stderr) {
				t.Errorf("stderr %q, want %q", r.stderr, tc.stderr)
			}
			if tc.stderr == "" && r.stderr != "" {
				t.Errorf("stderr %q, want none", r.stderr)
			}
		})
	}
	// A part that names two events: the first is kept, and the run fails.
	two := []sample.Sample{
		event(smp("a", "1 f (/a)"), "sched:sched_switch", 1, "x=1"),
		event(smp("a", "1 g (/a)"), "irq:sched_switch", 1, "x=1"),
	}
	r := run(t, Options{NoTime: true, EventFilter: "sched_switch"}, two...)
	if r.err == nil || !strings.Contains(r.err.Error(), `--event-filter "sched_switch" matches several events`) || r.out != "a;f 1\n" {
		t.Errorf("ambiguous filter: out %q, err %v", r.out, r.err)
	}
}

func TestWeight(t *testing.T) {
	tests := []struct {
		name, field, event, payload string
		want                        int64 // -1: left out
	}{
		{"name=value", "size", "probe_libc:malloc", "(7f541e093930) size=64", 64},
		{"hexadecimal", "size", "probe_libc:malloc", "(7f541e093930) size=0x40", 64},
		{"kmem", "bytes_alloc", "kmem:kmalloc", "call_site=x+0x1 ptr=0xffff bytes_req=100 bytes_alloc=128 gfp_flags=GFP_KERNEL node=-1 accounted=false", 128},
		{"sched_stat's [ns]", "delay", "sched:sched_stat_sleep", "comm=a pid=1 delay=2500 [ns]", 2500},
		{"syscalls' name: value", "count", "syscalls:sys_enter_read", "fd: 0x00000003, buf: 0x7ffd52a0, count: 0x00002000", 8192},
		{"block by position: nr_sector", "nr_sector", "block:block_rq_issue", "254,0 WS 1048576 () 321615200 + 2048 0x2,0,4 [dd]", 2048},
		{"block by position: bytes", "bytes", "block:block_rq_issue", "254,0 WS 1048576 () 321615200 + 2048 0x2,0,4 [dd]", 1048576},
		{"block_rq_complete has no bytes", "bytes", "block:block_rq_complete", "254,0 WS () 321615200 + 2048 0x2,0,4 [0]", -1},
		{"missing field", "size", "probe_libc:malloc", "(7f541e093930)", -1},
		{"not a number", "prev_comm", "sched:sched_switch", "prev_comm=perf prev_pid=1", -1},
		{"negative", "x", "e:e", "x=-5", -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := event(smp("p", "1 f (/a)"), tc.event, 1, tc.payload)
			r := run(t, Options{NoTime: true, Weight: tc.field}, s)
			if tc.want < 0 {
				if r.out != "" || r.sum.NoWeight != 1 || !strings.Contains(r.stderr, "left out 1 samples without a numeric payload field") {
					t.Errorf("out %q, no-weight %d, stderr %q", r.out, r.sum.NoWeight, r.stderr)
				}
				return
			}
			if want := "p;f " + strconv.FormatInt(tc.want, 10) + "\n"; r.out != want {
				t.Errorf("got %q, want %q (stderr %q)", r.out, want, r.stderr)
			}
		})
	}
}

func TestSymbolCheck(t *testing.T) {
	many := func(frame string, n int) []sample.Sample {
		var out []sample.Sample
		for range n {
			out = append(out, smp("p", frame, "1 main (/usr/bin/p)"))
		}
		return out
	}
	tests := []struct {
		name   string
		frame  string
		stderr string
	}{
		{"kernel", "ffffffff8103ce3b [unknown] ([unknown])", "of the kernel frames have no symbol ([unknown]): perf could not read the kernel's symbols"},
		{"kernel module", "ffffffffc0a1b2c3 [unknown] ([kernel.kallsyms])", "kptr_restrict=0"},
		{"a DSO without symbols", "12829 [unknown] (/usr/bin/dash)", "of the user frames have no symbol, most in /usr/bin/dash (40): install their debug symbols"},
		{"JIT code", "7f3a2b1c0d0e [unknown] ([unknown])", "in anonymous memory with no symbol, as JIT-compiled code is: have the runtime write /tmp/perf-PID.map"},
		{"a perf map without the address", "7f3a2b1c0d0e [unknown] (/tmp/perf-1234.map)", "/tmp/perf-PID.map"},
		{"bare addresses", "7f3a2b1c0d0e 0x7f3a2b1c0d0e (/usr/lib/libx.so)", "most in /usr/lib/libx.so"},
		{"resolved", "12829 parse_input (/usr/bin/dash)", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := run(t, Options{NoTime: true}, many(tc.frame, 40)...)
			if tc.stderr == "" {
				if r.stderr != "" {
					t.Errorf("stderr %q, want none", r.stderr)
				}
				return
			}
			if !strings.Contains(r.stderr, tc.stderr) || strings.Count(r.stderr, "\n") != 1 {
				t.Errorf("stderr %q, want one line with %q", r.stderr, tc.stderr)
			}
		})
	}
	// A few unresolved frames among many are not worth a word.
	samples := many("12829 [unknown] (/usr/bin/dash)", 10)
	samples = append(samples, many("12829 parse_input (/usr/bin/dash)", 100)...)
	if r := run(t, Options{NoTime: true}, samples...); r.stderr != "" {
		t.Errorf("stderr %q, want none", r.stderr)
	}
}
