package main

import (
	"bufio"
	"fmt"
	"io"

	"flamekit/internal/cli"
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
	EventFilter string          `name:"event-filter" placeholder:"EVENT" help:"Keep only samples of EVENT (e.g. cpu-clock:pppH). Default: the first event in the input."`
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
		Notef:   func(format string, args ...any) { fmt.Fprintf(env.Stderr, format, args...) },
	}
	sum, err := col.Run(env.Stdout, inputs)
	if err == nil && sum.Samples == 0 && sum.Skipped.Count > 0 {
		return fmt.Errorf("no samples found, and the input has lines that are not perf script text (counted above): is it the output of 'perf script'?")
	}
	return err
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
