package main

import (
	"flamekit/internal/cli"
	"flamekit/pkg/fold/capture"
	"flamekit/pkg/fold/collapse"
	"flamekit/pkg/folded"
	"flamekit/pkg/source"
	"flamekit/pkg/view/difffolded"
)

// command is the difffolded command line.
type command struct {
	Normalize bool            `short:"n" help:"Normalise the first profile's counts to the second profile's total."`
	StripHex  bool            `short:"s" name:"strip-hex" help:"Strip hex addresses (0x...) so that the same code at other addresses merges."`
	Version   cli.VersionFlag `help:"Print the version and exit."`
	Before    string          `arg:"" help:"The first (baseline) profile: folded or timed folded (or a perf capture, pprof or bpftrace, folded as stackcollapse does), gzipped or not; - for standard input."`
	After     string          `arg:"" help:"The second profile, compared against the first."`
}

// description is difffolded's --help text.
const description = `Compare two folded profiles into differential folded stacks for a red/blue
differential flame graph, like difffolded.pl.

Every stack of either profile is written as "stack count1 count2", sorted
bytewise; a stack missing from a profile gets 0 there. flamegraph draws the
widths of the second profile, red where a frame grew and blue where it shrank
(--negate swaps them).

Examples:
  difffolded before.folded after.folded | flamegraph > diff.svg
  difffolded -n before.folded.gz after.folded.gz | flamegraph > diff.svg
  timeslice --at 30s±5 run.folded > quiet.folded
  timeslice --at 70s±2.5 run.folded | difffolded -ns quiet.folded - | flamegraph > spike.svg
  difffolded after.folded before.folded | flamegraph --negate > before.svg`

// Run compares the two inputs and writes the differential lines.
func (c *command) Run(env *cli.Env) error {
	if c.Before == "-" && c.After == "-" {
		return cli.Usagef("only one of the profiles can be standard input (-)")
	}
	ins, err := source.OpenAll([]string{c.Before, c.After}, source.Options{Stdin: env.Stdin})
	if err != nil {
		return err
	}
	defer ins.Close()
	var profiles [2]*folded.Profile
	for i, in := range ins {
		fs := source.NewFiles(ins[i:i+1], true)
		// Perf captures, pprof and bpftrace are folded as stackcollapse
		// folds them.
		fs.Fold = capture.Fold(capture.Options{Collapse: collapse.Options{NoTime: true}, Perf: "perf", Warnf: env.Warnf})
		p, skips, diffs, err := difffolded.Read(fs)
		if err != nil {
			return err
		}
		if skips.Count > 0 {
			env.Warnf("%s", skips)
		}
		if diffs > 0 {
			env.Warnf("%s: %d lines are already differential (\"stack count1 count2\"); used their second count", in.Display, diffs)
		}
		profiles[i] = p
	}
	lines, err := difffolded.Diff(profiles[0], profiles[1], difffolded.Options{Normalize: c.Normalize, StripHex: c.StripHex})
	if err != nil {
		return err
	}
	for _, l := range lines {
		if l.Before > folded.MaxCount || l.After > folded.MaxCount {
			env.Warnf("warning: the counts of %q sum to about %s, beyond 2^53, and are written rounded", l.Stack, folded.FormatCount(max(l.Before, l.After)))
			break
		}
	}
	var line []byte
	for _, l := range lines {
		rec := folded.Record{Stack: []byte(l.Stack), Before: l.Before, Count: l.After, Kind: folded.Diff}
		line = folded.AppendRecord(line[:0], &rec)
		if _, err := env.Stdout.Write(line); err != nil {
			return err
		}
	}
	return nil
}
