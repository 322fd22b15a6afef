package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/alecthomas/kong"

	"flamekit/internal/cli"
	"flamekit/pkg/filter/selection"
	"flamekit/pkg/interop/otlp"
	"flamekit/pkg/interop/pyroscope"
	"flamekit/pkg/tool/timeslice"
	"flamekit/pkg/view/bursts"
	"flamekit/pkg/view/heatmap"
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

--bursts prints the windows that stand out most from the capture's typical
second, best first, one a line: by rate (busy samples; idle ones never
count) or by composition (a process's share of the samples far above its
share of the rest of the capture: on a host whose CPUs are all busy, a
spike takes CPU from the others and the rate does not move). Each line
says which: "rate: z" with the rate and its ratio to the median second,
"composition: z" with the process that stands out, its share of the window
and its typical share; then where it is (perf clock, after the first
sample, wall clock), its top processes and stacks, and the timeslice
command that cuts it. z is a robust z-score ((value - median second) /
scale); a burst is a run of seconds at z >= --threshold/2 holding one at
--threshold or more, its edges placed to 100 ms; windows that stand out
both ways are one line, ranked by the larger z. The heat map marks the
same windows.

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
  timeslice --heatmap=html --no-idle capture.folded.gz > explore.html  (one file: attach it)
  timeslice --bursts stacks/*.folded.gz                           (a night: what stood out?)
  stackcollapse < perf.txt | timeslice > classic.folded            (no window: timed -> classic)
  timeslice --from 60s --to 120s --keep-time big.folded | timeslice --at 70s±2.5
  timeslice --at 70s±2.5 --format pprof capture.folded.gz > spike.pb.gz   (go tool pprof spike.pb.gz)
  timeslice --push http://pyroscope:4040 --service web --label host=web01 capture.folded.gz`

// heatmapFormat is the value of --heatmap: "svg" (the default when the
// flag has no value), "text" or "html" (the explorer page).
type heatmapFormat string

// Decode implements kong.MapperValue: --heatmap alone means svg,
// --heatmap=text the terminal view.
func (h *heatmapFormat) Decode(ctx *kong.DecodeContext) error {
	if ctx.Scan.Peek().Type != kong.FlagValueToken {
		*h = "svg"
		return nil
	}
	tok := ctx.Scan.Pop()
	v, ok := tok.Value.(string)
	if !ok {
		return fmt.Errorf("--heatmap: want svg, text or html, got %v", tok.Value)
	}
	switch v = strings.ToLower(v); v {
	case "svg", "text", "html":
		*h = heatmapFormat(v)
		return nil
	}
	return fmt.Errorf("--heatmap=%s: want --heatmap (SVG), --heatmap=text or --heatmap=html", v)
}

// IsBool makes --heatmap a flag that takes no separate value.
func (h *heatmapFormat) IsBool() bool { return true }

// command is the timeslice command line.
type command struct {
	At        string          `help:"Window around a time: TIME±HALF (or TIME+-HALF), e.g. 70s±2.5, @43521.274±2.5, 2026-04-15T10:33:10Z±2.5." placeholder:"TIME±W"`
	From      string          `help:"Start of the window (included): 65s, @43518.774 or a wall-clock time. Default: the start of the capture." placeholder:"TIME"`
	To        string          `help:"End of the window (excluded): 75s, @43523.774 or a wall-clock time. Default: the end of the capture." placeholder:"TIME"`
	NoIdle    bool            `name:"no-idle" help:"Drop the samples of idle CPUs (same list as stackcollapse --no-idle; interrupt and softirq work on an idle CPU is kept)."`
	KeepTime  bool            `name:"keep-time" help:"Write timed folded lines (one per sample, with a metadata line describing the slice) instead of summed classic stacks, so slices can be chained."`
	Heatmap   heatmapFormat   `help:"Draw the sub-second heat map instead: --heatmap writes an interactive SVG (over 10 minutes, an overview and the sub-second map of the stretch clicked; hover for details; click a start and an end cell for the timeslice command of that range; bursts are marked), --heatmap=text a terminal view, --heatmap=html the explorer: one self-contained page with the heat map and the flame graph of the range selected, compared, filtered, kept in the link (see docs/explorer.md). Cells count samples (lines, not periods), as FlameScope; for off-CPU input (stackcollapse --off-cpu) they sum its microseconds (see --measure)." placeholder:""`
	Rows      int             `default:"${rows}" help:"Heat map rows per second (${rows}: ${rowms} ms buckets; 1 to ${maxrows})."`
	Bursts    bool            `help:"Print the windows that stand out most from the rest of the capture, best first, one a line: by busy rate or by composition (a process's share far above its usual share, as when one takes the CPUs of a saturated host), how far (robust z-score), where it is (perf clock, after the first sample, wall clock), its top processes and stacks, and the timeslice command that cuts it. Idle samples never count. The heat map marks the same windows."`
	Measure   string          `enum:"auto,samples,weight" default:"auto" help:"What --bursts, the heat map's marks and its cells measure: samples (sample lines), weight (the sum of their counts: off-CPU time, periods) or auto (bursts: weight when the counts differ from line to line; cells: weight when the metadata says the counts are off-CPU time or another weight; else samples)."`
	Top       int             `default:"${top}" help:"--bursts: print at most N windows." placeholder:"N"`
	Threshold float64         `default:"${threshold}" help:"--bursts: the robust z-score a second needs to count as busy." placeholder:"Z"`
	Quiet     bool            `short:"q" help:"Do not print the resolved window and sample count on stderr (warnings still are)."`
	Version   cli.VersionFlag `help:"Print the version and exit."`
	Files     []string        `arg:"" optional:"" help:"Timed folded inputs, gzip or zstd or not (perf.data files and perf script text are folded as stackcollapse folds them); - or none: standard input." placeholder:"FILE"`

	selection.Flags `embed:""`
	fleetFlags      `embed:""`
}

// fleetFlags are the flags that send the window elsewhere than folded
// text: pprof on standard output, or pushes to Pyroscope.
type fleetFlags struct {
	Format      string         `enum:"folded,pprof,otlp" default:"folded" help:"Output format: folded (summed classic stacks), pprof (the window as a gzipped profile.proto, the samples' times, rounded down to --bucket, as timestamp_ns labels, for go tool pprof, Pyroscope, Parca, speedscope) or otlp (an OpenTelemetry ExportProfilesServiceRequest, proto ${otlpversion}, in protobuf: each sample's wall-clock time to --bucket, default ${otlpbucket}, with its CPU, pid, tid and comm; with --push, sent to the OTLP/HTTP receiver at URL${otlppath})."`
	SampleType  string         `name:"sample-type" placeholder:"TYPE/UNIT" help:"With --format pprof or --push: what the counts measure, e.g. alloc_space/bytes. Default: from the capture's metadata (cpu-clock: cpu/nanoseconds; --off-cpu: off_cpu/microseconds; --weight size: EVENT/bytes; other events: their name/count)."`
	Push        string         `placeholder:"URL" help:"Push the window to Grafana Pyroscope at URL (http://host:4040) as pprof, one profile per --bucket, and print a summary on stderr instead of writing stdout. Auth from PYROSCOPE_BASIC_AUTH_USER/PYROSCOPE_BASIC_AUTH_PASSWORD or PYROSCOPE_AUTH_TOKEN; PYROSCOPE_TENANT_ID sets X-Scope-OrgID."`
	Service     string         `placeholder:"NAME" help:"With --push: the service name the profiles are stored under (Grafana's service_name); with --format otlp, the resource's service.name."`
	Label       []string       `sep:"none" placeholder:"KEY=VALUE" help:"With --push: a series label, e.g. --label host=web01 (repeatable); with --format otlp, a resource attribute (host= is host.name)."`
	PushTimeout time.Duration  `name:"push-timeout" placeholder:"DURATION" help:"With --format otlp --push: give up after this long, retries included (default ${pushtimeout})."`
	Bucket      *time.Duration `placeholder:"DURATION" help:"The time resolution, aligned on the wall clock: with --push, the span of one pushed profile (default ${bucket}); with --format pprof, what timestamp_ns is rounded down to, the samples of one stack in one bucket being one pprof sample (default ${pprofbucket}; 1ns keeps every sample's own time)."`
}

// Defaults gives kong the defaults of --rows, --top, --threshold and
// --bucket from the one place each is written: the packages that use them.
func (c *command) Defaults() map[string]string {
	return map[string]string{
		"rows": strconv.Itoa(heatmap.DefaultRows), "rowms": strconv.Itoa(1000 / heatmap.DefaultRows),
		"maxrows": strconv.Itoa(heatmap.MaxRows),
		"top":     strconv.Itoa(bursts.DefaultMax), "threshold": strconv.FormatFloat(bursts.DefaultThreshold, 'f', -1, 64),
		"bucket": pyroscope.DefaultBucket.String(), "pprofbucket": timeslice.DefaultPprofBucket.String(),
		"otlpversion": otlp.ProtoVersion, "otlpbucket": otlp.DefaultResolution.String(), "otlppath": otlp.Path,
		"pushtimeout": timeslice.DefaultPushTimeout.String(),
	}
}

// options turns the flags into timeslice's Config.
func (c *command) options() (timeslice.Config, error) {
	spec, hasWindow, err := timeslice.ParseWindow(c.At, c.From, c.To)
	if err != nil {
		return timeslice.Config{}, err
	}
	sel, err := c.Flags.Selection()
	if err != nil {
		return timeslice.Config{}, cli.Usagef("%v", err)
	}
	return timeslice.Config{
		Window: spec, HasWindow: hasWindow, NoIdle: c.NoIdle, KeepTime: c.KeepTime,
		Heatmap: string(c.Heatmap), Rows: c.Rows, Bursts: c.Bursts, Measure: c.Measure,
		Top: c.Top, Threshold: c.Threshold, Quiet: c.Quiet, Select: sel,
		Format: c.Format, SampleType: c.SampleType, Push: c.Push, Service: c.Service,
		Label: c.Label, Bucket: c.Bucket, Files: c.Files, PushTimeout: c.PushTimeout,
	}, nil
}

// Run runs timeslice; errors in the options exit with status 2.
func (c *command) Run(env *cli.Env) error {
	cfg, err := c.options()
	if err != nil {
		return err
	}
	return timeslice.Run(cfg, env.Tool())
}
