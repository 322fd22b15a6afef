package capture

import (
	"path/filepath"
	"strings"
	"testing"

	"flamekit/internal/testkit/golden"
	"flamekit/pkg/fold/collapse"
)

// TestTraceDataAgreesWithPerfScript folds the real tracepoint captures
// with the rules that read tracepoint fields (off-CPU intervals from
// prev_pid, prev_state and next_pid, wakers from sched_waking's pid,
// payload weights, printed as "name=", "name: " or by position), from the
// perf.data file (fields read from the records) and from its perf script
// text (fields read from the text): the same samples, weights and times.
func TestTraceDataAgreesWithPerfScript(t *testing.T) {
	tests := []struct {
		capture string
		opt     collapse.Options
	}{
		{"sched", collapse.Options{OffCPU: true}},
		{"sched", collapse.Options{OffCPU: true, States: "R"}},
		{"sched", collapse.Options{OffCPU: true, States: "SDRIX", ClipOpen: true}},
		{"sched", collapse.Options{Weight: "prev_pid"}},
		{"tpfields", collapse.Options{OffCPU: true}},
		{"tpfields", collapse.Options{OffCPU: true, Wakers: true}},
		{"tpfields", collapse.Options{OffCPU: true, States: "SDR", ClipOpen: true}},
		{"tpfields", collapse.Options{EventFilter: "kmem:kmalloc", Weight: "bytes_alloc"}},
		{"tpfields", collapse.Options{EventFilter: "kmem:kmalloc", Weight: "node"}},
		{"tpfields", collapse.Options{EventFilter: "kmem:kmalloc", Weight: "gfp_flags"}},
		{"tpfields", collapse.Options{EventFilter: "block:block_rq_issue", Weight: "bytes"}},
		{"tpfields", collapse.Options{EventFilter: "block:block_rq_issue", Weight: "nr_sector"}},
		{"tpfields", collapse.Options{EventFilter: "syscalls:sys_enter_openat", Weight: "flags"}},
		{"tpfields", collapse.Options{EventFilter: "syscalls:sys_enter_openat", Weight: "dfd"}},
		{"tpfields", collapse.Options{EventFilter: "sched:sched_waking", Weight: "target_cpu"}},
		{"tpfields", collapse.Options{EventFilter: "sched:sched_switch", Weight: "prev_prio"}},
		// The block events' fields, printed by position: bytes in
		// block_rq_issue and block_rq_insert only, sector and nr_sector
		// around the "+" of every event that prints one (not
		// block_split, plug, unplug).
		{"block", collapse.Options{EventFilter: "block:block_rq_issue", Weight: "bytes"}},
		{"block", collapse.Options{EventFilter: "block:block_rq_issue", Weight: "sector"}},
		{"block", collapse.Options{EventFilter: "block:block_bio_queue", Weight: "nr_sector"}},
		{"block", collapse.Options{EventFilter: "block:block_getrq", Weight: "sector"}},
		{"block", collapse.Options{EventFilter: "block:block_rq_complete", Weight: "nr_sector"}},
		{"block", collapse.Options{EventFilter: "block:block_rq_insert", Weight: "bytes"}},
		{"block", collapse.Options{EventFilter: "block:block_split", Weight: "sector"}},
		{"block", collapse.Options{EventFilter: "block:block_rq_complete", Weight: "bytes"}},
	}
	for _, tc := range tests {
		name := tc.capture + "/" + fmtOpt(tc.opt)
		t.Run(name, func(t *testing.T) {
			data := filepath.Join("../../perf/perfdata/testdata", tc.capture+".data.gz")
			text, err := golden.Read(filepath.Join("../../perf/perfdata/testdata", tc.capture+".script.gz"))
			if err != nil {
				t.Fatal(err)
			}
			fromData, msgData, err := fold(t, tc.opt, nil, func(f *Folder) collapse.Input { return f.Data(open(t, data), "x") })
			if err != nil {
				t.Fatal(err)
			}
			fromText, msgText, err := fold(t, tc.opt, nil, func(f *Folder) collapse.Input { return f.Text("text", "x", textInput(text)) })
			if err != nil {
				t.Fatal(err)
			}
			a, b := roots(t, fromData), roots(t, fromText)
			if strings.Join(a, "\n") != strings.Join(b, "\n") {
				t.Errorf("perf.data gives %d samples, its perf script text %d, or they differ:\n%s",
					len(a), len(b), golden.Diff([]byte(strings.Join(b, "\n")), []byte(strings.Join(a, "\n"))))
			}
			none := tc.opt.Weight == "gfp_flags" || tc.opt.Weight == "node" ||
				tc.opt.EventFilter == "block:block_split" || tc.opt.EventFilter == "block:block_rq_complete" && tc.opt.Weight == "bytes"
			if tc.opt.Weight != "" && !none && len(a) == 0 {
				t.Error("no sample folded")
			}
			if w := "without a numeric payload field"; strings.Contains(msgData, w) != strings.Contains(msgText, w) {
				t.Errorf("messages differ:\nperf.data: %s\ntext: %s", msgData, msgText)
			}
			t.Logf("%d lines", len(a))
		})
	}
}

// fmtOpt names the options set in o.
func fmtOpt(o collapse.Options) string {
	var parts []string
	if o.OffCPU {
		parts = append(parts, "offcpu")
	}
	if o.Wakers {
		parts = append(parts, "wakers")
	}
	if o.States != "" {
		parts = append(parts, "states="+o.States)
	}
	if o.ClipOpen {
		parts = append(parts, "clip")
	}
	if o.EventFilter != "" {
		parts = append(parts, o.EventFilter)
	}
	if o.Weight != "" {
		parts = append(parts, "weight="+o.Weight)
	}
	return strings.Join(parts, ",")
}
