package collapse

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"flamekit/pkg/perf/sample"
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
	const libc = "/usr/lib/x86_64-linux-gnu/libc.so.6"
	many := func(n int, comm string, frames ...string) []sample.Sample {
		var out []sample.Sample
		for range n {
			out = append(out, smp(comm, frames...))
		}
		return out
	}
	cat := func(lists ...[]sample.Sample) []sample.Sample { return slices.Concat(lists...) }
	tests := []struct {
		name    string
		samples []sample.Sample
		stderr  []string // a part of each line wanted; nil: no line
	}{
		{"kernel", many(40, "p", "ffffffff8103ce3b [unknown] ([unknown])", "1 main (/usr/bin/p)"),
			[]string{"of the kernel frames have no symbol ([unknown]): perf could not read the kernel's symbols"}},
		{"kernel module", many(40, "p", "ffffffffc0a1b2c3 [unknown] ([kernel.kallsyms])", "1 main (/usr/bin/p)"), []string{"kptr_restrict=0"}},
		{"a DSO without symbols", many(40, "p", "12829 [unknown] (/usr/bin/dash)", "1 main (/usr/bin/p)"),
			[]string{"of the user frames have no symbol, most in /usr/bin/dash (40): install their debug symbols"}},
		{"JIT code", many(40, "java", "7f3a2b1c0d0e [unknown] (/tmp/perf-1234.map)", "1 main (/usr/bin/java)"),
			[]string{"50% of the user frames are in anonymous memory with no symbol, as JIT-compiled code is: have the runtime write /tmp/perf-PID.map"}},
		{"anonymous memory", many(40, "node", "7f3a2b1c0d0e [unknown] (//anon)", "1 main (/usr/bin/node)"), []string{"as JIT-compiled code is"}},
		{"bare addresses", many(40, "p", "7f3a2b1c0d0e 0x7f3a2b1c0d0e (/usr/lib/libx.so)", "1 main (/usr/bin/p)"), []string{"most in /usr/lib/libx.so"}},
		{"resolved", many(40, "p", "12829 parse_input (/usr/bin/dash)", "1 main (/usr/bin/p)"), nil},
		// A frame-pointer walk gone astray: address 0 in no mapping,
		// after libc's getdents64, as in Debian's ls (burst capture).
		{"broken stacks", cat(
			many(30, "ls", "d0043 __GI___getdents64+0x13 ("+libc+")", "0 [unknown] ([unknown])"),
			many(20, "bash", "93790 list_append+0x0 (/usr/bin/bash)", "55d407370db0 [unknown] ([unknown])"),
			many(50, "ls", "1 main (/usr/bin/ls)", "2 __libc_start_main (/usr/lib/x86_64-linux-gnu/libc.so.6)")),
			[]string{"the user stacks of ls, bash are broken (50% of the samples with user frames): they run code built without frame pointers (libc.so.6, bash), " +
				"where the frame-pointer walk reached addresses in no mapping, such as 0x0. Record with perf record --call-graph dwarf, or build that code with -fno-omit-frame-pointer"}},
		{"broken at the user address itself", many(40, "dd", "ffffffff8103ce3b read+0x1 ([kernel.kallsyms])", "a [unknown] ([unknown])"),
			[]string{"the user stacks of dd are broken (100% of the samples with user frames): they run code built without frame pointers, where the frame-pointer walk reached addresses in no mapping. "}},
		// A chain caught in a loop repeats one address to perf's depth
		// limit: one sample, however many frames.
		{"a loop is one sample", cat(
			many(1, "ls", append([]string{"1098d9 clone3+0x19 (" + libc + ")"}, slices.Repeat([]string{"55c4bc7ea2b0 [unknown] ([unknown])"}, 120)...)...),
			many(40, "ls", "1 main (/usr/bin/ls)")), nil},
		{"few broken stacks", cat(
			many(9, "ls", "d0043 __GI___getdents64+0x13 ("+libc+")", "0 [unknown] ([unknown])"),
			many(5, "ls", "1 main (/usr/bin/ls)")), nil},
		{"a small share", cat(
			many(10, "ls", "d0043 __GI___getdents64+0x13 ("+libc+")", "0 [unknown] ([unknown])"),
			many(91, "ls", "1 main (/usr/bin/ls)")), nil},
		{"the missing symbols say less of frame pointers when the broken stacks are told", cat(
			many(40, "p", "12829 [unknown] (/usr/bin/dash)", "0 [unknown] ([unknown])")),
			[]string{"the user stacks of p are broken (100% of", "\nstackcollapse: 100% of the user frames have no symbol, most in /usr/bin/dash (40): install their debug symbols (Debian: the -dbgsym packages) or build with -g\n"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := run(t, Options{NoTime: true}, tc.samples...)
			if len(tc.stderr) == 0 {
				if r.stderr != "" {
					t.Errorf("stderr %q, want none", r.stderr)
				}
				return
			}
			lines := len(tc.stderr) // one line per part wanted
			for _, want := range tc.stderr {
				if !strings.Contains(r.stderr, want) {
					t.Errorf("stderr %q, want %q", r.stderr, want)
				}
			}
			if strings.Count(r.stderr, "\n") != lines {
				t.Errorf("stderr %q, want %d lines", r.stderr, lines)
			}
			if strings.Contains(r.stderr, "JIT") != strings.Contains(strings.Join(tc.stderr, ""), "JIT") {
				t.Errorf("stderr %q: JIT named where it is not the cause, or not named where it is", r.stderr)
			}
		})
	}
	// A few unresolved frames among many are not worth a word.
	samples := cat(many(10, "p", "12829 [unknown] (/usr/bin/dash)", "1 main (/usr/bin/p)"), many(100, "p", "12829 parse_input (/usr/bin/dash)", "1 main (/usr/bin/p)"))
	if r := run(t, Options{NoTime: true}, samples...); r.stderr != "" {
		t.Errorf("stderr %q, want none", r.stderr)
	}
}
