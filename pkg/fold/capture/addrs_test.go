package capture

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"flamekit/pkg/fold/collapse"
	"flamekit/pkg/folded"
)

// addrEvents is readEvents that also checks the addresses of each timed
// record against its stack.
type addrEvents struct {
	readEvents
	t                *testing.T
	name             string
	timed, withAddrs int
	frames, mapped   int
}

func (r *addrEvents) Record(rec *folded.Record, line int, text []byte) error {
	if rec.Kind == folded.Timed {
		r.timed++
		if a := rec.Addrs; a != nil {
			r.withAddrs++
			names := 0
			for _, f := range a.Frames {
				names += int(f.Names)
				r.frames++
				if f.Map < 0 {
					continue
				}
				r.mapped++
				m := a.Maps[f.Map]
				if f.PC < m.Start || f.PC >= m.Limit {
					r.t.Errorf("%s line %d: %#x outside its map %s %#x-%#x", r.name, line, f.PC, m.File, m.Start, m.Limit)
				}
				if m.PID >= 0 && rec.Has&folded.HasPID != 0 && m.PID != rec.PID {
					r.t.Errorf("%s line %d: a map of process %d in a sample of %d", r.name, line, m.PID, rec.PID)
				}
			}
			// The root frame (the comm) has no address.
			if stack := bytes.Count(rec.Stack, []byte{';'}) + 1; names != stack-1 {
				r.t.Errorf("%s line %d: the addresses gave %d frames, the stack %q has %d below its root", r.name, line, names, rec.Stack, stack-1)
			}
		}
	} else if rec.Addrs != nil {
		r.t.Errorf("%s line %d: a %v record with addresses", r.name, line, rec.Kind)
	}
	return r.readEvents.Record(rec, line, text)
}

// TestRunRecordsAddresses: with Options.Addresses the records of a
// perf.data file are those without (the same stacks, line for line), and
// each timed record carries its frames' addresses: one per frame of the
// call chain, inside its map, of the sample's process, giving between
// them every frame of the stack but the root.
func TestRunRecordsAddresses(t *testing.T) {
	for _, name := range []string{"syswide", "mixed", "nocallgraph", "go", "java", "dwc", "mono"} {
		src := open(t, "../../perf/perfdata/testdata/"+name+".data.gz")
		for _, opt := range []collapse.Options{{}, {TID: true, Kernel: true, NoIdle: true}} {
			for _, workers := range []int{1, 3} {
				label := fmt.Sprintf("%s %+v -j%d", name, opt, workers)
				run := func(o collapse.Options, r collapse.Records) {
					f := &Folder{Driver: collapse.Driver{Options: o, Workers: workers}, Resolver: noSymbols(t), AllowForeign: true}
					if _, err := f.RunRecords(r, []collapse.Input{f.Data(src, "src")}); err != nil {
						t.Fatalf("%s: %v", label, err)
					}
				}
				want := &readEvents{}
				run(opt, want)
				opt.Addresses = true
				got := &addrEvents{t: t, name: label}
				run(opt, got)
				if g, w := strings.Join(got.events, "\n"), strings.Join(want.events, "\n"); g != w {
					t.Errorf("%s: the records differ with addresses", label)
				}
				if got.timed == 0 || got.withAddrs != got.timed || got.mapped == 0 {
					t.Errorf("%s: %d of %d timed records with addresses, %d of %d frames in a map", label, got.withAddrs, got.timed, got.mapped, got.frames)
				}
				if workers == 1 && !opt.TID {
					t.Logf("%s: %d timed records, %d frames, %d in a map", filepath.Base(name), got.timed, got.frames, got.mapped)
				}
			}
		}
	}
}
