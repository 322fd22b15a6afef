package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"flamekit/internal/cli"
	"flamekit/pkg/collapse"
	"flamekit/pkg/folded"
	"flamekit/pkg/perfscript"
)

// description is the stackcollapse --help text.
const description = `Fold perf script output into stacks, one line per stack, for flamegraph.

Reads the text of "perf script" (with or without --header) from FILEs or
standard input ("-"), gzipped or not. Stacks are folded as
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
	Jobs        int             `name:"jobs" short:"j" default:"0" help:"Parse with this many threads (default: all CPUs)."`
	Version     cli.VersionFlag `help:"Print the version and exit."`
	Files       []string        `arg:"" optional:"" name:"FILE" help:"perf script output files (.gz read transparently); '-' or none for standard input."`
}

// Run runs the command.
func (c *command) Run(env *cli.Env) error {
	opt := perfscript.Options{
		PID: c.PID, TID: c.TID, Kernel: c.Kernel || c.All, JIT: c.JIT || c.All,
		Addrs: c.Addrs, Inline: c.Inline, Context: c.Context, Srcline: c.Srcline,
		EventFilter: c.EventFilter, NoIdle: c.NoIdle, NoTime: c.NoTime,
		Weight: c.Weight, OffCPU: c.OffCPU, States: c.States, ClipOpen: c.ClipOpen,
		Wakers: c.Wakers, HotCold: c.HotCold,
	}
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
	if opt.MaxBlock, err = parseBlock("--max-block", c.MaxBlock); err != nil {
		return err
	}
	names := c.Files
	if len(names) == 0 {
		names = []string{"-"}
	}
	inputs := make([]perfscript.Input, len(names))
	for i, name := range names {
		display := folded.DisplayName(name)
		inputs[i] = perfscript.Input{Name: display, Source: name, Open: func() (io.ReadCloser, error) {
			rc, err := folded.OpenStdin(name, env.Stdin)
			if err != nil {
				return nil, err
			}
			return refusePerfData(display, rc)
		}}
		if name == "-" {
			inputs[i].Source = "" // no source metadata for stdin
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
		return fmt.Errorf("no samples found, and the input has lines that are not perf script text (counted above): is it the output of 'perf script'?")
	}
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

// refusePerfData fails an input that is a perf.data file (the binary file
// perf record writes) rather than the text perf script prints from it:
// the most common slip, which would otherwise give a screenful of
// malformed lines.
func refusePerfData(name string, rc io.ReadCloser) (io.ReadCloser, error) {
	br := bufio.NewReader(rc)
	if magic, _ := br.Peek(8); string(magic) == "PERFILE2" || string(magic) == "PERFFILE" {
		rc.Close()
		file := name
		if name == folded.StdinName {
			file = "perf.data"
		}
		return nil, fmt.Errorf("%s is a perf.data file, not perf script text: run perf script --header -i %s | stackcollapse", name, file)
	}
	return struct {
		io.Reader
		io.Closer
	}{br, rc}, nil
}
