package main

import (
	"fmt"
	"strings"
	"testing"

	gold "flamekit/internal/testkit/golden"
	"flamekit/pkg/folded"
)

// TestSelection: --cpu, --tid and --comm on the real capture, whose timed
// lines carry cpu= and tid=. The parts add up to the whole, and a
// selection keeps exactly the lines it names.
func TestSelection(t *testing.T) {
	lines := gold.MustRead(t, burstFile)
	var whole float64
	perCPU := map[int32]float64{}
	perTID := map[int32]float64{}
	var burst float64
	var burstLines int64
	rd := folded.NewReader(strings.NewReader(string(lines)), "burst")
	for rd.Next() {
		rec := rd.Record()
		if rec.Has&(folded.HasCPU|folded.HasTID) != folded.HasCPU|folded.HasTID {
			t.Fatalf("line %d carries no cpu= and tid=: %q", rd.Line(), rd.Text())
		}
		whole += rec.Count
		perCPU[rec.CPU] += rec.Count
		perTID[rec.TID] += rec.Count
		if strings.HasPrefix(string(rec.Stack), burstComm+";") {
			burst += rec.Count
			burstLines++
		}
	}
	if len(perCPU) != 2 {
		t.Fatalf("the capture has samples on %d CPUs, want 2", len(perCPU))
	}
	sum := func(args ...string) float64 {
		t.Helper()
		code, out, stderr := run(t, "", append(args, "-q", burstFile)...)
		if code != 0 {
			t.Fatalf("timeslice %v: exit %d: %s", args, code, stderr)
		}
		return total(profile(t, out))
	}
	if got := sum(); got != whole {
		t.Fatalf("no selection: total %.0f, want %.0f", got, whole)
	}
	var cpus float64
	for cpu, want := range perCPU {
		got := sum("--cpu", fmt.Sprint(cpu))
		if got != want {
			t.Errorf("--cpu %d: total %.0f, want %.0f", cpu, got, want)
		}
		cpus += got
	}
	if cpus != whole {
		t.Errorf("the sum over CPUs is %.0f, the whole %.0f", cpus, whole)
	}
	if got := sum("--cpu", "0-1"); got != whole {
		t.Errorf("--cpu 0-1: total %.0f, want the whole %.0f", got, whole)
	}
	var tids float64
	n := 0
	for tid, want := range perTID {
		if n++; n > 6 {
			break
		}
		if got := sum("--tid=" + fmt.Sprint(tid)); got != want { // = : kong reads "-1" as a flag
			t.Errorf("--tid=%d: total %.0f, want %.0f", tid, got, want)
		}
		tids += want
	}
	if got := sum("--comm", "^"+burstComm+"$"); got != burst || burst == 0 {
		t.Errorf("--comm %s: total %.0f, want %.0f", burstComm, got, burst)
	}
	if got := sum("--comm", "^"+burstComm+"$", "--cpu", "0,1", "--at", "14.8s±1"); got <= 0 || got > burst {
		t.Errorf("--comm with --cpu and --at: total %.0f, want a part of %.0f", got, burst)
	}

	// A heat map of one process counts that process's samples only, and
	// says so in its title.
	code, out, stderr := run(t, "", "--heatmap", "--comm", "^"+burstComm+"$", burstFile)
	if code != 0 {
		t.Fatalf("--heatmap --comm: exit %d: %s", code, stderr)
	}
	if !strings.Contains(out, "comm ^"+burstComm+"$") {
		t.Errorf("the heat map's title does not name the selection")
	}
	if got := samples(t, stderr); got != burstLines {
		t.Errorf("--heatmap --comm counted %d samples, want the %d of %s", got, burstLines, burstComm)
	}

	// Lines without the field are not selected, and said so.
	code, out, stderr = run(t, "", "--pid", "1", burstFile)
	if code != 0 || strings.TrimSpace(out) != "" || !strings.Contains(stderr, "3189 samples carry no pid= field") {
		t.Errorf("--pid on lines without pid=: exit %d, output %q, stderr %q", code, clip(out), stderr)
	}
	for _, bad := range [][]string{{"--cpu", "x"}, {"--pid", "3-1"}, {"--comm", "("}} {
		if code, _, stderr := run(t, "", append(bad, burstFile)...); code != 2 || !strings.Contains(stderr, bad[0]) {
			t.Errorf("%v: exit %d, stderr %q; want a usage error naming the flag", bad, code, stderr)
		}
	}
}
