package capture

import (
	"bufio"
	"fmt"
	"strings"
	"testing"

	"flamekit/internal/testkit/golden"
	"flamekit/pkg/fold/collapse"
	"flamekit/pkg/folded"
)

// TestOffCPUFields checks the fields of off-CPU lines on real captures
// (perf.data and perf script text, sched_switch with and without wakers,
// --hot-cold): every timed line names its thread, and the thread named is
// the one --tid puts in the root frame (comm-PID/TID); the process, where
// the line and the root frame both have one, is the root frame's PID (perf
// script prints "?" for a process perf.data knows); so timeslice --tid and
// --pid select off-CPU time by the same threads as the stacks show.
func TestOffCPUFields(t *testing.T) {
	text, err := golden.Read("../../../testdata/perf/offcpu.txt.gz")
	if err != nil {
		t.Fatal(err)
	}
	hotcold, err := golden.Read("../../../testdata/perf/hotcold.txt.gz")
	if err != nil {
		t.Fatal(err)
	}
	sched := open(t, "../../perf/perfdata/testdata/sched.data.gz")
	for _, tc := range []struct {
		name string
		opt  collapse.Options
		in   func(*Folder) collapse.Input
		pids bool // perf.data: every line has its process
	}{
		{"offcpu.txt", collapse.Options{OffCPU: true}, func(f *Folder) collapse.Input { return f.Text("offcpu", "", textInput(text)) }, false},
		{"offcpu.txt wakers", collapse.Options{Wakers: true, States: "all"}, func(f *Folder) collapse.Input { return f.Text("offcpu", "", textInput(text)) }, false},
		{"hotcold.txt", collapse.Options{HotCold: true}, func(f *Folder) collapse.Input { return f.Text("hotcold", "", textInput(hotcold)) }, false},
		{"sched.data", collapse.Options{OffCPU: true, ClipOpen: true}, func(f *Folder) collapse.Input { return f.Data(sched, "") }, true},
	} {
		tc.opt.TID = true
		out, _, err := fold(t, tc.opt, nil, tc.in)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		lines, cpus, threads := 0, 0, 0
		procOf := map[int32]int32{} // tid → pid: a thread is of one process
		sc := bufio.NewScanner(strings.NewReader(out))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var rec folded.Record
			if folded.IsMeta(sc.Bytes()) || folded.ParseLine(sc.Bytes(), &rec) != nil || rec.Kind != folded.Timed {
				continue
			}
			lines++
			root, _, _ := strings.Cut(string(rec.Stack), ";")
			i := strings.LastIndexByte(root, '-')
			pidText, tidText, ok := strings.Cut(root[i+1:], "/")
			var pid, tid int32
			if _, err := fmt.Sscan(tidText, &tid); i < 0 || !ok || err != nil {
				t.Fatalf("%s: root frame %q is not comm-PID/TID", tc.name, root)
			}
			if _, err := fmt.Sscan(pidText, &pid); err != nil {
				pid = -2 // "?": perf script did not print it
			}
			if rec.Has&folded.HasTID == 0 || rec.TID != tid {
				t.Errorf("%s: %s: tid= is not the root frame's thread", tc.name, sc.Text())
			}
			if rec.Has&folded.HasPID != 0 && pid != -2 && rec.PID != pid || tc.pids && rec.Has&folded.HasPID == 0 {
				t.Errorf("%s: %s: pid= is not the root frame's process", tc.name, sc.Text())
			}
			if rec.Has&folded.HasPID != 0 {
				if p, ok := procOf[tid]; ok && p != rec.PID {
					t.Errorf("%s: %s: thread %d was of process %d", tc.name, sc.Text(), tid, p)
				}
				procOf[tid] = rec.PID
				if rec.PID != tid {
					threads++
				}
			}
			if rec.Has&folded.HasCPU != 0 {
				cpus++
			}
		}
		if lines < 50 || cpus != lines || tc.pids && threads == 0 {
			t.Errorf("%s: %d timed lines, %d with cpu=, %d of threads that are not their process's first", tc.name, lines, cpus, threads)
		}
	}
}
