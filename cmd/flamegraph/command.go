package main

import (
	"errors"

	"flamekit/internal/cli"
	"flamekit/pkg/tool/flamegraph"
)

// description is the first paragraph of --help.
const description = `Draw an interactive flame graph (SVG) from folded stacks, as flamegraph.pl does.

Reads classic ("stack count"), differential ("stack before after") and timed
("stack count @seconds") folded lines from the files named, or standard input
("-"); gzip and zstd are read transparently. Perf captures (perf.data, perf
script text), pprof profiles and bpftrace dumps are folded first, as
stackcollapse folds them. Options have flamegraph.pl's names,
defaults and meanings (-width, --wid and --WIDTH all work).

Examples:
  perf script | stackcollapse | flamegraph > cpu.svg
  flamegraph --title "CPU, web01" --minwidth 0.5% out.folded > cpu.svg
  grep -v cpu_idle out.folded | flamegraph --colors java > java.svg
  difffolded before.folded after.folded | flamegraph > diff.svg
  flamegraph --flamechart timed.folded.gz > chart.svg   (timed input: a lane per thread, at the samples' times)
  flamegraph --inverted --reverse out.folded > icicle.svg

In the SVG: hover for details, click to zoom, Ctrl-F or F3 to search with a
regular expression, Ctrl-I to toggle case; zoom and search are kept in the URL.`

// command is the flamegraph command line: the Flags of flamegraph.Run's
// Config.
type command struct {
	flamegraph.Flags `embed:""`
	Version          cli.VersionFlag `name:"version" help:"Print the version and exit."`
}

// Defaults gives kong flamegraph.pl's defaults.
func (c *command) Defaults() map[string]string { return c.Flags.Defaults() }

// Run reads the input and writes the SVG: the flags are the Config of
// flamegraph.Run.
func (c *command) Run(env *cli.Env) error {
	cfg, err := c.Config()
	if err != nil {
		return err
	}
	err = flamegraph.Run(cfg, env.Tool())
	if errors.Is(err, flamegraph.ErrNoStacks) {
		return &cli.ExitError{Code: cli.ExitUsage}
	}
	return err
}
