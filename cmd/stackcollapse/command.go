package main

import (
	"fmt"
	"io"

	"flamekit/internal/cli"
	"flamekit/pkg/detect"
	"flamekit/pkg/perfscript"
)

// description is the stackcollapse --help text.
const description = `Fold perf script output into stacks, one line per stack, for flamegraph.

Reads the text of "perf script" (with or without --header) from FILEs or
standard input ("-"), gzipped or not; also bpftrace map dumps and
already-folded stacks (bcc's -f output, async-profiler's collapsed),
each input recognised by its content (see --format). Stacks are folded as
stackcollapse-perf.pl folds them (same frames, same flags, weights = perf's
periods). When the samples have timestamps, the output keeps them: one
timed line "stack weight @seconds" per sample, in input order, after a
"# flamekit v1 timed ..." line with the capture's facts, so that timeslice
can cut a time window; --no-time prints the classic sorted, summed lines
instead, as stackcollapse-perf.pl prints them (but for a few documented
fixes, listed in the README).

Examples:
  perf record -F 99 -a -g -- sleep 30 && perf script --header > out.perf
  stackcollapse out.perf | flamegraph > cpu.svg
  stackcollapse out.perf | timeslice --at 70s±2.5 | flamegraph > spike.svg
  perf script | stackcollapse --no-time --all > out.folded
  stackcollapse --pid --no-idle out.perf.gz | flamegraph > busy.svg
  stackcollapse -event-filter=page-faults out.perf > faults.folded
  bpftrace -e 'profile:hz:99 { @[kstack, ustack, comm] = count(); }' > out.bt
  stackcollapse --kernel out.bt | flamegraph > bpf.svg

Exit status: 0 when the input was read (unrecognised lines are counted on
standard error), 1 when an input could not be read, 2 for usage errors.`

// command is the stackcollapse command line (a kong grammar).
type command struct {
	PID         bool            `name:"pid" help:"Include the PID in the root frame: comm-PID (perf script must print pid, e.g. -F +pid)."`
	TID         bool            `name:"tid" help:"Include PID and TID in the root frame: comm-PID/TID."`
	Kernel      bool            `help:"Annotate kernel frames with _[k]."`
	JIT         bool            `name:"jit" help:"Annotate JIT frames (perf-PID.map) with _[j]."`
	All         bool            `help:"All annotations (--kernel --jit)."`
	Addrs       bool            `help:"Include the raw address of frames without a symbol: [module <addr>]."`
	EventFilter string          `name:"event-filter" placeholder:"EVENT" help:"Keep only samples of EVENT (e.g. cpu-clock:pppH). Default: the first event in the input."`
	Inline      bool            `help:"Expand inlined functions with addr2line (slow)."`
	Context     bool            `help:"With --inline, add :file:line to each frame."`
	Srcline     bool            `help:"The input was made with perf script -F+srcline: add the source line to each frame."`
	NoIdle      bool            `name:"no-idle" help:"Drop the samples of idle CPUs (swapper in the idle loop)."`
	NoTime      bool            `name:"no-time" help:"Write classic folded output (sorted, summed) even when samples have timestamps."`
	Jobs        int             `name:"jobs" short:"j" default:"0" help:"Parse with this many threads (default: all CPUs)."`
	Format      string          `name:"format" enum:"auto,perf,bpftrace,pprof,perf-data,folded" default:"auto" help:"Input format: auto (recognise each input by its content), perf (perf script text), bpftrace (map dump), pprof, perf-data, folded (passed through)."`
	Map         string          `name:"map" placeholder:"@NAME" help:"bpftrace input: the map to fold (default: the first map with a stack in its key)."`
	Version     cli.VersionFlag `help:"Print the version and exit."`
	Files       []string        `arg:"" optional:"" name:"FILE" help:"Input files: perf script text, bpftrace dumps, folded stacks (.gz read transparently); '-' or none for standard input."`
}

// Run runs the command. Each input is recognised by its content (or
// --format): perf script text is folded as stackcollapse-perf.pl does (all
// such inputs together, as one capture, written where the first of them
// is), a bpftrace dump is folded by pkg/bpftrace (summed, sorted), folded
// input is copied through; perf.data and pprof are refused, by name.
func (c *command) Run(env *cli.Env) error {
	forced, err := detect.ParseFormat(c.Format)
	if err != nil {
		return cli.Usagef("%v", err)
	}
	names := c.Files
	if len(names) == 0 {
		names = []string{"-"}
	}
	srcs := make([]*source, 0, len(names))
	defer func() {
		for _, s := range srcs {
			if s.open != nil {
				s.open.Close()
			}
		}
	}()
	for _, name := range names {
		s, err := detectSource(name, env.Stdin, forced)
		if err != nil {
			return err
		}
		srcs = append(srcs, s)
		if err := unsupported(s); err != nil {
			return err
		}
	}
	perfDone := false
	for _, s := range srcs {
		var err error
		switch s.kind {
		case detect.Bpftrace:
			err = c.foldBpftrace(env, s)
		case detect.Folded:
			err = c.passFolded(env, s)
		default: // perf script text, empty input, undetected text
			if !perfDone {
				perfDone = true
				err = c.collapsePerf(env, srcs)
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// collapsePerf folds the perf script inputs among srcs, as one capture.
func (c *command) collapsePerf(env *cli.Env, srcs []*source) error {
	opt := perfscript.Options{
		PID: c.PID, TID: c.TID, Kernel: c.Kernel || c.All, JIT: c.JIT || c.All,
		Addrs: c.Addrs, Inline: c.Inline, Context: c.Context, Srcline: c.Srcline,
		EventFilter: c.EventFilter, NoIdle: c.NoIdle, NoTime: c.NoTime,
	}
	var inputs []perfscript.Input
	for _, s := range srcs {
		if s.kind == detect.Bpftrace || s.kind == detect.Folded {
			continue
		}
		in := perfscript.Input{Name: s.display, Source: s.name, Open: func() (io.ReadCloser, error) {
			return s.reader(env.Stdin)
		}}
		if s.name == "-" {
			in.Source = "" // no source metadata for stdin
		}
		inputs = append(inputs, in)
	}
	col := &perfscript.Collapser{
		Options: opt,
		Workers: c.Jobs,
		Warnf:   env.Warnf,
		Notef:   func(format string, args ...any) { fmt.Fprintf(env.Stderr, format, args...) },
	}
	sum, err := col.Run(env.Stdout, inputs)
	if err == nil && sum.Samples == 0 && sum.Unrecognised > 0 {
		return fmt.Errorf("no samples found, and the input has lines that are not perf script text (counted above): is it the output of 'perf script'?")
	}
	return err
}
