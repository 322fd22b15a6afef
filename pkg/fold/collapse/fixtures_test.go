package collapse_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"flamekit/internal/testkit/golden"
	"flamekit/internal/testkit/testcapture"
	"flamekit/pkg/fold/collapse"
	"flamekit/pkg/folded"
)

// collapseFile runs the perf script text reader and the collapse stage on a
// testdata file.
func collapseFile(t *testing.T, path string, opt collapse.Options) (out, stderr string, sum collapse.Summary) {
	t.Helper()
	data, err := golden.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	var e bytes.Buffer
	f, err := testcapture.FoldText(path, data, opt, func(f string, a ...any) { fmt.Fprintf(&e, f+"\n", a...) })
	if err != nil {
		t.Fatal(err)
	}
	return string(f.Text), e.String(), f.Summary
}

// TestSchedStatFixture: on the input of FlameGraph's
// stackcollapse-perf-sched.awk (hand-built: see testdata/README.md),
// stackcollapse --off-cpu prints what the awk script prints.
func TestSchedStatFixture(t *testing.T) {
	out, _, sum := collapseFile(t, "testdata/schedstat/schedstat.txt.gz", collapse.Options{OffCPU: true, NoTime: true})
	want, err := golden.Read("testdata/schedstat/schedstat.awk.txt")
	if err != nil {
		t.Fatal(err)
	}
	if out != string(want) {
		t.Errorf("differs from stackcollapse-perf-sched.awk:\n%s", golden.Diff(want, []byte(out)))
	}
	if sum.OffCPU.Source != "sched:sched_stat_*" {
		t.Errorf("source %q", sum.OffCPU.Source)
	}
}

// TestOffCPUTimeFixture reads perf record --off-cpu's offcpu-time samples
// (hand-built: see testdata/README.md): each thread's total is the off-CPU
// time of the sched_switch capture it was made from, the samples with
// perf's dummy end-of-run time are written without a time, and that time
// reaches neither the metadata nor the span.
func TestOffCPUTimeFixture(t *testing.T) {
	out, stderr, sum := collapseFile(t, "testdata/offcputime/offcputime.txt.gz", collapse.Options{OffCPU: true})
	golden.Check(t, "testdata/golden/offcputime.timed.folded", []byte(out))
	if strings.Contains(out, "18446744069") {
		t.Errorf("the dummy time reached the output:\n%s", out)
	}
	if sum.OffCPU.Untimed != 5 || !strings.Contains(stderr, "5 offcpu-time samples carry perf's end-of-run time") {
		t.Errorf("untimed %d, stderr %q", sum.OffCPU.Untimed, stderr)
	}
	// The same threads' S and D time from the sched_switch capture.
	switches, _, _ := collapseFile(t, "../../../testdata/perf/offcpu.txt.gz", collapse.Options{OffCPU: true, NoTime: true})
	for _, thread := range []string{"sleeper", "piper", "diskio"} {
		if got, want := rootTotal(t, out, thread), rootTotal(t, switches, thread); got != want {
			t.Errorf("%s: %v us from offcpu-time, %v us from sched_switch", thread, got, want)
		}
	}
}

func rootTotal(t *testing.T, out, root string) float64 {
	var sum float64
	rd := folded.NewReader(strings.NewReader(out), "output")
	for rd.Next() {
		if rec := rd.Record(); bytes.HasPrefix(rec.Stack, []byte(root+";")) {
			sum += rec.Count
		}
	}
	if err := rd.Err(); err != nil {
		t.Fatal(err)
	}
	return sum
}
