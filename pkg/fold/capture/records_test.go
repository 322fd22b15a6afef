package capture

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"flamekit/internal/testkit/golden"
	"flamekit/pkg/fold/collapse"
	"flamekit/pkg/folded"
	"flamekit/pkg/source"
)

// readEvents is what a folded.Reader gives, as a list a test can compare:
// metadata lines, records (with the text of untimed ones), malformed
// lines, with their line numbers.
type readEvents struct {
	events []string
	skips  folded.Skips
}

func (r *readEvents) Meta(m *folded.Meta) error {
	r.events = append(r.events, fmt.Sprintf("%d meta %q", m.Line, m.Fields))
	return nil
}

func (r *readEvents) Record(rec *folded.Record, line int, text []byte) error {
	if rec.Kind == folded.Timed && text != nil {
		return fmt.Errorf("line %d: a timed record with its text", line)
	}
	if rec.Kind != folded.Timed && text == nil {
		return fmt.Errorf("line %d: an untimed record without its text", line)
	}
	r.events = append(r.events, fmt.Sprintf("%d %v %q %v %v %v %d %d %d %d %q", line, rec.Kind, rec.Stack,
		rec.Count, rec.Before, rec.Time, rec.CPU, rec.PID, rec.TID, rec.Has, text))
	return nil
}

func (r *readEvents) Malformed(line int, text []byte, err error) error {
	r.skips.Note("x", line, text, err)
	return nil
}

// readText reads folded text as timeslice did: a lenient folded.Reader.
func readText(t *testing.T, text string) *readEvents {
	t.Helper()
	r := &readEvents{}
	rd := folded.NewReader(strings.NewReader(text), "x")
	rd.Lenient = true
	metas := 0
	for {
		ok := rd.Next()
		for ; metas < len(rd.Meta()); metas++ {
			r.Meta(&rd.Meta()[metas])
		}
		if !ok {
			break
		}
		var text []byte
		if rec := rd.Record(); rec.Kind != folded.Timed {
			text = rd.Text()
		}
		if err := r.Record(rd.Record(), rd.Line(), text); err != nil {
			t.Fatal(err)
		}
	}
	if err := rd.Err(); err != nil {
		t.Fatal(err)
	}
	r.skips = rd.Skips()
	return r
}

// TestRunRecords: RunRecords gives what a folded.Reader reads from Run's
// output, line for line (records, metadata lines and their numbers,
// malformed lines), on real captures, perf.data and perf script text,
// under the options that change what is written (timed, classic,
// off-CPU, hot/cold, wakers, --tid), with one worker and several.
func TestRunRecords(t *testing.T) {
	type capture struct {
		path string
		data bool
	}
	var captures []capture
	for _, name := range []string{"syswide", "sched", "switch", "mixed", "nocallgraph", "mono"} {
		captures = append(captures, capture{"../../perf/perfdata/testdata/" + name + ".data.gz", true})
	}
	for _, name := range []string{"offcpu", "hotcold", "burst", "mixed-events", "malloc", "block", "comm-spaces", "clock-mono", "nocallgraph"} {
		captures = append(captures, capture{"../../../testdata/perf/" + name + ".txt.gz", false})
	}
	opts := []collapse.Options{
		{}, {NoTime: true}, {TID: true, Kernel: true}, {OffCPU: true}, {HotCold: true},
		{OffCPU: true, Wakers: true, States: "all", ClipOpen: true}, {Weight: "size"},
	}
	for _, c := range captures {
		var src *source.Input
		if c.data {
			src = open(t, c.path) // once: its decompressed copy, and the captured-on of its mtime
		}
		var text []byte
		if !c.data {
			var err error
			if text, err = golden.Read(c.path); err != nil {
				t.Fatal(err)
			}
		}
		for _, opt := range opts {
			for _, workers := range []int{1, 3} {
				name := fmt.Sprintf("%s %+v -j%d", filepath.Base(c.path), opt, workers)
				in := func(f *Folder) collapse.Input {
					if c.data {
						return f.Data(src, "src")
					}
					return f.Text("in", "src", textInput(text))
				}
				out, msgs, err := fold(t, opt, func(f *Folder) { f.Workers = workers }, in)
				want := readText(t, out)

				var recMsgs strings.Builder
				warnf := func(format string, args ...any) {
					recMsgs.WriteString(strings.TrimSpace(fmt.Sprintf(format, args...)) + "\n")
				}
				f := &Folder{Driver: collapse.Driver{Options: opt, Workers: workers, Warnf: warnf}, Resolver: noSymbols(t), AllowForeign: true}
				got := &readEvents{}
				_, recErr := f.RunRecords(got, []collapse.Input{in(f)})
				if fmt.Sprint(err) != fmt.Sprint(recErr) || msgs != recMsgs.String() {
					t.Errorf("%s: error %v, messages\n%s\nwant %v,\n%s", name, recErr, recMsgs.String(), err, msgs)
				}
				if fmt.Sprint(got.skips) != fmt.Sprint(want.skips) {
					t.Errorf("%s: skipped %v, want %v", name, got.skips, want.skips)
				}
				if len(want.events) < 2 && err == nil && !strings.Contains(name, "Weight") {
					t.Errorf("%s: only %d lines", name, len(want.events))
				}
				if g, w := strings.Join(got.events, "\n"), strings.Join(want.events, "\n"); g != w {
					t.Errorf("%s: records differ from the text's:\n%s", name, golden.Diff([]byte(strings.Join(want.events, "\n")), []byte(strings.Join(got.events, "\n"))))
				}
			}
		}
	}
}

// TestRunRecordsOdd: the lines a folded.Reader does not read as written
// (a count beyond 2^53 or below 0; in classic output, a stack that ends
// in a number, read as a differential line) reach the Records as the
// Reader reads them.
func TestRunRecordsOdd(t *testing.T) {
	text := "app 5 [001] 1.000000: 1 probe:alloc: size=64\n\tffff main (/app)\n\n" +
		"app 5 [001] 2.000000: 1 probe:alloc: size=18014398509481984\n\tffff main (/app)\n\n" +
		"app 5 [001] 2.500000: 1 probe:alloc: size=-3\n\tffff main (/app)\n\n" +
		"app 5 [001] 4.000000: 1 probe:alloc: size=9\n\tffff main 12 (/app)\n\n"
	for _, opt := range []collapse.Options{{Weight: "size"}, {Weight: "size", NoTime: true}} {
		out, _, err := fold(t, opt, nil, func(f *Folder) collapse.Input { return f.Text("in", "src", textInput([]byte(text))) })
		if err != nil {
			t.Fatal(err)
		}
		want := readText(t, out)
		f := &Folder{Driver: collapse.Driver{Options: opt}, Resolver: noSymbols(t)}
		got := &readEvents{}
		if _, err := f.RunRecords(got, []collapse.Input{f.Text("in", "src", textInput([]byte(text)))}); err != nil {
			t.Fatal(err)
		}
		if g, w := strings.Join(got.events, "\n"), strings.Join(want.events, "\n"); g != w || fmt.Sprint(got.skips) != fmt.Sprint(want.skips) {
			t.Errorf("%+v: records differ from the text's:\n%s\nskips %v, want %v", opt, golden.Diff([]byte(w), []byte(g)), got.skips, want.skips)
		}
		if !opt.NoTime && want.skips.Count == 0 || opt.NoTime && !strings.Contains(strings.Join(want.events, "\n"), "differential") {
			t.Errorf("the odd lines are not there to test:\n%s", out)
		}
	}
}

// stopAfter is a Records that stops the run after n records.
type stopAfter struct {
	readEvents
	n int
}

var errEnough = errors.New("enough")

func (s *stopAfter) Record(rec *folded.Record, line int, text []byte) error {
	if s.n--; s.n < 0 {
		return errEnough
	}
	return s.readEvents.Record(rec, line, text)
}

// TestRecords: Records gives what a reader reads of the text a Folder
// writes; an error of
// the Records stops the fold and comes back as it is, the fold's
// messages dropped.
func TestRecords(t *testing.T) {
	in := open(t, "../../../testdata/perf/offcpu.txt.gz")
	var said []string
	o := Options{Collapse: collapse.Options{OffCPU: true}, Warnf: func(f string, a ...any) { said = append(said, fmt.Sprintf(f, a...)) }}
	text, wantSaid := foldText(t, in, o)
	want := readText(t, text)
	got := &readEvents{}
	if err := Records(in, o, got); err != nil {
		t.Fatal(err)
	}
	if strings.Join(got.events, "\n") != strings.Join(want.events, "\n") || strings.Join(said, "\n") != strings.Join(wantSaid, "\n") || len(said) == 0 {
		t.Errorf("Records differs from Folded: %d and %d lines, messages %q and %q", len(got.events), len(want.events), said, wantSaid)
	}
	said = nil
	stop := &stopAfter{n: 3}
	if err := Records(in, o, stop); err != errEnough || len(said) > 0 || len(stop.events) != 4 {
		t.Errorf("stopped: %v, %d lines, messages %q", err, len(stop.events), said)
	}
	if err := Records(open(t, "../../../testdata/perf/burst.dmesg.txt"), o, got); err == nil {
		t.Errorf("no error for an input that is not a capture")
	}
}

// FuzzRunRecords: on any perf script text, under options that change
// what is written, RunRecords gives what a folded.Reader reads from Run's
// output.
func FuzzRunRecords(f *testing.F) {
	f.Add([]byte("app 5 [001] 1.000000: 1 probe:alloc: size=64\n\tffff main (/app)\n\n"), uint8(0))
	f.Add([]byte("app 5/6 [001] 2.000000: 10 cpu-clock:\n\tffff main 12 (/app)\n\tfffe start (/app)\n\n"), uint8(2))
	f.Add([]byte("a 5 [000] 1.0: sched:sched_switch: prev_comm=a prev_pid=5 prev_prio=120 prev_state=S ==> next_comm=b next_pid=6 next_prio=120\n\t1 __schedule ([kernel.kallsyms])\n\n"+
		"b 6 [001] 1.5: sched:sched_switch: prev_comm=b prev_pid=6 prev_prio=120 prev_state=R ==> next_comm=a next_pid=5 next_prio=120\n\t1 __schedule ([kernel.kallsyms])\n\n"), uint8(3))
	opts := []collapse.Options{{}, {NoTime: true}, {Weight: "size"}, {OffCPU: true, ClipOpen: true}, {HotCold: true}, {TID: true}}
	f.Fuzz(func(t *testing.T, text []byte, opt uint8) {
		o := opts[int(opt)%len(opts)]
		var out bytes.Buffer
		f1 := &Folder{Driver: collapse.Driver{Options: o, Workers: 2}}
		_, err1 := f1.Run(&out, []collapse.Input{f1.Text("in", "src", textInput(text))})
		want := readText(t, out.String())
		f2 := &Folder{Driver: collapse.Driver{Options: o, Workers: 2}}
		got := &readEvents{}
		_, err2 := f2.RunRecords(got, []collapse.Input{f2.Text("in", "src", textInput(text))})
		if fmt.Sprint(err1) != fmt.Sprint(err2) {
			t.Fatalf("error %v, want %v", err2, err1)
		}
		if g, w := strings.Join(got.events, "\n"), strings.Join(want.events, "\n"); g != w || fmt.Sprint(got.skips) != fmt.Sprint(want.skips) {
			t.Fatalf("records differ from the text's:\n%s\nskips %v, want %v", golden.Diff([]byte(strings.Join(want.events, "\n")), []byte(strings.Join(got.events, "\n"))), got.skips, want.skips)
		}
	})
}
