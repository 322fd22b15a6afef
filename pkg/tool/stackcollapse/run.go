// Package stackcollapse is the whole stackcollapse tool as a call: [Run] takes a
// [Config] (the folding rules, the off-CPU options, the input format, the
// inputs) and a [tool.Env] (standard input and output, warnings). It opens the
// inputs through the one input layer (package source), each recognised by
// its content, and folds them: perf.data files and perf script text
// through the one fold driver (package capture, package collapse), all of
// them as one stream; bpftrace dumps summed and sorted; folded stacks
// copied through; pprof profiles converted. cmd/stackcollapse only turns
// flags into a Config; any Go program can do the same.
package stackcollapse

import (
	"errors"
	"fmt"
	"runtime"

	"flamekit/pkg/fold/capture"
	"flamekit/pkg/fold/collapse"
	"flamekit/pkg/source"
	"flamekit/pkg/tool"
)

// Config is one run of stackcollapse, as its command line gives it: the
// tags are the flags (cmd/stackcollapse embeds the Config in its command
// line), and each field's flag is named in messages. The zero value folds
// perf captures as stackcollapse-perf.pl does, with the times kept. Jobs
// is the number of CPUs to use (0: all): Run sets GOMAXPROCS to it for its
// duration. MinBlock and MaxBlock are durations (0: no bound), read on
// the command line as microseconds or with their unit ("500us").
type Config struct {
	PID         bool     `name:"pid" help:"Include the PID in the root frame: comm-PID (perf script must print pid, e.g. -F +pid)."`
	TID         bool     `name:"tid" help:"Include PID and TID in the root frame: comm-PID/TID."`
	Kernel      bool     `help:"Annotate kernel frames with _[k]."`
	JIT         bool     `name:"jit" help:"Annotate JIT frames (perf-PID.map) with _[j]."`
	All         bool     `help:"All annotations (--kernel --jit)."`
	Addrs       bool     `help:"Include the raw address of frames without a symbol: [module <addr>]."`
	EventFilter string   `name:"event-filter" placeholder:"EVENT" help:"Keep only samples of EVENT: its name (cpu-clock:pppH, sched:sched_switch) or a part of it between colons (sched_switch). Default: the first event in the input."`
	Weight      string   `name:"weight" placeholder:"FIELD" help:"Weight each sample by its numeric payload field FIELD (size of a malloc probe, bytes_alloc of kmem events, nr_sector of block requests) instead of perf's period."`
	OffCPU      bool     `name:"off-cpu" help:"Write the time threads spent off CPU, in microseconds, by the stack where they blocked (from sched:sched_switch samples: perf record -e sched:sched_switch -a -g)."`
	States      string   `name:"states" placeholder:"LETTERS" help:"With --off-cpu: the prev_state letters that count (default SD: sleeping and disk waits; all: every state, as bcc's offcputime)."`
	MinBlock    Block    `name:"min-block" placeholder:"TIME" help:"With --off-cpu: leave out intervals shorter than TIME (microseconds, or with a unit: 500us, 2ms, 1s). Default 1us."`
	MaxBlock    Block    `name:"max-block" placeholder:"TIME" help:"With --off-cpu: leave out intervals longer than TIME."`
	ClipOpen    bool     `name:"clip-open" help:"With --off-cpu: count the intervals still open at the capture's end up to its last sample, rather than leaving them out."`
	Wakers      bool     `name:"wakers" help:"Off-CPU stacks followed by the waker's stack after a -- frame, as bcc's offwaketime (needs sched:sched_waking or sched_wakeup samples; flamegraph --colors chain)."`
	HotCold     bool     `name:"hot-cold" help:"On-CPU samples (cpu-clock) and off-CPU time of one capture in one graph, in microseconds; off-CPU frames end in _[i] (flamegraph --colors java draws them aqua)."`
	Inline      bool     `help:"Expand each user frame into the inlined functions it is in, read from the object's DWARF as addr2line -i prints them (perf script text and perf.data)."`
	Context     bool     `help:"With --inline, add :file:line to each frame."`
	Srcline     bool     `help:"The input was made with perf script -F+srcline: add the source line to each frame."`
	NoIdle      bool     `name:"no-idle" help:"Drop the samples of idle CPUs (swapper in the idle loop)."`
	NoTime      bool     `name:"no-time" help:"Write classic folded output (sorted, summed) even when samples have timestamps."`
	RefWall     string   `name:"ref-wall" placeholder:"TIME" help:"With --ref-perf: a wall-clock time (RFC 3339, or epoch seconds) known to have happened at perf time --ref-perf, e.g. from a marker written to /dev/kmsg; put in the metadata so that timeslice maps perf time to the wall clock exactly."`
	RefPerf     string   `name:"ref-perf" placeholder:"SECONDS" help:"The perf-clock (dmesg) time of --ref-wall, e.g. 2404.748841."`
	Jobs        int      `name:"jobs" short:"j" default:"0" help:"Use this many CPUs (default: all): -j 1 leaves the others to perf record."`
	Format      string   `name:"format" enum:"auto,perf,bpftrace,pprof,perf-data,folded" default:"auto" help:"Input format: auto (recognise each input by its content), perf (perf script text), pprof (profile.proto, gzipped or not: Go's -cpuprofile/-memprofile, perf_data_converter, timeslice --format pprof), bpftrace (map dump), folded (passed through), perf-data (perf record's file, read directly)."`
	NoPerf      bool     `name:"no-perf" help:"Never run perf script: a perf.data file that stackcollapse cannot read as perf does (LBR, pipe mode, another host's capture without perf archive) is an error instead."`
	Map         string   `name:"map" placeholder:"@NAME" help:"bpftrace input: the map to fold (default: the first map with a stack in its key)."`
	Files       []string `arg:"" optional:"" name:"FILE" help:"Input files: perf script text, pprof, bpftrace dumps, folded stacks (.gz read transparently); '-' or none for standard input."`

	SampleType string `name:"sample-type" placeholder:"NAME|INDEX" help:"pprof input: the sample type to fold, by name (alloc_space) or index, as go tool pprof -sample_index. Default: the profile's default type, else the last."`

	// NoDebuginfod and Force: where perf.data symbols come from (see
	// capture.SymbolConfig).
	NoDebuginfod bool `name:"no-debuginfod" group:"Symbols" help:"Never fetch debug files from the debuginfod servers of DEBUGINFOD_URLS (elfutils' cache and variables; with no URLs set nothing is fetched anyway)."`
	Force        bool `name:"force" group:"Symbols" help:"Read perf maps and jitdump files whoever owns them (perf's -f); else only those of root, you or the profiled process's user."`
}

// Run runs stackcollapse. Each input is recognised by its content (or
// Config.Format): perf script text is folded as stackcollapse-perf.pl
// does (all such inputs together, as one capture, written where the first
// of them is), perf.data files through the same stage, a bpftrace dump is
// folded by pkg/interop/bpftrace (summed, sorted), folded input is copied through,
// pprof profiles are converted (all inputs pprof, or none). The output
// goes to env.Stdout, the messages to env.Warn.
func Run(c Config, env *tool.Env) error {
	forced, err := source.ParseFormat(c.Format)
	if err != nil {
		return tool.Usagef("%v", err)
	}
	opt := c.options()
	if err := c.offCPUOptions(&opt); err != nil {
		return err
	}
	if err := c.jobs(env); err != nil {
		return err
	}
	if err := c.ref(&opt); err != nil {
		return err
	}
	if c.Jobs > 0 {
		// The reading, the parsing and the writing all count: -j 1 is
		// one CPU, not one parser beside a reader on another CPU.
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(c.Jobs))
	}
	ins, err := openInputs(env, c.Files, forced)
	if err != nil {
		return err
	}
	defer ins.Close()
	var pprofs source.Inputs
	other := ""
	for _, in := range ins {
		if capture.CollapseOf(in) == capture.ConvertProfile {
			pprofs = append(pprofs, in)
		} else if other == "" {
			other = in.Kind.String()
			if capture.CollapseOf(in) == capture.FoldPerf && !capture.IsPerf(in) {
				other = source.PerfScript.String() // how it is read
			}
		}
	}
	switch {
	case len(pprofs) == len(ins):
		return c.runPprof(env, pprofs)
	case len(pprofs) > 0:
		return tool.Usagef("some inputs are pprof and some %s: fold them in separate runs", other)
	}
	perfDone := false
	for _, in := range ins {
		var err error
		switch capture.CollapseOf(in) {
		case capture.SumDump:
			err = c.foldBpftrace(env, in)
		case capture.CopyStacks:
			err = c.passFolded(env, in)
		case capture.FoldPerf: // perf script text, perf.data, empty input, undetected text
			if !perfDone {
				perfDone = true
				err = c.collapsePerf(env, ins, opt)
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// options returns the folding options of perf captures.
func (c *Config) options() collapse.Options {
	return collapse.Options{
		PID: c.PID, TID: c.TID, Kernel: c.Kernel || c.All, JIT: c.JIT || c.All,
		Addrs: c.Addrs, Inline: c.Inline, Context: c.Context, Srcline: c.Srcline,
		EventFilter: c.EventFilter, NoIdle: c.NoIdle, NoTime: c.NoTime,
		Weight: c.Weight, OffCPU: c.OffCPU, States: c.States, ClipOpen: c.ClipOpen,
		Wakers: c.Wakers, HotCold: c.HotCold,
	}
}

// ref checks the clock reference and puts it in opt.
func (c *Config) ref(opt *collapse.Options) error {
	if (c.RefWall == "") != (c.RefPerf == "") {
		return tool.Usagef("--ref-wall and --ref-perf go together: a wall-clock time and the perf time it happened at")
	}
	if c.RefWall != "" {
		wall, perf, err := parseRef(c.RefWall, c.RefPerf)
		if err != nil {
			return tool.Usagef("%v", err)
		}
		opt.RefWall, opt.RefPerf = wall, perf
	}
	return nil
}

// jobs checks Jobs and caps it at the CPUs this process may run on (its
// affinity mask), saying so once.
func (c *Config) jobs(env *tool.Env) error {
	if c.Jobs < 0 {
		return tool.Usagef("--jobs %d: want a number of CPUs, or 0 for all", c.Jobs)
	}
	if n := runtime.NumCPU(); c.Jobs > n {
		env.Warnf("-j %d: this process may run on %d CPUs: using %d", c.Jobs, n, n)
		c.Jobs = n
	}
	return nil
}

// collapsePerf folds the perf.data files and perf script texts among ins
// through the one fold driver, as one stream, on every CPU (Jobs).
func (c *Config) collapsePerf(env *tool.Env, ins source.Inputs, opt collapse.Options) error {
	f := &capture.Folder{Driver: collapse.Driver{Options: opt, Workers: c.Jobs, Warnf: env.Warnf}}
	f.Resolver = capture.ResolverFor(capture.SymbolConfig{NoDebuginfod: c.NoDebuginfod, Force: c.Force, Getenv: env.Getenv, Progress: env.Stderr})
	if !c.NoPerf {
		f.Perf = "perf"
	}
	var inputs []collapse.Input
	for _, in := range ins {
		if capture.CollapseOf(in) == capture.FoldPerf {
			inputs = append(inputs, f.Input(in))
		}
	}
	sum, err := f.Run(env.Stdout, inputs)
	var usage *collapse.OptionsError
	if errors.As(err, &usage) {
		return &tool.UsageError{Err: usage}
	}
	if err == nil && sum.Samples == 0 {
		switch {
		case f.Frameless > 0:
			return fmt.Errorf("no sample to fold: the %d samples have no call graph (record with perf record -g)", f.Frameless)
		case f.Skipped.Count > 0:
			return capture.ErrNotPerfScript
		}
	}
	return err
}
