// Package stackfilter is the whole stackfilter tool as a call: [Run] takes
// a [Config] (pprof's filters, the selection, the inputs) and a tool.Env,
// reads the inputs of any kind through capture.Scan (perf captures into
// timed records, pprof and bpftrace converted, as stackcollapse folds
// them) and writes the kept lines (package stackfilter of pkg/filter).
// cmd/stackfilter only parses flags into a Config.
package stackfilter

import (
	"bufio"

	"flamekit/pkg/filter/selection"
	"flamekit/pkg/filter/stackfilter"
	"flamekit/pkg/fold/capture"
	"flamekit/pkg/folded"
	"flamekit/pkg/source"
	"flamekit/pkg/tool"
)

// Config is the stackfilter command line, typed; its tags are the flags.
type Config struct {
	Focus             []string `sep:"none" placeholder:"RE" group:"Samples" help:"Keep only the stacks with a frame matching RE (pprof -focus)."`
	Ignore            []string `sep:"none" placeholder:"RE" group:"Samples" help:"Drop the stacks with a frame matching RE (pprof -ignore)."`
	Hide              []string `sep:"none" placeholder:"RE" group:"Frames" help:"Remove the frames matching RE; the stack keeps its count (pprof -hide)."`
	Show              []string `sep:"none" placeholder:"RE" group:"Frames" help:"Keep only the frames matching RE (pprof -show)."`
	ShowFrom          []string `name:"show-from" sep:"none" placeholder:"RE" group:"Cuts" help:"Start each stack at its rootmost frame matching RE; drop stacks without one (pprof -show_from)."`
	RootAt            []string `name:"root-at" sep:"none" placeholder:"RE" group:"Cuts" help:"Start each stack at its leafmost frame matching RE; drop stacks without one (inferno's --base)."`
	PruneFrom         []string `name:"prune-from" sep:"none" placeholder:"RE" group:"Cuts" help:"End each stack at its leafmost frame matching RE (pprof -prune_from)."`
	Merge             []string `sep:"none" placeholder:"RE[=NAME]" group:"Renaming" help:"Rename the frames matching RE to NAME (default: RE); consecutive renamed frames become one."`
	CollapseRecursion bool     `name:"collapse-recursion" group:"Renaming" help:"Make a frame that calls itself directly one frame."`
	selection.Flags   `embed:""`
	Files             []string `arg:"" optional:"" help:"Folded stacks (classic, timed or differential; perf captures, pprof and bpftrace are folded as stackcollapse does), gzipped or not; - or nothing for standard input."`
}

// Run filters each input of c in turn to env.Stdout.
func Run(c Config, env *tool.Env) error {
	sel, err := c.Selection()
	if err != nil {
		return &tool.UsageError{Err: err}
	}
	f, err := stackfilter.New(stackfilter.Options{
		Focus: c.Focus, Ignore: c.Ignore, Hide: c.Hide, Show: c.Show,
		ShowFrom: c.ShowFrom, RootAt: c.RootAt, PruneFrom: c.PruneFrom,
		Merge: c.Merge, CollapseRecursion: c.CollapseRecursion,
		Select: sel,
	})
	if err != nil {
		return tool.Usagef("%v", err)
	}
	ins, err := tool.Open(c.Files, env)
	if err != nil {
		return err
	}
	defer ins.Close()
	w, ok := env.Stdout.(*bufio.Writer)
	if !ok {
		w = bufio.NewWriter(env.Stdout)
	}
	// Perf captures, pprof and bpftrace are folded as stackcollapse folds
	// them (perf captures into timed records).
	o := capture.Options{Perf: "perf", Warnf: env.Warnf}
	var total stackfilter.Stats
	var skips folded.Skips
	// The units rule of every tool: the output is one stream, which
	// every reader sums.
	var units folded.Units
	for _, in := range ins {
		st, sk, err := filterInput(f, in, o, w, &units)
		total.Add(st)
		skips.Merge(sk)
		if err != nil {
			return err
		}
	}
	if err := w.Flush(); err != nil {
		return err
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

// filterInput filters one input into w, its metadata lines checked by
// units before they are written.
func filterInput(f *stackfilter.Filter, in *source.Input, o capture.Options, w *bufio.Writer, units *folded.Units) (stackfilter.Stats, folded.Skips, error) {
	c := f.NewCopier(w)
	units.Input(in.Display)
	meta := func(m *folded.Meta) error {
		if err := units.Meta(m); err != nil {
			return err
		}
		return c.Meta(m)
	}
	sc, err := capture.Scan(in, o, capture.ScanOptions{Meta: meta}, func(rec *folded.Record, _ int, text []byte) error {
		return c.Record(rec, text)
	})
	return c.Stats, sc.Skips, err
}
