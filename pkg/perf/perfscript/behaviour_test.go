package perfscript

import (
	"bytes"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"flamekit/internal/testkit/golden"
	"flamekit/pkg/folded"
)

// TestDeliberateDifferences covers each difference from
// stackcollapse-perf.pl listed in ../shared/compat/README.md.
func TestDeliberateDifferences(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"last sample without trailing blank line is kept",
			"prog 12 1.000000: 7 cycles:\n\t1 a (/x)\n\nprog 12 2.000000: 5 cycles:\n\t1 b (/x)\n",
			"prog;a 7\nprog;b 5\n"},
		{"CRLF input is read",
			"prog 12 1.000000: 7 cycles:\r\n\t1 a (/x)\r\n\t2 main (/x)\r\n\r\nprog 12 2.0: 5 cycles:\r\n\t1 b (/x)\r\n\r\n",
			"prog;b 5\nprog;main;a 7\n"},
		{"single frame on the event line (no -g)",
			"false 64414 20110.5: 34467 cycles:u:  ffffffff8103ce3b [unknown] ([unknown])\n" +
				"         swapper     0 [000]   682.984451:   10101010 cpu-clock:pppH:  ffffffff821f236b pv_native_safe_halt+0xb ([kernel.kallsyms])\n" +
				"   tricky 12 [3] 19268 [001]   682.984521:   10101010 cycles:u:      7ffa70765127 __strcmp_evex+0x7 (/usr/lib/libc.so.6)\n",
			"false;[unknown] 34467\ntricky_12_[3];__strcmp_evex 10101010\n"},
		{"frames in deleted files keep their symbol and module (TestDeletedModules)",
			"p 1 1.0: 1 ev:\n\t1 leaf+0x10 (/usr/lib/libx.so.1 (deleted))\n\tc6a96 [unknown] (/memfd:sealed-91 (deleted))\n\t2 main (/x)\n\n",
			"p;main;[memfd:sealed-91 (deleted)];leaf 1\n"},
		{"Go receivers keep their names",
			"go 1 1.0: 1 ev:\n\t1 net/http.(*Client).Do+0x10 (/x)\n\t2 main.(*Pool).run (/x)\n\n",
			"go;main.(*Pool).run;net/http.(*Client).Do 1\n"},
		{"anonymous namespace kept, arguments stripped",
			"cc 1 1.0: 1 ev:\n\t1 (anonymous namespace)::hidden_mix(int) (/x)\n\t2 ns::(anonymous namespace)::f(int const&) (/x)\n\n",
			"cc;ns::(anonymous namespace)::f;(anonymous namespace)::hidden_mix 1\n"},
		{"std::function and lambdas keep their names",
			"cc 1 1.0: 1 ev:\n\t1 std::function<int (int, int)>::operator()(int, int) const (/x)\n" +
				"\t2 main::{lambda(int, int)#1}::operator()(int, int) const (/x)\n" +
				"\t3 foo(int) [clone .isra.0] (/x)\n\n",
			"cc;foo;main::{lambda(int, int)#1}::operator();std::function<int (int, int)>::operator() 1\n"},
		{"comm with spaces and digits kept whole",
			"Thread 2 pool 1234/1235 [000] 1.0: 5 cycles:\n\t1 x (/a)\n\n" +
				"io 12 [3] 77 [001] 2.0: 6 cycles:\n\t1 y (/a)\n\n" +
				"a 77 [000] 3.0: 3 cycles:\n\t1 z (/a)\n\n",
			"Thread_2_pool;x 5\na;z 3\nio_12_[3];y 6\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, w := range []int{1, 3} {
				got := collapseText(t, []byte(tc.in), Options{NoTime: true}, w, 16)
				if got.out != tc.want {
					t.Errorf("workers %d:\ngot  %q\nwant %q\nstderr %s", w, got.out, tc.want, got.stderr)
				}
				if got.sum.Skipped.Count != 0 {
					t.Errorf("unrecognised lines: %s", got.stderr)
				}
			}
		})
	}
}

// TestPerlRules pins rules of stackcollapse-perf.pl that the fixtures do
// not all show.
func TestPerlRules(t *testing.T) {
	tests := []struct {
		name string
		opt  Options
		in   string
		want string
	}{
		{"period 0 and missing period count 1", Options{},
			"swapper 0/0 [000] 1.0: 0 cpu-clock:\n\t1 idle (/x)\n\nswapper 0 [000] 2.0: cpu-clock:\n\t1 idle (/x)\n\n",
			"swapper;idle 2\n"},
		{"tid 0 means pid ?", Options{TID: true},
			"swapper 0/0 [000] 1.0: 1 cpu-clock:\n\t1 idle (/x)\n\nbash 10/11 2.0: 2 cpu-clock:\n\t1 f (/x)\n\n",
			"bash-10/11;f 2\nswapper-?/0;idle 1\n"},
		{"tracepoints are filtered like other events (not by Perl)", Options{},
			"a 1 1.0: 5 cpu-clock:\n\t1 f (/x)\n\ntp 2 2.0: sched:sched_switch: prev_comm=x\n\t1 g ([kernel.kallsyms])\n\n",
			"a;f 5\n"},
		{"a tracepoint can be kept, weighted by its period", Options{EventFilter: "sched_switch"},
			"a 1 1.0: 5 cpu-clock:\n\t1 f (/x)\n\ntp 2 2.0: 1 sched:sched_switch: prev_comm=x\n\t1 g ([kernel.kallsyms])\n\n",
			"tp;g 1\n"},
		{"offset strip is lowercase only", Options{},
			"p 1 1.0: 1 ev:\n\t1 A+0x1A (/x)\n\t2 B+0x1a (/x)\n\t3 C+0x10/0x20 (/x)\n\n",
			"p;C+0x10/0x20;B;A+0x1A 1\n"},
		{"frames starting with ( are dropped", Options{},
			"p 1 1.0: 1 ev:\n\t1 a (/x)\n\t2 (deleted) (/x)\n\n",
			"p;a 1\n"},
		{"-> pieces, ; and quotes", Options{},
			"p 1 1.0: 1 ev:\n\t1 a->b->c (/x)\n\t2 x;y (/x)\n\t3 R:[\"'] (/x)\n\n",
			"p;R:[];x:y;a;b_[i];c_[i] 1\n"},
		{"unknown symbols", Options{Addrs: true},
			"p 1 1.0: 1 ev:\n\t7f5 [unknown] ([unknown])\n\t12829 [unknown] (/usr/bin/dash)\n\n",
			"p;[dash <12829>];[unknown <7f5>] 1\n"},
		{"kernel and jit annotations", Options{Kernel: true, JIT: true},
			"java 1 1.0: 1 ev:\n\t1 Lfoo/Bar;::m (/tmp/perf-12.map)\n\t2 sys ([kernel.kallsyms])\n\t3 u (/usr/lib/x.so)\n\n",
			"java;u;sys_[k];foo/Bar:::m_[j] 1\n"},
		{"header while a sample is open overwrites it", Options{},
			"a 1 1.0: 1 ev:\n\t1 x (/x)\nb 2 2.0: 3 ev:\n\t1 y (/x)\n\n",
			"b;y;x 3\n"},
		{"frames of a filtered sample are ignored", Options{},
			"a 1 1.0: 1 ev:\n\t1 x (/x)\n\nb 2 2.0: 3 other:\n\t1 y (/x)\n\n",
			"a;x 1\n"},
		{"sample without frames counts as its comm", Options{},
			"emptystack 12 [001] 1.0: 5 cycles:\n\n",
			"emptystack 5\n"},
		{"no-idle drops idle stacks", Options{NoIdle: true},
			"swapper 0 [000] 1.0: 1 ev:\n\t1 default_idle ([kernel.kallsyms])\n\t2 do_idle ([kernel.kallsyms])\n\n" +
				"swapper 0 [000] 2.0: 1 ev:\n\t1 handle_softirqs ([kernel.kallsyms])\n\t2 do_idle ([kernel.kallsyms])\n\n",
			"swapper;do_idle;handle_softirqs 1\n"},
		{"srcline lines are consumed and appended", Options{Srcline: true},
			"p 1 1.0: 1 ev:\n\t1 a (/x)\n  inl.c:4\n\t2 [unknown] ([unknown])\n\t3 b ([kernel.kallsyms])\n  [kernel.kallsyms][ffff]\n\n",
			"p;b;[unknown];a:inl.c:4 1\n"},
		{"side-band records are not samples", Options{},
			"swapper     0 [000]     0.000000: PERF_RECORD_FORK(1:1):(0:0)\nkthreadd     0 [000]     0.000000: PERF_RECORD_COMM: kthreadd:2/2\n",
			""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opt := tc.opt
			opt.NoTime = true
			got := sequential(t, []byte(tc.in), opt)
			if got.out != tc.want {
				t.Errorf("got  %q\nwant %q\nstderr %s", got.out, tc.want, got.stderr)
			}
		})
	}
}

// TestTimedOutput checks the metadata lines and the timed lines.
func TestTimedOutput(t *testing.T) {
	data := readFile(t, "testdata/samples/clock-monotonic-F-tod-header.txt")
	got := sequential(t, data, Options{})
	lines := strings.Split(strings.TrimSuffix(got.out, "\n"), "\n")
	if !folded.IsMeta([]byte(lines[0])) || !folded.IsMeta([]byte(lines[len(lines)-1])) {
		t.Fatalf("want metadata lines first and last:\n%s\n%s", lines[0], lines[len(lines)-1])
	}
	m, err := folded.ParseMeta([]byte(lines[0]))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"host": "vm", "os-release": "6.18.44-fc-v595", "perf-version": "6.1.187",
		"captured-on": "Sun Nov 22 02:01:05 2026", "event": "cpu-clock",
		"first": "692.727303", "last": "693.870184", "clockid": "monotonic",
		"ref-wall": "2026-11-22T02:01:04.284867Z", "ref-perf": "692.619527301",
		"cmdline": "/usr/bin/perf record -q -a -g -F 49 -k CLOCK_MONOTONIC -e cpu-clock -e printk:console -o mono.data -- ./work.sh",
	}
	for k, v := range want {
		if g, _ := m.Get(k); g != v {
			t.Errorf("meta %s = %q, want %q", k, g, v)
		}
	}
	wall, perf, ok := m.Reference()
	if !ok || wall.Unix() != 1795312864 || perf.String() != "692.619527301" {
		t.Errorf("Reference() = %v %v %v", wall, perf, ok)
	}
	end, _ := folded.ParseMeta([]byte(lines[len(lines)-1]))
	var rec folded.Record
	n := 0
	var prev folded.Time
	for _, l := range lines[1 : len(lines)-1] {
		if err := folded.ParseLine([]byte(l), &rec); err != nil || rec.Kind != folded.Timed {
			t.Fatalf("not a timed line: %q (%v)", l, err)
		}
		if rec.Time < prev {
			t.Errorf("time goes back at %q", l)
		}
		prev = rec.Time
		n++
	}
	if s, _ := end.Get("samples"); s != strconv.Itoa(n) {
		t.Errorf("closing samples=%q, %d timed lines", s, n)
	}
	if f, _ := end.Get("first"); f != "692.727303" {
		t.Errorf("closing first=%q", f)
	}
	// Untimed input gives classic output.
	untimed := "prog 12 ev:\n\t1 a (/x)\n\n"
	if got := sequential(t, []byte(untimed), Options{}); got.out != "prog;a 1\n" || got.sum.Timed {
		t.Errorf("untimed input: %q", got.out)
	}
	// Without --header: a metadata line with what is known.
	in := "p 1 1.5: 5 ev:\n\t1 a (/x)\n\n"
	got = sequential(t, []byte(in), Options{})
	wantOut := "# flamekit v1 timed event=\"ev\"\np;a 5 @1.500000 tid=1\n# flamekit v1 timed event=\"ev\" first=\"1.500000\" last=\"1.500000\" samples=\"1\"\n"
	if got.out != wantOut {
		t.Errorf("got %q\nwant %q", got.out, wantOut)
	}
	// Side-band records at 0.000000 never count as first.
	side := readFile(t, "testdata/samples/syswide-show-task-events-time-zero.txt")
	if got := sequential(t, side, Options{}); strings.Contains(got.out, "first=\"0.") {
		t.Errorf("side-band time counted: %s", got.out)
	}
}

// TestParallelEqualsSequential: the output must not depend on how the
// input is cut or how many workers parse it.
func TestParallelEqualsSequential(t *testing.T) {
	inputs, _ := filepath.Glob("../../../testdata/perf/*.txt.gz")
	samples, _ := filepath.Glob("testdata/samples/*.txt")
	compat, _ := filepath.Glob("testdata/compat/*.txt")
	inputs = append(append(inputs, samples...), compat...)
	for _, path := range inputs {
		data := readFile(t, path)
		opts := []Options{{}, {NoTime: true}, {NoTime: true, TID: true, Kernel: true}, {NoIdle: true}}
		if strings.Contains(path, "offcpu") || strings.Contains(path, "hotcold") || strings.Contains(path, "tracepoint") {
			opts = append(opts, Options{OffCPU: true}, Options{OffCPU: true, Wakers: true, States: "all", ClipOpen: true},
				Options{HotCold: true, NoTime: true})
		}
		for _, opt := range opts {
			seq := sequential(t, data, opt)
			for _, cfg := range [][2]int{{2, 1}, {2, 700}, {4, 4096}, {3, 64 << 10}} {
				par := collapseText(t, data, opt, cfg[0], cfg[1])
				if par.out != seq.out || par.stderr != seq.stderr || !sameSummary(par.sum, seq.sum) {
					t.Fatalf("%s %+v workers %d chunk %d: differs from sequential:\n%s\nstderr %q vs %q",
						path, opt, cfg[0], cfg[1], golden.Diff([]byte(seq.out), []byte(par.out)), seq.stderr, par.stderr)
				}
			}
		}
	}
}

// TestWeightConserved: the total of the output equals the sum of the
// periods of the samples read, counted independently here.
func TestWeightConserved(t *testing.T) {
	header := regexp.MustCompile(`^\S.*?\s+\d+(?:/\d+)?\s+(?:\[\d+\]\s+)?\d+\.\d+:\s+(\d+)\s+(\S+):\s*$`)
	for _, name := range []string{"kernel", "syswide", "java", "mixed-events", "clock-mono"} {
		data := readFile(t, filepath.Join("../../../testdata/perf", name+".txt.gz"))
		var want float64
		event := ""
		for _, l := range strings.Split(string(data), "\n") {
			if m := header.FindStringSubmatch(l); m != nil {
				if event == "" {
					event = m[2]
				}
				if m[2] == event {
					p, _ := strconv.ParseFloat(m[1], 64)
					want += p
				}
			}
		}
		for _, opt := range []Options{{}, {NoTime: true}} {
			got := collapseText(t, data, opt, 2, 8192)
			if tot := total(t, got.out); tot != want || float64(got.sum.Weight) != want {
				t.Errorf("%s %+v: output total %v, summary %v, periods read %v", name, opt, tot, got.sum.Weight, want)
			}
		}
	}
}

// TestEventFilterKeepsExactly: on mixed captures (cpu-clock and
// page-faults; cpu-clock and sched:sched_switch), --event-filter keeps
// exactly the named event, tracepoints included: the output total is the
// sum of that event's periods (1 for a sample without one), counted here
// independently, and the metadata names it.
func TestEventFilterKeepsExactly(t *testing.T) {
	header := regexp.MustCompile(`(?m)^\S.*?\s\d+\.\d+:\s+(?:(\d+)\s+)?(\S+):(?:\s.*)?$`)
	for _, name := range []string{"mixed-events", "hotcold", "offcpu"} {
		data := readFile(t, filepath.Join("../../../testdata/perf", name+".txt.gz"))
		want := map[string]float64{}
		for _, m := range header.FindAllSubmatch(data, -1) {
			p := 1.0
			if len(m[1]) > 0 && string(m[1]) != "0" {
				p, _ = strconv.ParseFloat(string(m[1]), 64)
			}
			want[string(m[2])] += p
		}
		if len(want) < 2 {
			t.Fatalf("%s: events %v, want a mixed capture", name, want)
		}
		for event, sum := range want {
			for _, filter := range []string{event, event[strings.LastIndexByte(event, ':')+1:]} {
				got := collapseText(t, data, Options{EventFilter: filter}, 2, 64<<10)
				if got.err != nil {
					// A part that names several events is refused.
					if !strings.Contains(got.err.Error(), "matches several events") {
						t.Errorf("%s --event-filter %s: %v", name, filter, got.err)
					}
					continue
				}
				if tot := total(t, got.out); tot != sum {
					t.Errorf("%s --event-filter %s: total %v, the event's periods sum to %v", name, filter, tot, sum)
				}
				if !strings.Contains(got.out, `event="`+event+`"`) {
					t.Errorf("%s --event-filter %s: metadata does not name %s", name, filter, event)
				}
			}
		}
	}
}

// TestDeletedModules: perf prints a frame in a deleted file (a library
// upgraded while the program ran, a memfd) as "sym+0x10 (/lib/x (deleted))".
// stackcollapse-perf.pl takes "deleted" for the module and folds the frame
// to "sym+0x10 " or "[unknown] "; flamekit reads the module whole, as the
// perf.data reader knows it, so both paths fold to the same frames.
func TestDeletedModules(t *testing.T) {
	data := readFile(t, "../../../testdata/perf/burst.txt.gz")
	if !bytes.Contains(data, []byte(" (deleted))")) {
		t.Fatal("the burst capture has no frame in a deleted file any more")
	}
	for _, rule := range []bool{false, true} {
		perlModuleRule = rule
		got := sequential(t, data, Options{NoTime: true})
		perlModuleRule = false
		perlSplit := strings.Contains(got.out, "[unknown] ;") || strings.Contains(got.out, "[unknown]  ")
		if perlSplit != rule {
			t.Errorf("Perl's module rule %v: a frame split inside \"(... (deleted))\" = %v", rule, perlSplit)
		}
		if !rule && !strings.Contains(got.out, " (deleted)]") {
			t.Error("no [module (deleted)] frame for the unknown symbols of deleted files")
		}
	}
}
