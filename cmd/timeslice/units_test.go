package main

import (
	"math"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"flamekit/internal/testkit/testcapture"
	"flamekit/pkg/fold/collapse"
	"flamekit/pkg/folded"
	"flamekit/pkg/interop/pprof"
)

// collapsed folds a committed perf capture (testdata/perf) as stackcollapse
// does with opts and writes the timed folded text to a temporary file.
func collapsed(t *testing.T, capture string, opts collapse.Options) string {
	t.Helper()
	name := filepath.Join(t.TempDir(), capture+".folded")
	if err := os.WriteFile(name, testcapture.FoldWith(t, capture, opts), 0o644); err != nil {
		t.Fatal(err)
	}
	return name
}

// foldedTotal sums the counts of a folded file.
func foldedTotal(t *testing.T, name string) float64 {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rd := folded.NewReader(f, name)
	var n float64
	for rd.Next() {
		n += rd.Record().Count
	}
	if err := rd.Err(); err != nil {
		t.Fatal(err)
	}
	return n
}

// goPprof runs go tool pprof; it skips the test without go on PATH.
func goPprof(t *testing.T, args ...string) string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not on PATH: cannot run go tool pprof")
	}
	out, err := exec.Command(goBin, append([]string{"tool", "pprof"}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("go tool pprof %v: %v\n%s", args, err, out)
	}
	return string(out)
}

var pprofTotalRe = regexp.MustCompile(`of (\d+)(ns|B|) total`)

// unitCase is a committed capture folded as stackcollapse would, and the
// unit every output must state for it.
type unitCase struct {
	name    string
	capture string
	opts    collapse.Options
	typ     string // pprof sample type, TYPE/UNIT
	unit    string // go tool pprof -unit that prints the total as an integer
	scale   float64
	legend  string // the heat map's cells, by default
	weights string // the heat map's cells with --measure weight
}

var unitCases = []unitCase{
	{"cpu-clock", "burst", collapse.Options{}, "cpu/nanoseconds", "ns", 1, "samples", "ns on-CPU"},
	{"page-faults", "mixed-events", collapse.Options{EventFilter: "page-faults"}, "page_faults/count", "", 1, "samples", "page-faults"},
	{"off-cpu", "offcpu", collapse.Options{OffCPU: true}, "off_cpu/microseconds", "ns", 1000, "µs off-CPU", "µs off-CPU"},
	{"hot-cold", "hotcold", collapse.Options{HotCold: true}, "hot_cold/microseconds", "ns", 1000, "µs on- or off-CPU", "µs on- or off-CPU"},
	{"malloc", "malloc", collapse.Options{Weight: "size"}, "malloc/bytes", "B", 1, "bytes of malloc (size)", "bytes of malloc (size)"},
}

// TestUnits: every output says the unit of what it sums, from the
// capture's metadata: the pprof sample type go tool pprof shows (issue
// #20: off-CPU and hot/cold were sched_switch/count), its total in that
// unit, and the heat map's legend.
func TestUnits(t *testing.T) {
	t.Setenv("TZ", "UTC")
	for _, tc := range unitCases {
		t.Run(tc.name, func(t *testing.T) {
			in := collapsed(t, tc.capture, tc.opts)
			code, out, stderr := run(t, "", "--format", "pprof", in)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if strings.Contains(stderr, "guessed") {
				t.Errorf("the sample type is a guess: %s", stderr)
			}
			pb := filepath.Join(t.TempDir(), "out.pb.gz")
			os.WriteFile(pb, []byte(out), 0o644)

			raw := goPprof(t, "-raw", pb)
			typ, unit, _ := strings.Cut(tc.typ, "/")
			if !strings.Contains(raw, "PeriodType: "+typ+" "+unit) || !strings.Contains(raw, "samples/count "+tc.typ) {
				t.Errorf("go tool pprof -raw does not say %s:\n%.300s", tc.typ, raw)
			}
			args := []string{"-top", "-nodecount=1"}
			if tc.unit != "" {
				args = append(args, "-unit="+tc.unit)
			}
			top := goPprof(t, append(args, pb)...)
			m := pprofTotalRe.FindStringSubmatch(top)
			// pprof's values are integers: hot/cold's on-CPU
			// microseconds have fractions, rounded in the total.
			want := math.Round(foldedTotal(t, in)) * tc.scale
			if !strings.Contains(top, "Type: "+typ) || m == nil || m[2] != tc.unit {
				t.Fatalf("go tool pprof -top:\n%s", top)
			}
			if got, _ := strconv.ParseFloat(m[1], 64); got != want {
				t.Errorf("go tool pprof -top total %s%s, folded total %v x %v", m[1], m[2], foldedTotal(t, in), tc.scale)
			}
			t.Logf("%s: %s", tc.typ, strings.SplitN(goPprof(t, "-top", "-nodecount=1", pb), "\n", 5)[3])

			for _, measure := range []string{"auto", "weight"} {
				want := tc.legend
				if measure == "weight" {
					want = tc.weights
				}
				code, text, stderr := run(t, "", "--heatmap=text", "--measure", measure, in)
				if code != 0 || !strings.Contains(text, " "+want+" per cell\n") {
					t.Errorf("--measure %s: exit %d, legend %q, want %q; %s", measure, code, lineWith(text, "per cell"), want, stderr)
				}
				code, svg, _ := run(t, "", "--heatmap", "--measure", measure, in)
				if code != 0 || !strings.Contains(svg, ">"+want+" per 20 ms cell:") {
					t.Errorf("--measure %s: SVG legend %q, want %q", measure, lineWith(svg, "per 20 ms cell"), want)
				}
			}
		})
	}
}

func lineWith(text, s string) string {
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, s) {
			return l
		}
	}
	return ""
}

// TestPushUnits: the profiles pushed to Pyroscope carry the sample type
// of the counts: off-CPU microseconds, not sched_switch/count.
func TestPushUnits(t *testing.T) {
	for _, tc := range unitCases[2:3] {
		in := collapsed(t, tc.capture, tc.opts)
		srv := &pushServer{status: 200}
		hs := httptest.NewServer(srv)
		code, _, stderr := run(t, "", "--push", hs.URL, "--service", "offcpu", in)
		hs.Close()
		bodies, _ := srv.received()
		if code != 0 || len(bodies) == 0 || !strings.Contains(stderr, " "+tc.typ+" total") {
			t.Fatalf("exit %d, %d pushes: %s", code, len(bodies), stderr)
		}
		for _, b := range bodies {
			p, err := pprof.Parse(b, "push")
			if err != nil {
				t.Fatal(err)
			}
			if st := p.SampleType[len(p.SampleType)-1]; st.Type+"/"+st.Unit != tc.typ || p.DefaultSampleType != st.Type {
				t.Fatalf("pushed sample type %s/%s (default %s), want %s", st.Type, st.Unit, p.DefaultSampleType, tc.typ)
			}
		}
	}
}

// TestMixedUnitsRefused: inputs whose counts measure different things
// (cpu-clock nanoseconds and page-fault counts; on-CPU nanoseconds and
// off-CPU microseconds) are never summed: every output refuses them with
// exit status 1 and a message naming both files and what each counts,
// also when they are concatenated into one stream.
func TestMixedUnitsRefused(t *testing.T) {
	t.Setenv("TZ", "UTC")
	cpu := collapsed(t, "mixed-events", collapse.Options{EventFilter: "cpu-clock"})
	faults := collapsed(t, "mixed-events", collapse.Options{EventFilter: "page-faults"})
	burst := collapsed(t, "burst", collapse.Options{})
	offcpu := collapsed(t, "offcpu", collapse.Options{OffCPU: true})
	srv := &pushServer{status: 200}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	tests := []struct {
		name  string
		stdin string
		args  []string
		want  []string
	}{
		{"cpu and faults", "", []string{cpu, faults},
			[]string{cpu + ":", "(event cpu-clock: cpu in nanoseconds) and " + faults + ":1 (event page-faults: page-faults, a count) count different things"}},
		{"cpu and off-cpu, pprof", "", []string{"--format", "pprof", burst, offcpu},
			[]string{burst + ":1 (event cpu-clock:pppH: cpu in nanoseconds) and " + offcpu + ":1 (event sched:sched_switch: off-cpu in microseconds)"}},
		{"heat map", "", []string{"--heatmap=text", burst, offcpu}, []string{burst + ":1", offcpu + ":1", "cannot be summed"}},
		{"window", "", []string{"--from", "0s", "--to", "1s", offcpu, burst}, []string{offcpu + ":1", burst + ":1"}},
		{"keep-time", "", []string{"--keep-time", cpu, faults}, []string{cpu + ":", faults + ":1"}},
		{"push", "", []string{"--push", hs.URL, "--service", "x", burst, offcpu}, []string{burst + ":1", offcpu + ":1"}},
		{"one stream", readFile(t, cpu) + readFile(t, faults), nil, []string{"<stdin>:", "(event cpu-clock: cpu in nanoseconds) and <stdin>:", "(event page-faults: page-faults, a count)"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, stderr := run(t, tc.stdin, tc.args...)
			if code != 1 {
				t.Errorf("exit %d, want 1", code)
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr %q lacks %q", stderr, w)
				}
			}
			if out != "" && tc.name != "keep-time" {
				t.Errorf("wrote %d bytes", len(out))
			}
		})
	}
	if bodies, _ := srv.received(); len(bodies) != 0 {
		t.Errorf("%d profiles pushed", len(bodies))
	}
	// The same event in two captures is summed.
	if code, _, stderr := run(t, "", cpu, cpu); code != 0 {
		t.Errorf("the same capture twice: exit %d: %s", code, stderr)
	}
}

func readFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
