package main

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"
	"time"

	"flamekit/internal/cli"
	"flamekit/pkg/capture"
	"flamekit/pkg/collapse"
	"flamekit/pkg/folded"
	"flamekit/pkg/perfscript"
	"flamekit/pkg/source"
)

// description is the stackcollapse --help text.
const description = `Fold perf captures into stacks, one line per stack, for flamegraph.

Reads perf.data files themselves (perf record's output, several times
faster than perf script | stackcollapse, with the same output), the text of
"perf script" (with or without --header) from FILEs, FIFOs or standard
input ("-"), gzip or zstd or not; also pprof profiles, bpftrace map dumps and already-folded
stacks (bcc's -f output, async-profiler's collapsed), each input recognised
by its content (see --format). A perf.data file that cannot be read as perf
would (--call-graph dwarf, LBR, pipe mode, another host's capture without
its binaries) is read through perf script, with a note (--no-perf: an
error instead). Stacks are folded as
stackcollapse-perf.pl folds them (same frames, same flags, weights = perf's
periods). When the samples have timestamps, the output keeps them: one
timed line "stack weight @seconds" per sample, in input order, after a
"# flamekit v1 timed ..." line with the capture's facts, so that timeslice
can cut a time window; --no-time prints the classic sorted, summed lines
instead, as stackcollapse-perf.pl prints them (but for a few documented
fixes, listed in docs/stackcollapse.md).

Examples:
  perf record -F 99 -a -g -- sleep 30
  stackcollapse perf.data | flamegraph > cpu.svg
  stackcollapse perf.data | timeslice --at 14s±2.5 | flamegraph > spike.svg
  perf script --header > out.perf
  stackcollapse out.perf | flamegraph > cpu.svg
  stackcollapse out.perf | timeslice --at 70s±2.5 | flamegraph > spike.svg
  perf script | stackcollapse --no-time --all > out.folded
  stackcollapse --pid --no-idle out.perf.gz | flamegraph > busy.svg
  stackcollapse -event-filter=page-faults out.perf > faults.folded
  bpftrace -e 'profile:hz:99 { @[kstack, ustack, comm] = count(); }' > out.bt
  stackcollapse --kernel out.bt | flamegraph > bpf.svg

Exit status: 0 when the input was read (malformed lines are counted on
standard error), 1 when an input could not be read, 2 for usage errors.`

// command is the stackcollapse command line (a kong grammar).
type command struct {
	PID         bool            `name:"pid" help:"Include the PID in the root frame: comm-PID (perf script must print pid, e.g. -F +pid)."`
	TID         bool            `name:"tid" help:"Include PID and TID in the root frame: comm-PID/TID."`
	Kernel      bool            `help:"Annotate kernel frames with _[k]."`
	JIT         bool            `name:"jit" help:"Annotate JIT frames (perf-PID.map) with _[j]."`
	All         bool            `help:"All annotations (--kernel --jit)."`
	Addrs       bool            `help:"Include the raw address of frames without a symbol: [module <addr>]."`
	EventFilter string          `name:"event-filter" placeholder:"EVENT" help:"Keep only samples of EVENT: its name (cpu-clock:pppH, sched:sched_switch) or a part of it between colons (sched_switch). Default: the first event in the input."`
	Weight      string          `name:"weight" placeholder:"FIELD" help:"Weight each sample by its numeric payload field FIELD (size of a malloc probe, bytes_alloc of kmem events, nr_sector of block requests) instead of perf's period."`
	OffCPU      bool            `name:"off-cpu" help:"Write the time threads spent off CPU, in microseconds, by the stack where they blocked (from sched:sched_switch samples: perf record -e sched:sched_switch -a -g)."`
	States      string          `name:"states" placeholder:"LETTERS" help:"With --off-cpu: the prev_state letters that count (default SD: sleeping and disk waits; all: every state, as bcc's offcputime)."`
	MinBlock    string          `name:"min-block" placeholder:"TIME" help:"With --off-cpu: leave out intervals shorter than TIME (microseconds, or with a unit: 500us, 2ms, 1s). Default 1us."`
	MaxBlock    string          `name:"max-block" placeholder:"TIME" help:"With --off-cpu: leave out intervals longer than TIME."`
	ClipOpen    bool            `name:"clip-open" help:"With --off-cpu: count the intervals still open at the capture's end up to its last sample, rather than leaving them out."`
	Wakers      bool            `name:"wakers" help:"Off-CPU stacks followed by the waker's stack after a -- frame, as bcc's offwaketime (needs sched:sched_waking or sched_wakeup samples; flamegraph --colors chain)."`
	HotCold     bool            `name:"hot-cold" help:"On-CPU samples (cpu-clock) and off-CPU time of one capture in one graph, in microseconds; off-CPU frames end in _[i] (flamegraph --colors java draws them aqua)."`
	Inline      bool            `help:"Expand inlined functions with addr2line (slow)."`
	Context     bool            `help:"With --inline, add :file:line to each frame."`
	Srcline     bool            `help:"The input was made with perf script -F+srcline: add the source line to each frame."`
	NoIdle      bool            `name:"no-idle" help:"Drop the samples of idle CPUs (swapper in the idle loop)."`
	NoTime      bool            `name:"no-time" help:"Write classic folded output (sorted, summed) even when samples have timestamps."`
	RefWall     string          `name:"ref-wall" placeholder:"TIME" help:"With --ref-perf: a wall-clock time (RFC 3339, or epoch seconds) known to have happened at perf time --ref-perf, e.g. from a marker written to /dev/kmsg; put in the metadata so that timeslice maps perf time to the wall clock exactly."`
	RefPerf     string          `name:"ref-perf" placeholder:"SECONDS" help:"The perf-clock (dmesg) time of --ref-wall, e.g. 2404.748841."`
	Jobs        int             `name:"jobs" short:"j" default:"0" help:"Use this many CPUs (default: all): -j 1 leaves the others to perf record."`
	Format      string          `name:"format" enum:"auto,perf,bpftrace,pprof,perf-data,folded" default:"auto" help:"Input format: auto (recognise each input by its content), perf (perf script text), pprof (profile.proto, gzipped or not: Go's -cpuprofile/-memprofile, perf_data_converter, timeslice --format pprof), bpftrace (map dump), folded (passed through), perf-data (perf record's file, read directly)."`
	NoPerf      bool            `name:"no-perf" help:"Never run perf script: a perf.data file that stackcollapse cannot read as perf does (--call-graph dwarf, LBR, pipe mode, another host's capture without perf archive) is an error instead."`
	Map         string          `name:"map" placeholder:"@NAME" help:"bpftrace input: the map to fold (default: the first map with a stack in its key)."`
	Version     cli.VersionFlag `help:"Print the version and exit."`
	Files       []string        `arg:"" optional:"" name:"FILE" help:"Input files: perf script text, pprof, bpftrace dumps, folded stacks (.gz read transparently); '-' or none for standard input."`

	pprofFlags `embed:""`
}

// Run runs the command. Each input is recognised by its content (or
// --format): perf script text is folded as stackcollapse-perf.pl does (all
// such inputs together, as one capture, written where the first of them
// is), perf.data files through the same stage, a bpftrace dump is folded
// by pkg/bpftrace (summed, sorted), folded input is copied through, pprof
// profiles are converted (all inputs pprof, or none).
func (c *command) Run(env *cli.Env) error {
	forced, err := source.ParseFormat(c.Format)
	if err != nil {
		return cli.Usagef("%v", err)
	}
	opt := perfscript.Options{
		PID: c.PID, TID: c.TID, Kernel: c.Kernel || c.All, JIT: c.JIT || c.All,
		Addrs: c.Addrs, Inline: c.Inline, Context: c.Context, Srcline: c.Srcline,
		EventFilter: c.EventFilter, NoIdle: c.NoIdle, NoTime: c.NoTime,
		Weight: c.Weight, OffCPU: c.OffCPU, States: c.States, ClipOpen: c.ClipOpen,
		Wakers: c.Wakers, HotCold: c.HotCold,
	}
	if err := c.offCPUOptions(&opt); err != nil {
		return err
	}
	if err := c.jobs(env); err != nil {
		return err
	}
	if c.Jobs > 0 {
		// The reading, the parsing and the writing all count: -j 1 is
		// one CPU, not one parser beside a reader on another CPU.
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(c.Jobs))
	}
	if (c.RefWall == "") != (c.RefPerf == "") {
		return cli.Usagef("--ref-wall and --ref-perf go together: a wall-clock time and the perf time it happened at")
	}
	if c.RefWall != "" {
		wall, perf, err := parseRef(c.RefWall, c.RefPerf)
		if err != nil {
			return cli.Usagef("%v", err)
		}
		opt.RefWall, opt.RefPerf = wall, perf
	}
	ins, err := openInputs(env, c.Files, forced)
	if err != nil {
		return err
	}
	defer ins.Close()
	hasData := false
	var pprofs source.Inputs
	other := ""
	for _, in := range ins {
		hasData = hasData || in.Kind.IsPerfData()
		if in.Kind == source.Pprof {
			pprofs = append(pprofs, in)
		} else if other == "" {
			other = in.Kind.String()
			if in.Kind == source.Unknown || in.Kind == source.Empty {
				other = source.PerfScript.String()
			}
		}
	}
	switch {
	case len(pprofs) == len(ins):
		return c.runPprof(env, pprofs)
	case len(pprofs) > 0:
		return cli.Usagef("some inputs are pprof and some %s: fold them in separate runs", other)
	}
	collapsePerf := c.collapsePerf
	if hasData {
		collapsePerf = c.collapseInOrder
	}
	perfDone := false
	for _, in := range ins {
		var err error
		switch in.Kind {
		case source.Bpftrace:
			err = c.foldBpftrace(env, in)
		case source.Folded:
			err = c.passFolded(env, in)
		default: // perf script text, perf.data, empty input, undetected text
			if !perfDone {
				perfDone = true
				err = collapsePerf(env, ins, opt)
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// jobs checks -j and caps it at the CPUs this process may run on (its
// affinity mask), saying so once.
func (c *command) jobs(env *cli.Env) error {
	if c.Jobs < 0 {
		return cli.Usagef("--jobs %d: want a number of CPUs, or 0 for all", c.Jobs)
	}
	if n := runtime.NumCPU(); c.Jobs > n {
		env.Warnf("-j %d: this process may run on %d CPUs: using %d", c.Jobs, n, n)
		c.Jobs = n
	}
	return nil
}

// isPerf reports whether an input is folded by the perf stage: perf
// script text, perf.data, and what is read as perf script text.
func isPerf(in *source.Input) bool {
	return in.Kind != source.Bpftrace && in.Kind != source.Folded
}

// collapsePerf folds the perf script inputs among ins, as one capture.
func (c *command) collapsePerf(env *cli.Env, ins source.Inputs, opt perfscript.Options) error {
	var inputs []perfscript.Input
	for _, in := range ins {
		if isPerf(in) {
			inputs = append(inputs, perfscript.Input{Name: in.Display, Source: capture.SourceName(in), Open: in.Open})
		}
	}
	col := &perfscript.Collapser{
		Options: opt,
		Workers: c.Jobs,
		Warnf:   env.Warnf,
	}
	sum, err := col.Run(env.Stdout, inputs)
	var usage *collapse.OptionsError
	if errors.As(err, &usage) {
		return cli.Usagef("%v", usage)
	}
	if err == nil && sum.Samples == 0 && sum.Skipped.Count > 0 {
		return capture.ErrNotPerfScript
	}
	return err
}

// collapseInOrder folds the perf.data files and perf script texts among
// ins through one collapse stage, one input after the other: the perf.data
// reader delivers its samples in time order, one at a time.
func (c *command) collapseInOrder(env *cli.Env, ins source.Inputs, opt perfscript.Options) error {
	st, err := collapse.New(env.Stdout, opt)
	var usage *collapse.OptionsError
	if errors.As(err, &usage) {
		return cli.Usagef("%v", usage)
	}
	if err != nil {
		return err
	}
	st.Warnf = env.Warnf
	f := &capture.Folder{Stage: st, Warnf: env.Warnf}
	if !c.NoPerf {
		f.Perf = "perf"
	}
	var inputErrs []error
	for _, in := range ins {
		if !isPerf(in) {
			continue
		}
		if in.Kind.IsPerfData() {
			err = f.Data(in, capture.SourceName(in))
		} else {
			var rc io.ReadCloser
			if rc, err = in.Open(); err == nil {
				err = f.Text(rc, in.Display, capture.SourceName(in))
				rc.Close()
			}
		}
		if err != nil {
			if st.Err() != nil {
				return err // the output failed: stop
			}
			inputErrs = append(inputErrs, err)
		}
	}
	sum, err := st.Close()
	if err != nil {
		return err
	}
	if len(inputErrs) == 0 && sum.Samples == 0 {
		switch {
		case f.Frameless > 0:
			return fmt.Errorf("no sample to fold: the %d samples have no call graph (record with perf record -g)", f.Frameless)
		case f.Skipped.Count > 0:
			return capture.ErrNotPerfScript
		}
	}
	return errors.Join(inputErrs...)
}

// offCPUOptions checks the flags that only --off-cpu (or --hot-cold) uses
// and reads --min-block and --max-block.
func (c *command) offCPUOptions(opt *perfscript.Options) error {
	offCPU := c.OffCPU || c.Wakers || c.HotCold
	for _, f := range []struct {
		name string
		set  bool
	}{{"--states", c.States != ""}, {"--min-block", c.MinBlock != ""}, {"--max-block", c.MaxBlock != ""}, {"--clip-open", c.ClipOpen}} {
		if f.set && !offCPU {
			return cli.Usagef("%s needs --off-cpu (or --hot-cold)", f.name)
		}
	}
	var err error
	if opt.MinBlock, err = parseBlock("--min-block", c.MinBlock); err != nil {
		return err
	}
	opt.MaxBlock, err = parseBlock("--max-block", c.MaxBlock)
	return err
}

// parseBlock reads a --min-block or --max-block value: microseconds, as
// bcc's offcputime -m and -M take them, or a duration with its unit.
func parseBlock(flag, v string) (time.Duration, error) {
	if v == "" {
		return 0, nil
	}
	if n, err := strconv.ParseFloat(v, 64); err == nil && n >= 0 {
		return time.Duration(n * float64(time.Microsecond)), nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return 0, cli.Usagef("%s %q: want microseconds (1000) or a duration with its unit (500us, 2ms, 1s)", flag, v)
	}
	return d, nil
}

// parseRef checks a clock reference given on the command line and returns
// it as the metadata writes it: the wall clock in RFC 3339 UTC (from RFC
// 3339 or epoch seconds such as date +%s.%N prints), and perf seconds.
func parseRef(wall, perf string) (string, string, error) {
	if _, err := folded.ParseTime([]byte(perf)); err != nil || strings.HasPrefix(perf, "-") {
		return "", "", fmt.Errorf("--ref-perf %q: want perf-clock seconds, e.g. 2404.748841", perf)
	}
	if t, err := time.Parse(time.RFC3339Nano, wall); err == nil {
		return t.UTC().Format(time.RFC3339Nano), perf, nil
	}
	ns, err := folded.ParseTime([]byte(wall))
	if err != nil {
		return "", "", fmt.Errorf("--ref-wall %q: want RFC 3339 (2026-11-22T02:56:25.385988021Z) or epoch seconds (1795316185.385988021)", wall)
	}
	return time.Unix(0, int64(ns)).UTC().Format(time.RFC3339Nano), perf, nil
}
