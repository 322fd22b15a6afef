package folded

import (
	"testing"
)

// metas parses metadata lines for the tests, numbered from line.
func metas(t *testing.T, line int, lines ...string) []Meta {
	t.Helper()
	var ms []Meta
	for i, l := range lines {
		m, err := ParseMeta([]byte(l))
		if err != nil {
			t.Fatalf("%q: %v", l, err)
		}
		m.Line = line + i
		ms = append(ms, m)
	}
	return ms
}

// The metadata lines of real streams: stackcollapse's of the burst
// capture (on-CPU), of the offcpu capture with --off-cpu, the lines of
// the latter's pprof profile read back, and a page-fault capture's.
const (
	onCPU     = `# flamekit v1 timed host="vm" event="cpu-clock:pppH" first="413.417927" last="443.407714"`
	onCPUEnd  = `# flamekit v1 timed event="cpu-clock:pppH" first="413.417927" last="443.407714" samples="3189"`
	offCPU    = `# flamekit v1 timed host="vm" event="sched:sched_switch" first="3475.852257" last="3477.946889" weight="off-cpu" unit="us"`
	offPprof  = `# flamekit v1 timed pprof-type="off_cpu" pprof-unit="microseconds"`
	faults    = `# flamekit v1 timed event="page-faults"`
	noMeasure = `# flamekit v1 timed host="vm"`
)

// TestUnits: the one units rule of every tool (issue 34 item 4), input
// by input and line by line, with the message each tool gives.
func TestUnits(t *testing.T) {
	type input struct {
		file  string
		lines []string
	}
	tests := []struct {
		name   string
		op     string
		inputs []input
		want   string // the error, "" for none
	}{
		{"on and off", "", []input{{"sys.folded", []string{onCPU, onCPUEnd}}, {"off.folded", []string{offCPU}}},
			"sys.folded:1 (event cpu-clock:pppH: cpu in nanoseconds) and off.folded:1 (event sched:sched_switch: off-cpu in microseconds) count different things: they cannot be summed; give them apart, one run each"},
		{"compared", "compared", []input{{"a", []string{offCPU}}, {"b", []string{onCPU}}},
			"a:1 (event sched:sched_switch: off-cpu in microseconds) and b:1 (event cpu-clock:pppH: cpu in nanoseconds) count different things: they cannot be compared; compare captures of the same event, in the same unit"},
		{"one stream", "", []input{{"<stdin>", []string{onCPU, onCPUEnd, faults}}},
			"<stdin>:1 (event cpu-clock:pppH: cpu in nanoseconds) and <stdin>:3 (event page-faults: page-faults, a count) count different things: they cannot be summed; give them apart, one run each"},
		{"same event", "", []input{{"a", []string{onCPU, onCPUEnd}}, {"b", []string{onCPU}}}, ""},
		{"nothing said", "", []input{{"a", []string{onCPU}}, {"b", nil}, {"c", []string{noMeasure}}}, ""},
		{"off-CPU and its pprof", "", []input{{"off.folded", []string{offCPU}}, {"off.pb.gz", []string{offCPU, offPprof}}}, ""},
		{"pprof first", "", []input{{"off.pb.gz", []string{offPprof, onCPU}}, {"off.folded", []string{offCPU}}}, ""},
		{"on and off's pprof", "", []input{{"a", []string{onCPU}}, {"off.pb.gz", []string{offPprof}}},
			"a:1 (event cpu-clock:pppH: cpu in nanoseconds) and off.pb.gz:1 (off_cpu in microseconds) count different things: they cannot be summed; give them apart, one run each"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			u := Units{Op: tc.op}
			var err error
			for _, in := range tc.inputs {
				if err = u.Add(in.file, metas(t, 1, in.lines...)); err != nil {
					break
				}
			}
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tc.want {
				t.Errorf("got %q\nwant %q", got, tc.want)
			}
			if err != u.Err() || err != nil && u.Meta(&Meta{}) != err {
				t.Errorf("the error is not kept")
			}
		})
	}
}
