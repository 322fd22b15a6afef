package perfscript

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"flamekit/internal/testkit/golden"
)

// TestPerlFixtures runs the inputs of ../shared/compat/fixtures (copied to
// testdata/compat) with every flag and compares with what
// stackcollapse-perf.pl printed. The real captures must match exactly; the
// synthetic inputs differ only where flamekit deliberately differs.
func TestPerlFixtures(t *testing.T) {
	// Lines of Perl's output that flamekit replaces, per fixture, and why.
	deliberate := map[string][]string{
		"synthetic-frames": {
			// "Thread 2 pool 1234 ...": the whole comm is kept.
			"Thread",
			// "(anonymous namespace)::bar(int const&)" is kept as a frame.
			"V8_WorkerThread",
		},
		"synthetic-headers": {
			// One-character comms "a" and "0": Perl matches a later
			// number and makes "a_77_[000]_1.0:" the root frame.
			"0_77_[000]_1.0:", "a_77_[000]_1.0:",
		},
	}
	// Lines of Perl's output that flamekit leaves out, and why: their
	// weight is missing from flamekit's total.
	dropped := map[string][]string{
		"synthetic-headers": {
			// A sched:sched_switch sample among cpu-clock samples: Perl
			// never filters tracepoints (their payload hides the event
			// from its pattern); flamekit keeps one event.
			"tp;", "tp-",
		},
	}
	for _, name := range []string{"perf-script-default", "perf-script-no-period", "perf-script-pid-tid-period",
		"perf-script-two-events", "synthetic-frames", "synthetic-headers"} {
		data := readFile(t, filepath.Join("testdata/compat", name+".txt"))
		for _, fs := range flagSets {
			t.Run(name+"/"+fs.name, func(t *testing.T) {
				opt := fs.opt
				opt.NoTime = true
				got := sequential(t, data, opt)
				want := string(readFile(t, filepath.Join("testdata/compat/expected", name+".collapsed-"+fs.name+".txt")))
				checkGolden(t, filepath.Join("testdata/golden/compat", name+"."+fs.name+".folded"), got.out)
				known := append(slices.Clone(deliberate[name]), dropped[name]...)
				if len(known) == 0 {
					if got.out != want {
						t.Fatalf("differs from stackcollapse-perf.pl:\n%s", golden.Diff([]byte(want), []byte(got.out)))
					}
				} else {
					onlyPerl, _ := lineDiff(want, got.out)
					for _, l := range onlyPerl {
						if !slices.ContainsFunc(known, func(p string) bool { return strings.HasPrefix(l, p) }) {
							t.Errorf("Perl line missing and not a deliberate difference: %q", l)
						}
					}
				}
				var droppedWeight float64
				for _, l := range strings.Split(want, "\n") {
					if slices.ContainsFunc(dropped[name], func(p string) bool { return strings.HasPrefix(l, p) }) {
						droppedWeight += total(t, l+"\n")
					}
				}
				if total(t, got.out) != total(t, want)-droppedWeight {
					t.Errorf("total %v, Perl's %v less %v left out", total(t, got.out), total(t, want), droppedWeight)
				}
				// One line names the events and their counts (where Perl
				// named the first event it dropped).
				if strings.Contains(name, "two-events") || strings.HasPrefix(name, "synthetic") {
					if strings.Count(got.stderr, "the input holds ") != 1 || !strings.Contains(got.stderr, " samples, kept)") {
						t.Errorf("stderr %q: want one line naming the events", got.stderr)
					}
				}
			})
		}
	}
	t.Run("event-filter", func(t *testing.T) {
		data := readFile(t, "testdata/compat/perf-script-two-events.txt")
		got := sequential(t, data, Options{NoTime: true, EventFilter: "task-clock"})
		want := string(readFile(t, "testdata/compat/expected/perf-script-two-events.collapsed-event-filter-task-clock.txt"))
		if got.out != want {
			t.Fatalf("differs:\n%s", golden.Diff([]byte(want), []byte(got.out)))
		}
		if strings.Contains(got.stderr, "the input holds") {
			t.Errorf("stderr %q, want no list of events when --event-filter is given", got.stderr)
		}
		if got := sequential(t, data, Options{NoTime: true, EventFilter: "nonexist"}); got.out != "" ||
			!strings.Contains(got.stderr, `no samples of event "nonexist": the input holds cpu-clock (29 samples), task-clock (29 samples)`) {
			t.Errorf("unknown event: output %q, want none, and stderr %q naming the events", got.out, got.stderr)
		}
	})
}

// perlDeliberate lists, per real capture, how many lines of Perl's output
// differ from flamekit's because of the deliberate differences, and why.
// Totals must still be equal (nothing is lost, only named differently).
var perlDeliberate = map[string]struct {
	lines int
	why   string
}{
	"comm-spaces":   {16, `comms "Worker 2 pool 7" and "io 12 [3]" are kept whole (Perl: "Worker", "io")`},
	"cpp-templates": {6, `"(anonymous namespace)::hidden_mix" kept as a frame; "std::_Function_handler<int (int, int), main::{lambda(int, int)#2}>::_M_invoke" not cut at its first '('`},
	"dwarf":         {3, `std::function<int (int, int)>::operator() and lambdas keep their names`},
	"java":          {2, `"AccessInternal::PostRuntimeDispatch<..., (AccessInternal::BarrierType)0, 598116ul>::oop_access_barrier" keeps the part after the '(' inside <>`},
	"node":          {6, `"...::Start()::{lambda(void*)#1}::_FUN" keeps its lambda`},
	"syswide":       {8, `the C++ program's anonymous-namespace and lambda frames, as in cpp-templates`},
	"burst":         {2, `an exiting task printed as comm ":-1" with pid -1 stays ":-1" (Perl: ":-1____-1_[001]___435.603815:")`},
	"nocallgraph":   {-1, `single-line samples (no -g): Perl drops them all, its output is empty`},
}

// noPerlOracle lists the captures that have no stackcollapse-perf.pl output
// to compare with, and why.
var noPerlOracle = map[string]string{
	"offcpu":  "scheduler events only: Perl never filters tracepoints, so it mixes sched_switch and sched_waking samples that flamekit keeps apart",
	"hotcold": "cpu-clock and sched_switch samples: Perl keeps every sched_switch (it never filters tracepoints) beside the cpu-clock samples",
}

// TestRealCaptures compares, for every capture in testdata/perf and every
// flag, the classic output with stackcollapse-perf.pl's (modulo the
// deliberate differences), with golden files, and the timed output with
// golden files.
func TestRealCaptures(t *testing.T) {
	captures, _ := filepath.Glob("../../../testdata/perf/*.txt.gz")
	if len(captures) == 0 {
		t.Skip("no captures in testdata/perf")
	}
	for _, path := range captures {
		name := strings.TrimSuffix(filepath.Base(path), ".txt.gz")
		data := readFile(t, path)
		t.Run(name+"/timed", func(t *testing.T) {
			got := sequential(t, data, Options{})
			checkGolden(t, filepath.Join("testdata/golden/perf", name+".timed.folded.gz"), got.out)
			if !got.sum.Timed {
				t.Errorf("captures have times: want timed output")
			}
			if total(t, got.out) != float64(got.sum.Weight) {
				t.Errorf("output total %v != weight read %v", total(t, got.out), got.sum.Weight)
			}
		})
		for _, fs := range flagSets {
			t.Run(name+"/"+fs.name, func(t *testing.T) {
				opt := fs.opt
				opt.NoTime = true
				got := sequential(t, data, opt)
				checkGolden(t, filepath.Join("testdata/golden/perf", name+"."+fs.name+".folded.gz"), got.out)
				if why, ok := noPerlOracle[name]; ok {
					t.Logf("not compared with stackcollapse-perf.pl: %s", why)
					return
				}
				perlPath := filepath.Join("../../../testdata/perf/perl", name+".collapsed-"+fs.name+".txt.gz")
				want := string(readFile(t, perlPath))
				// Compared with Perl's module rule: frames in deleted
				// files, "(/lib/x (deleted))", are the one difference
				// that TestDeletedModules checks instead.
				perlModuleRule = true
				got = sequential(t, data, opt)
				perlModuleRule = false
				d, ok := perlDeliberate[name]
				if !ok {
					if got.out != want {
						t.Fatalf("differs from stackcollapse-perf.pl:\n%s", golden.Diff([]byte(want), []byte(got.out)))
					}
					return
				}
				if d.lines < 0 {
					if want != "" {
						t.Errorf("Perl output expected empty")
					}
					return
				}
				a, b := lineDiff(want, got.out)
				if len(a)+len(b) != d.lines {
					t.Errorf("%d lines differ from Perl's output, want %d (%s):\nPerl only: %q\nours only: %q", len(a)+len(b), d.lines, d.why, a, b)
				}
				if total(t, got.out) != total(t, want) {
					t.Errorf("total %v, Perl's %v", total(t, got.out), total(t, want))
				}
			})
		}
	}
}

// TestSamples reads every sample of ../shared/compat/samples (copied to
// testdata/samples): no unrecognised lines where stackcollapse-perf.pl
// reads the file without any.
func TestSamples(t *testing.T) {
	// Unrecognised lines Perl also reports (counts checked with the
	// Perl script): dmesg/name side files, perf error text, headers of
	// "perf script -F" lists without ip (indented comm, no frames), and a
	// PERF_RECORD_FINISHED_ROUND line.
	perlUnrecognised := map[string]int{
		"clock-monotonic-printk-event.txt":  1,
		"clock-monotonic.dmesg.txt":         1,
		"clock-realtime.dmesg.txt":          1,
		"default-clock-F-tod-error.txt":     1,
		"syswide-F-no-ip-no-stack.txt":      30,
		"syswide-g-header-printk.dmesg.txt": 1,
		"syswide-show-round-events.txt":     1,
		"syswide-time-window-abs.txt":       19,
		"syswide-time-window-reltime.txt":   19,
		"travel-6s-burst-at-4s.dmesg.txt":   1,
		"travel-6s-burst-at-4s.name.txt":    1,
	}
	files, _ := filepath.Glob("testdata/samples/*.txt")
	if len(files) < 20 {
		t.Fatalf("only %d samples", len(files))
	}
	for _, f := range files {
		name := filepath.Base(f)
		t.Run(name, func(t *testing.T) {
			data := readFile(t, f)
			got := sequential(t, data, Options{})
			if got.sum.Skipped.Count != perlUnrecognised[name] {
				t.Errorf("%d unrecognised lines, want %d: %s", got.sum.Skipped.Count, perlUnrecognised[name], got.stderr)
			}
			if total(t, got.out) != float64(got.sum.Weight) {
				t.Errorf("output total %v != weight %v", total(t, got.out), got.sum.Weight)
			}
			checkGolden(t, filepath.Join("testdata/golden/samples", strings.TrimSuffix(name, ".txt")+".folded"), got.out)
		})
	}
}
