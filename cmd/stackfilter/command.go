package main

import (
	"io"

	"flamekit/internal/cli"
	"flamekit/pkg/filter/stackfilter"
	"flamekit/pkg/fold/capture"
	"flamekit/pkg/folded"
	"flamekit/pkg/source"
)

// command is the stackfilter command line.
type command struct {
	Focus             []string `sep:"none" placeholder:"RE" group:"Samples" help:"Keep only the stacks with a frame matching RE (pprof -focus)."`
	Ignore            []string `sep:"none" placeholder:"RE" group:"Samples" help:"Drop the stacks with a frame matching RE (pprof -ignore)."`
	Hide              []string `sep:"none" placeholder:"RE" group:"Frames" help:"Remove the frames matching RE; the stack keeps its count (pprof -hide)."`
	Show              []string `sep:"none" placeholder:"RE" group:"Frames" help:"Keep only the frames matching RE (pprof -show)."`
	ShowFrom          []string `name:"show-from" sep:"none" placeholder:"RE" group:"Cuts" help:"Start each stack at its rootmost frame matching RE; drop stacks without one (pprof -show_from)."`
	RootAt            []string `name:"root-at" sep:"none" placeholder:"RE" group:"Cuts" help:"Start each stack at its leafmost frame matching RE; drop stacks without one (inferno's --base)."`
	PruneFrom         []string `name:"prune-from" sep:"none" placeholder:"RE" group:"Cuts" help:"End each stack at its leafmost frame matching RE (pprof -prune_from)."`
	Merge             []string `sep:"none" placeholder:"RE[=NAME]" group:"Renaming" help:"Rename the frames matching RE to NAME (default: RE); consecutive renamed frames become one."`
	CollapseRecursion bool     `name:"collapse-recursion" group:"Renaming" help:"Make a frame that calls itself directly one frame."`
	cli.SelectFlags   `embed:""`
	Version           cli.VersionFlag `help:"Print the version and exit."`
	Files             []string        `arg:"" optional:"" help:"Folded stacks (classic, timed or differential; perf captures, pprof and bpftrace are folded as stackcollapse does), gzipped or not; - or nothing for standard input."`
}

// description is stackfilter's --help text.
const description = `Shape folded stacks: keep the stacks through a function, hide frames but
keep their cost, cut stacks above or below a frame, rename and merge frames,
select samples by comm, pid, tid or CPU. The options are go tool pprof's
and mean what they mean there; each may repeat (values of one option are
alternatives, RE1|RE2). Regular expressions (Go syntax, unanchored) match
frame names as the folded line spells them, root (comm) frame included.

The output is the input's kind of lines, one per kept input line, in input
order: timed lines keep their time and fields, differential lines both
counts. flamegraph, difffolded and timeslice sum them. Metadata lines pass
through.

Whatever the order on the command line, the steps run in this order:
selection (--comm --pid --tid --cpu), --focus, --ignore, --hide, --show,
--show-from, --root-at, --prune-from, --merge, --collapse-recursion.

Examples:
  stackfilter --focus burst_spin capture.folded | flamegraph > burst.svg
  stackfilter --ignore 'do_idle|cpu_idle' capture.folded.gz | flamegraph > busy.svg
  stackfilter --hide '_\[k\]$' capture.folded | flamegraph > user-only.svg
  stackfilter --show-from '^main$' go.folded | flamegraph > from-main.svg
  stackfilter --prune-from '^entry_SYSCALL' capture.folded | flamegraph > syscalls.svg
  stackfilter --merge '^runtime\.=runtime' --collapse-recursion go.folded | stacktop
  stackfilter --comm '^java$' --cpu 0-1 capture.folded | flamegraph > java.svg
  stackfilter --tid 5121 --root-at '^run$' capture.folded | flamegraph > thread.svg
  timeslice --at 14s±2 --keep-time capture.folded | stackfilter --focus burst | flamegraph > spike.svg`

// Run filters each input in turn to standard output.
func (c *command) Run(env *cli.Env) error {
	sel, err := c.Selection()
	if err != nil {
		return err
	}
	f, err := stackfilter.New(stackfilter.Options{
		Focus: c.Focus, Ignore: c.Ignore, Hide: c.Hide, Show: c.Show,
		ShowFrom: c.ShowFrom, RootAt: c.RootAt, PruneFrom: c.PruneFrom,
		Merge: c.Merge, CollapseRecursion: c.CollapseRecursion,
		Select: sel,
	})
	if err != nil {
		return cli.Usagef("%v", err)
	}
	if err := source.CheckNames(c.Files); err != nil {
		return cli.Usagef("%v", err)
	}
	ins, err := source.OpenAll(c.Files, source.Options{Stdin: env.Stdin})
	if err != nil {
		return err
	}
	defer ins.Close()
	// Perf captures, pprof and bpftrace are folded as stackcollapse folds
	// them (perf captures into timed lines).
	fold := capture.Fold(capture.Options{Perf: "perf", Warnf: env.Warnf})
	var total stackfilter.Stats
	var skips folded.Skips
	for _, in := range ins {
		st, sk, err := filterFile(env, f, in, fold)
		total.Add(st)
		skips.Merge(sk)
		if err != nil {
			return err
		}
	}
	if skips.Count > 0 {
		env.Warnf("%s", skips)
	}
	for _, u := range f.Unmatched() {
		env.Warnf("%s matched no frame", u)
	}
	if total.Unknown > 0 {
		env.Warnf("%s", sel.Missing(total.Unknown))
	}
	if total.Escaped > 0 {
		env.Warnf("%d classic lines would have read as differential (their new stack ends in a blank and a number): that blank was written '_'", total.Escaped)
	}
	if total.Lines > 0 && total.Written == 0 {
		env.Warnf("no line kept of %d read", total.Lines)
	}
	return nil
}

// filterFile filters one input.
func filterFile(env *cli.Env, f *stackfilter.Filter, in *source.Input, fold func(*source.Input) (io.ReadCloser, error)) (stackfilter.Stats, folded.Skips, error) {
	rc, err := fold(in)
	if err != nil {
		return stackfilter.Stats{}, folded.Skips{}, err
	}
	defer rc.Close()
	rd := folded.NewReader(rc, in.Display)
	rd.Lenient = true
	st, err := f.Copy(env.Stdout, rd)
	return st, rd.Skips(), err
}
