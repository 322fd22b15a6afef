package main

import (
	"flamekit/internal/cli"
	"flamekit/pkg/tool/timeslice"
)

// description is the first part of timeslice --help.
const description = `Cut a time window out of timed folded stacks (stackcollapse output:
"stack count @seconds" lines), drop idle samples, draw the sub-second heat
map that shows where to cut, or find the bursts for you. Output is classic
folded stacks summed over
the window, ready for flamegraph, difffolded or flamegraph.pl.

Windows are half-open, [from, to): a sample exactly at --to belongs to the
next window, so consecutive windows add up to the whole capture.

  relative to the capture's first sample:
    --at 70s±2.5        (also 70s+-2.5; units ms s m h, 1m10s; the ± part
                         is seconds unless it has a unit; a bare number is s)
    --from 65s --to 75s
  absolute, on perf's clock, which is dmesg's clock:
    --at @43521.274±2.5 --from @43518.774 --to @43523.774
  wall clock (RFC 3339; without a zone, local time: set TZ to change):
    --at 2026-04-15T10:33:10Z±2.5
    Exact when the capture was recorded with perf record -k mono; otherwise
    estimated from perf's "captured on" (the perf.data file's mtime, taken
    as the time of the last sample, 1 s resolution, in the local zone of the
    machine running timeslice), with a warning.

The resolved window (perf clock, relative, wall clock when known) and the
number of samples are printed on stderr (-q: only warnings).

The heat map counts seconds from the capture's first sample, as relative
windows do: its second 14, 200 ms is --from 14.2s. A capture longer than
10 minutes gets an overview (a night: a column per 2 minutes, a row per
2 s) and the sub-second map of the 5 minutes clicked on it. A selection
gives the timeslice command of its cells, naming by absolute path the
inputs that hold them (- for standard input).

--bursts prints the windows that stand out most, best first, one a line:
by rate (busy samples; idle ones never count, a second's robust z-score
against the median second) or by share: a process, thread or function
(anywhere on the stack) whose share of the busy samples in a window of 0.5
to 5 s is far above its own typical share (on a host whose CPUs are all
busy, or whose mix changes all the time, a spike takes CPU from the others
and the rate does not move). Each line says which: "rate: z" with the rate
and its ratio to the median second, "share: z" with what rose, from what
typical share to what; then where it is (perf clock, after the first
sample, wall clock), its top processes and stacks, and the timeslice
command that cuts it. Share z-scores are binomial likelihood ratios shrunk
by each key's dispersion and Bonferroni-corrected over keys × windows; a
burst holds a window at --threshold or more, its edges placed to 100 ms;
windows that stand out both ways are one line, ranked by the larger z.
The heat map marks the windows that stand out by rate or by a process's or
thread's share; --heatmap=text --share-comm RE (or
--share-focus RE) shades it by one process's (or function's) share.

Every line of every input is read, so captures concatenated in any order,
with or without their metadata lines, give the same slice as the same files
named one by one. Relative and wall-clock windows need the whole input to
be placed: standard input (or a pipe, a FIFO) is then read twice, through
a copy in $TMPDIR; a window on perf's clock (@...) needs one pass. perf.data
files and perf script text are read as the timed folded stacks stackcollapse
makes of them.

Examples:
  perf script --header -i perf.data | stackcollapse | timeslice --at 70s±2.5 | flamegraph > reset.svg
  timeslice --at @43521.274±2.5 stacks/*.folded.gz | flamegraph > reset.svg
  timeslice --from 10s --to 20s --no-idle capture.folded > busy.folded
  timeslice --heatmap --no-idle capture.folded.gz > heat.svg     (open in a browser)
  timeslice --heatmap=text --no-idle capture.folded.gz | less -S
  timeslice --heatmap=text --no-idle --share-comm '^kubelet$' capture.folded.gz   (one process's share)
  timeslice --heatmap=text --no-idle --share-focus '^shrink_folio_list$' capture.folded.gz
  timeslice --heatmap=html --no-idle capture.folded.gz > explore.html  (one file: attach it)
  timeslice --bursts stacks/*.folded.gz                           (a night: what stood out?)
  stackcollapse < perf.txt | timeslice > classic.folded            (no window: timed -> classic)
  timeslice --from 60s --to 120s --keep-time big.folded | timeslice --at 70s±2.5
  timeslice --at 70s±2.5 --format pprof capture.folded.gz > spike.pb.gz   (go tool pprof spike.pb.gz)
  timeslice --push http://pyroscope:4040 --service web --label host=web01 capture.folded.gz`

// command is the timeslice command line: the Flags of timeslice.Run's
// Config.
type command struct {
	timeslice.Flags `embed:""`
	Version         cli.VersionFlag `help:"Print the version and exit."`
}

// Defaults gives kong the defaults of --rows, --top, --threshold and
// --bucket, from the packages that use them.
func (c *command) Defaults() map[string]string { return c.Flags.Defaults() }

// Run checks the flags and runs timeslice; errors in the flags exit with
// status 2.
func (c *command) Run(env *cli.Env) error {
	cfg, err := c.Config()
	if err != nil {
		return err
	}
	return timeslice.Run(cfg, env.Tool())
}
