package main

import (
	"flamekit/internal/cli"
	"flamekit/pkg/tool/stackfilter"
)

// command is the stackfilter command line: the Config of stackfilter.Run.
type command struct {
	stackfilter.Config `embed:""`
	Version            cli.VersionFlag `help:"Print the version and exit."`
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

// Run runs stackfilter.Run with the flags' Config.
func (c *command) Run(env *cli.Env) error { return stackfilter.Run(c.Config, env.Tool()) }
