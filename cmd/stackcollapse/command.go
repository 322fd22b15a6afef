package main

import (
	"flamekit/internal/cli"
	"flamekit/pkg/tool/stackcollapse"
)

// description is the stackcollapse --help text.
const description = `Fold perf captures into stacks, one line per stack, for flamegraph.

Reads perf.data files themselves (perf record's output, several times
faster than perf script | stackcollapse, with the same output), the text of
"perf script" (with or without --header) from FILEs, FIFOs or standard
input ("-"), gzip or zstd or not; also pprof profiles, bpftrace map dumps and already-folded
stacks (bcc's -f output, async-profiler's collapsed), each input recognised
by its content (see --format). --call-graph dwarf captures are unwound in
Go as perf unwinds them (without the inlined functions perf script adds:
as perf script --no-inline). A perf.data file that cannot be read as perf
would (LBR, pipe mode, another host's capture without its binaries) is read
through perf script, with a note (--no-perf: an error instead). Stacks are folded as
stackcollapse-perf.pl folds them (same frames, same flags, weights = perf's
periods). When the samples have timestamps, the output keeps them: one
timed line "stack weight @seconds" per sample, in input order, after a
"# flamekit v1 timed ..." line with the capture's facts, so that timeslice
can cut a time window; --no-time prints the classic sorted, summed lines
instead, as stackcollapse-perf.pl prints them (but for a few documented
fixes, listed in docs/stackcollapse.md).

Examples:
  perf record -F 99 -a -g -- sleep 30
  stackcollapse perf.data | flamegraph > cpu.svg
  stackcollapse perf.data | timeslice --at 14s±2.5 | flamegraph > spike.svg
  perf script --header > out.perf
  stackcollapse out.perf | flamegraph > cpu.svg
  stackcollapse out.perf | timeslice --at 70s±2.5 | flamegraph > spike.svg
  perf script | stackcollapse --no-time --all > out.folded
  stackcollapse --pid --no-idle out.perf.gz | flamegraph > busy.svg
  stackcollapse -event-filter=page-faults out.perf > faults.folded
  bpftrace -e 'profile:hz:99 { @[kstack, ustack, comm] = count(); }' > out.bt
  stackcollapse --kernel out.bt | flamegraph > bpf.svg

Environment: FLAMEKIT_CACHE, the directory where the symbol tables built
for perf.data input are kept for the next run (default
$XDG_CACHE_HOME/flamekit, else ~/.cache/flamekit; "off": none).

Exit status: 0 when the input was read (malformed lines are counted on
standard error), 1 when an input could not be read, 2 for usage errors.`

// command is the stackcollapse command line: the Config of
// stackcollapse.Run.
type command struct {
	stackcollapse.Config `embed:""`
	Version              cli.VersionFlag `help:"Print the version and exit."`
}

// Run runs stackcollapse.Run with the flags' Config.
func (c *command) Run(env *cli.Env) error { return stackcollapse.Run(c.Config, env.Tool()) }
