// Package difffolded is the whole difffolded tool as a call: [Run] takes a
// [Config] (two profiles, the options of difffolded.pl) and a tool.Env,
// reads both inputs of any kind through capture.Reader (perf captures,
// pprof and bpftrace folded as stackcollapse folds them), and writes the
// differential lines (package difffolded of pkg/view). cmd/difffolded
// only parses flags into a Config.
package difffolded

import (
	"flamekit/pkg/fold/capture"
	"flamekit/pkg/fold/collapse"
	"flamekit/pkg/folded"
	"flamekit/pkg/tool"
	"flamekit/pkg/view/difffolded"
)

// Config is the difffolded command line, typed; its tags are the flags.
type Config struct {
	Normalize bool   `short:"n" help:"Normalise the first profile's counts to the second profile's total."`
	StripHex  bool   `short:"s" name:"strip-hex" help:"Strip hex addresses (0x...) so that the same code at other addresses merges."`
	Before    string `arg:"" help:"The first (baseline) profile: folded or timed folded (or a perf capture, pprof or bpftrace, folded as stackcollapse does), gzipped or not; - for standard input."`
	After     string `arg:"" help:"The second profile, compared against the first."`
}

// Run compares the two inputs of c and writes the differential lines to
// env.Stdout.
func Run(c Config, env *tool.Env) error {
	if c.Before == "-" && c.After == "-" {
		return tool.Usagef("only one of the profiles can be standard input (-)")
	}
	ins, err := tool.Open([]string{c.Before, c.After}, env)
	if err != nil {
		return err
	}
	defer ins.Close()
	var profiles [2]*folded.Profile
	// The units rule of every tool: counts of different things (on-CPU
	// nanoseconds, off-CPU microseconds) are not compared.
	units := &folded.Units{Op: "compared"}
	for i, in := range ins {
		// Perf captures, pprof and bpftrace are folded as stackcollapse
		// folds them.
		rd := capture.NewReader(ins[i:i+1], capture.Options{Collapse: collapse.Options{NoTime: true}, Perf: "perf", Warnf: env.Warnf})
		rd.Units = units
		p, diffs := difffolded.Read(rd.All())
		if err := rd.Err(); err != nil {
			return err
		}
		if skips := rd.Skips(); skips.Count > 0 {
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
			// The range every reader accepts: refused, not rounded.
			return &folded.SumError{Stack: l.Stack, Sum: "about " + folded.FormatCount(max(l.Before, l.After))}
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
