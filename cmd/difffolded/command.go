package main

import (
	"flamekit/internal/cli"
	"flamekit/pkg/tool/difffolded"
)

// command is the difffolded command line: the Config of difffolded.Run.
type command struct {
	difffolded.Config `embed:""`
	Version           cli.VersionFlag `help:"Print the version and exit."`
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

// Run runs difffolded.Run with the flags' Config.
func (c *command) Run(env *cli.Env) error { return difffolded.Run(c.Config, env.Tool()) }
