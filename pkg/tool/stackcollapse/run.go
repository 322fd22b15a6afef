// Package stackcollapse is the whole stackcollapse tool as a call: [Run] takes a
// [Config] (the folding rules, the off-CPU options, the input format, the
// inputs) and an [Env] (standard input and output, warnings). It opens the
// inputs through the one input layer (package source), each recognised by
// its content, and folds them: perf.data files and perf script text
// through the one fold driver (package capture, package collapse), all of
// them as one stream; bpftrace dumps summed and sorted; folded stacks
// copied through; pprof profiles converted. cmd/stackcollapse only turns
// flags into a Config; any Go program can do the same.
package stackcollapse

import (
	"errors"
	"flamekit/pkg/tool"
	"fmt"
	"runtime"

	"flamekit/pkg/fold/capture"
	"flamekit/pkg/fold/collapse"
	"flamekit/pkg/perf/perfscript"
	"flamekit/pkg/source"
)

// Config is one run of stackcollapse, as its command line gives it
// (cmd/stackcollapse fills it from its flags; the flag of each field is
// named in messages). The zero value folds perf captures as
// stackcollapse-perf.pl does, with the times kept.
type Config struct {
	// PID and TID put comm-PID or comm-PID/TID in the root frame.
	PID, TID bool
	// Kernel and JIT annotate kernel (_[k]) and JIT (_[j]) frames; All
	// is both.
	Kernel, JIT, All bool
	// Addrs names frames without a symbol by their raw address.
	Addrs bool
	// EventFilter keeps only the samples of one event (default: the
	// first event of the input).
	EventFilter string
	// Weight weighs each sample by a numeric payload field instead of
	// perf's period.
	Weight string
	// OffCPU writes the time threads spent off CPU; States, MinBlock,
	// MaxBlock (microseconds, or durations with their unit: "500us") and
	// ClipOpen tune it; Wakers adds the wakers' stacks; HotCold writes
	// on-CPU and off-CPU time together.
	OffCPU             bool
	States             string
	MinBlock, MaxBlock string
	ClipOpen           bool
	Wakers, HotCold    bool
	// Inline expands inlined functions with addr2line (Context adds
	// file:line); Srcline reads perf script -F+srcline's source lines.
	Inline, Context, Srcline bool
	// NoIdle drops the samples of idle CPUs.
	NoIdle bool
	// NoTime writes classic (summed, sorted) lines even when the samples
	// have times.
	NoTime bool
	// RefWall and RefPerf are a wall-clock time (RFC 3339 or epoch
	// seconds) and the perf time it happened at, put in the metadata;
	// both or neither.
	RefWall, RefPerf string
	// Jobs is the number of CPUs to use (0: all); Run sets GOMAXPROCS to
	// it for its duration.
	Jobs int
	// Format is the input format: "auto" (or ""), "perf", "bpftrace",
	// "pprof", "perf-data" or "folded" (see source.ParseFormat).
	Format string
	// NoPerf never runs perf script on a perf.data file the reader
	// cannot read as perf does: such a file is an error instead.
	NoPerf bool
	// NoDebuginfod and Force: see capture.SymbolConfig.
	NoDebuginfod, Force bool
	// Map is the bpftrace map to fold (default: the first with a stack).
	Map string
	// SampleType is the sample type of pprof inputs, by name or index.
	SampleType string
	// Files are the inputs ("-" or none: standard input).
	Files []string
}

// Env is where a run reads and writes (package tool).
type Env = tool.Env

// UsageError is an error in the Config: a command exits with status 2
// on it (package tool).
type UsageError = tool.UsageError

var usagef = tool.Usagef

// Run runs stackcollapse. Each input is recognised by its content (or
// Config.Format): perf script text is folded as stackcollapse-perf.pl
// does (all such inputs together, as one capture, written where the first
// of them is), perf.data files through the same stage, a bpftrace dump is
// folded by pkg/interop/bpftrace (summed, sorted), folded input is copied through,
// pprof profiles are converted (all inputs pprof, or none). The output
// goes to env.Stdout, the messages to env.Warn.
func Run(c Config, env *Env) error {
	forced, err := source.ParseFormat(c.Format)
	if err != nil {
		return usagef("%v", err)
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
		return usagef("some inputs are pprof and some %s: fold them in separate runs", other)
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
func (c *Config) options() perfscript.Options {
	return perfscript.Options{
		PID: c.PID, TID: c.TID, Kernel: c.Kernel || c.All, JIT: c.JIT || c.All,
		Addrs: c.Addrs, Inline: c.Inline, Context: c.Context, Srcline: c.Srcline,
		EventFilter: c.EventFilter, NoIdle: c.NoIdle, NoTime: c.NoTime,
		Weight: c.Weight, OffCPU: c.OffCPU, States: c.States, ClipOpen: c.ClipOpen,
		Wakers: c.Wakers, HotCold: c.HotCold,
	}
}

// ref checks the clock reference and puts it in opt.
func (c *Config) ref(opt *perfscript.Options) error {
	if (c.RefWall == "") != (c.RefPerf == "") {
		return usagef("--ref-wall and --ref-perf go together: a wall-clock time and the perf time it happened at")
	}
	if c.RefWall != "" {
		wall, perf, err := parseRef(c.RefWall, c.RefPerf)
		if err != nil {
			return usagef("%v", err)
		}
		opt.RefWall, opt.RefPerf = wall, perf
	}
	return nil
}

// jobs checks Jobs and caps it at the CPUs this process may run on (its
// affinity mask), saying so once.
func (c *Config) jobs(env *Env) error {
	if c.Jobs < 0 {
		return usagef("--jobs %d: want a number of CPUs, or 0 for all", c.Jobs)
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

// collapsePerf folds the perf.data files and perf script texts among ins
// through the one fold driver, as one stream, on every CPU (Jobs).
func (c *Config) collapsePerf(env *Env, ins source.Inputs, opt perfscript.Options) error {
	f := &capture.Folder{Driver: collapse.Driver{Options: opt, Workers: c.Jobs, Warnf: env.Warnf}}
	f.Resolver = capture.ResolverFor(capture.SymbolConfig{NoDebuginfod: c.NoDebuginfod, Force: c.Force, Getenv: env.Getenv, Progress: env.Stderr})
	if !c.NoPerf {
		f.Perf = "perf"
	}
	var inputs []collapse.Input
	for _, in := range ins {
		switch {
		case !isPerf(in):
		case in.Kind.IsPerfData():
			inputs = append(inputs, f.Data(in, capture.SourceName(in)))
		default:
			inputs = append(inputs, f.Text(in.Display, capture.SourceName(in), in.Open))
		}
	}
	sum, err := f.Run(env.Stdout, inputs)
	var usage *collapse.OptionsError
	if errors.As(err, &usage) {
		return &UsageError{Err: usage}
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
