package main

import (
	"flamekit/internal/cli"
	"flamekit/pkg/tool/stacktop"
)

// command is the stacktop command line: the Config of stacktop.Run.
type command struct {
	stacktop.Config `embed:""`
	Version         cli.VersionFlag `help:"Print the version and exit."`
}

// description is stacktop's --help text.
const description = `Rank the functions of folded stacks by self and total cost: the table
go tool pprof -top prints. flat is the count of the samples where a function
is the leaf (self time), cum of those where it is anywhere on the stack
(counted once per sample, however deep it recurses), sum% the running total
of flat%. Rows are sorted by flat (--cum: by cum), then by name.

--callers RE and --callees RE print pprof -peek's view instead: for each
function matching RE, the functions that call it and that it calls, with
the count of the samples through each call and its share of the function's
cum.

Differential input (difffolded output) is ranked by its second count, what
the flame graph draws; two more columns give the change from the first
count (Δflat, Δcum).

Examples:
  stacktop capture.folded
  stacktop -n 0 --format csv capture.folded.gz > functions.csv
  stacktop --cum -n 20 capture.folded
  stacktop --by comm capture.folded
  stackcollapse --all perf.data | stacktop --by module
  stacktop --callers '^do_syscall_64$' --callees '^do_syscall_64$' capture.folded
  stackfilter --focus burst_spin capture.folded | stacktop --format json
  difffolded before.folded after.folded | stacktop --cum`

// Run runs stacktop.Run with the flags' Config.
func (c *command) Run(env *cli.Env) error { return stacktop.Run(c.Config, env.Tool()) }
