package timeslice

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/alecthomas/kong"

	"flamekit/pkg/filter/selection"
	"flamekit/pkg/interop/otlp"
	"flamekit/pkg/interop/pyroscope"
	"flamekit/pkg/tool"
	"flamekit/pkg/view/bursts"
	"flamekit/pkg/view/heatmap"
)

// Heatmap is what timeslice draws instead of stacks: no heat map, the
// interactive SVG, the terminal view or the explorer page. As a flag,
// --heatmap alone is HeatmapSVG and --heatmap=text, --heatmap=html the
// others.
type Heatmap uint8

// The heat maps.
const (
	NoHeatmap   Heatmap = iota
	HeatmapSVG          // the interactive SVG
	HeatmapText         // the terminal view
	HeatmapHTML         // the explorer: one self-contained page
)

var heatmapNames = [...]string{NoHeatmap: "", HeatmapSVG: "svg", HeatmapText: "text", HeatmapHTML: "html"}

// String returns the value of --heatmap= that gives h ("" for none).
func (h Heatmap) String() string {
	if int(h) < len(heatmapNames) {
		return heatmapNames[h]
	}
	return "Heatmap(" + strconv.Itoa(int(h)) + ")"
}

// Decode implements kong.MapperValue: --heatmap alone means svg,
// --heatmap=text the terminal view, --heatmap=html the explorer page.
func (h *Heatmap) Decode(ctx *kong.DecodeContext) error {
	i, err := decodeOptional(ctx, heatmapNames[:], int(HeatmapSVG),
		"want --heatmap (SVG), --heatmap=text or --heatmap=html")
	*h = Heatmap(i)
	return err
}

// decodeOptional reads a flag whose value is optional (--flag alone, or
// --flag=value): the index of the value in names (case aside; "" names
// no value), bare for the flag alone; want says what is accepted (kong
// names the flag in the message).
func decodeOptional(ctx *kong.DecodeContext, names []string, bare int, want string) (int, error) {
	if ctx.Scan.Peek().Type != kong.FlagValueToken {
		return bare, nil
	}
	tok := ctx.Scan.Pop()
	v, ok := tok.Value.(string)
	if !ok {
		return 0, fmt.Errorf("%v: %s", tok.Value, want)
	}
	v = strings.ToLower(v)
	for i, name := range names {
		if name != "" && name == v {
			return i, nil
		}
	}
	return 0, fmt.Errorf("%q: %s", v, want)
}

// IsBool makes --heatmap a flag that takes no separate value.
func (h *Heatmap) IsBool() bool { return true }

// Output is what timeslice writes the window as (--format).
type Output string

// The outputs.
const (
	OutputFolded Output = "folded" // summed classic stacks (or timed, Config.KeepTime)
	OutputPprof  Output = "pprof"  // a gzipped profile.proto
	OutputOTLP   Output = "otlp"   // an OTLP ExportProfilesServiceRequest
)

// Flags are the timeslice command line (a command embeds them: their tags
// are its flags, Defaults gives kong the defaults). Config checks them and
// turns them into a Config.
type Flags struct {
	At         string   `help:"Window around a time: TIME±HALF (or TIME+-HALF), e.g. 70s±2.5, @43521.274±2.5, 2026-04-15T10:33:10Z±2.5." placeholder:"TIME±W"`
	From       string   `help:"Start of the window (included): 65s, @43518.774 or a wall-clock time. Default: the start of the capture." placeholder:"TIME"`
	To         string   `help:"End of the window (excluded): 75s, @43523.774 or a wall-clock time. Default: the end of the capture." placeholder:"TIME"`
	NoIdle     bool     `name:"no-idle" help:"Drop the samples of idle CPUs (same list as stackcollapse --no-idle; interrupt and softirq work on an idle CPU is kept)."`
	KeepTime   bool     `name:"keep-time" help:"Write timed folded lines (one per sample, with a metadata line describing the slice) instead of summed classic stacks, so slices can be chained."`
	Heatmap    Heatmap  `help:"Draw the sub-second heat map instead: --heatmap writes an interactive SVG (over 10 minutes, an overview and the sub-second map of the stretch clicked; hover for details; click a start and an end cell for the timeslice command of that range; bursts are marked), --heatmap=text a terminal view, --heatmap=html the explorer: one self-contained page with the heat map and the flame graph of the range selected, compared, filtered, kept in the link (see docs/explorer.md). Cells count samples (lines, not periods), as FlameScope; for off-CPU input (stackcollapse --off-cpu) they sum its microseconds (see --measure)." placeholder:""`
	Rows       int      `default:"${rows}" help:"Heat map rows per second (${rows}: ${rowms} ms buckets; 1 to ${maxrows})."`
	ShareComm  string   `name:"share-comm" placeholder:"RE" help:"With --heatmap=text: shade each cell by the share of its samples whose command name (the stack's first frame) matches RE, as --comm selects (e.g. ^kubelet$), and print each second's share."`
	ShareFocus string   `name:"share-focus" placeholder:"RE" help:"With --heatmap=text: shade each cell by the share of its samples whose stack has a frame matching RE, as stackfilter --focus (pprof -focus) keeps (e.g. ^shrink_folio_list$), and print each second's share."`
	Bursts     bool     `help:"Print the windows that stand out most from the rest of the capture, best first, one a line: by busy rate or by share (a process's, thread's or function's share far above its own typical share, as when one takes the CPUs of a busy host), what rose from what share to what, how far (z-score), where it is (perf clock, after the first sample, wall clock), its top processes and stacks, and the timeslice command that cuts it. Idle samples never count. The heat map marks the windows that stand out by rate or by a process's or thread's share."`
	Measure    string   `enum:"auto,samples,weight" default:"auto" help:"What --bursts, the heat map's marks and its cells measure: samples (sample lines), weight (the sum of their counts: off-CPU time, periods) or auto (bursts: weight when the counts differ from line to line; cells: weight when the metadata says the counts are off-CPU time or another weight; else samples)."`
	Top        int      `default:"${top}" help:"--bursts: print at most N windows." placeholder:"N"`
	Threshold  float64  `default:"${threshold}" help:"--bursts: the robust z-score a second needs to count as busy." placeholder:"Z"`
	Quiet      bool     `short:"q" help:"Do not print the resolved window and sample count on stderr (warnings still are)."`
	Files      []string `arg:"" optional:"" help:"Timed folded inputs, gzip or zstd or not (perf.data files and perf script text are folded as stackcollapse folds them); - or none: standard input." placeholder:"FILE"`

	selection.Flags `embed:""`

	NoDebuginfod bool `name:"no-debuginfod" group:"Symbols" help:"Never fetch debug files from the debuginfod servers of DEBUGINFOD_URLS (elfutils' cache and variables; with no URLs set nothing is fetched anyway)."`
	Force        bool `name:"force" group:"Symbols" help:"Read perf maps and jitdump files whoever owns them (perf's -f); else only those of root, you or the profiled process's user."`
	fleetFlags   `embed:""`
}

// fleetFlags are the flags that send the window elsewhere than folded
// text: pprof on standard output, or pushes to Pyroscope.
type fleetFlags struct {
	Format      Output         `enum:"folded,pprof,otlp" default:"folded" help:"Output format: folded (summed classic stacks), pprof (the window as a gzipped profile.proto, the samples' times, rounded down to --bucket, as timestamp_ns labels, for go tool pprof, Pyroscope, Parca, speedscope) or otlp (an OpenTelemetry ExportProfilesServiceRequest, proto ${otlpversion}, in protobuf: each sample's wall-clock time to --bucket, default ${otlpbucket}, with its CPU, pid, tid and comm; with --push, sent to the OTLP/HTTP receiver at URL${otlppath})."`
	SampleType  string         `name:"sample-type" placeholder:"TYPE/UNIT" help:"With --format pprof or --push: what the counts measure, e.g. alloc_space/bytes. Default: from the capture's metadata (cpu-clock: cpu/nanoseconds; --off-cpu: off_cpu/microseconds; --weight size: EVENT/bytes; other events: their name/count)."`
	Push        string         `placeholder:"URL" help:"Push the window to Grafana Pyroscope at URL (http://host:4040) as pprof, one profile per --bucket, and print a summary on stderr instead of writing stdout. Auth from PYROSCOPE_BASIC_AUTH_USER/PYROSCOPE_BASIC_AUTH_PASSWORD or PYROSCOPE_AUTH_TOKEN; PYROSCOPE_TENANT_ID sets X-Scope-OrgID."`
	Service     string         `placeholder:"NAME" help:"With --push: the service name the profiles are stored under (Grafana's service_name); with --format otlp, the resource's service.name."`
	Label       []string       `sep:"none" placeholder:"KEY=VALUE" help:"With --push: a series label, e.g. --label host=web01 (repeatable); with --format otlp, a resource attribute (host= is host.name)."`
	PushTimeout time.Duration  `name:"push-timeout" placeholder:"DURATION" help:"With --format otlp --push: give up after this long, retries included (default ${pushtimeout})."`
	Addresses   Addresses      `placeholder:"" help:"With --format pprof/otlp or --push, for perf.data input: keep every frame's address, each location an address in a mapping of its process with the file's build-id (as perf_data_converter writes them), so that go tool pprof (-addresses; its symbolizer, PPROF_BINARY_PATH) or a server (Pyroscope, Parca, by build-id) can name frames itself. --addresses keeps flamekit's names too; --addresses=only leaves out the names of frames in files, for the reader to symbolize (kernel, vdso and JIT frames keep theirs)."`
	Bucket      *time.Duration `placeholder:"DURATION" help:"The time resolution, aligned on the wall clock: with --push, the span of one pushed profile (default ${bucket}); with --format pprof, what timestamp_ns is rounded down to, the samples of one stack in one bucket being one pprof sample (default ${pprofbucket}; 1ns keeps every sample's own time)."`
}

// Defaults gives kong the defaults of --rows, --top, --threshold and
// --bucket from the one place each is written: the packages that use them.
func (c *Flags) Defaults() map[string]string {
	return map[string]string{
		"rows": strconv.Itoa(heatmap.DefaultRows), "rowms": strconv.Itoa(1000 / heatmap.DefaultRows),
		"maxrows": strconv.Itoa(heatmap.MaxRows),
		"top":     strconv.Itoa(bursts.DefaultMax), "threshold": strconv.FormatFloat(bursts.DefaultThreshold, 'f', -1, 64),
		"bucket": pyroscope.DefaultBucket.String(), "pprofbucket": DefaultPprofBucket.String(),
		"otlpversion": otlp.ProtoVersion, "otlpbucket": otlp.DefaultResolution.String(), "otlppath": otlp.Path,
		"pushtimeout": DefaultPushTimeout.String(),
	}
}

// Config checks the flags that can be checked alone and returns the
// Config they give, or a *tool.UsageError naming the flag (Run checks
// how they go together).
func (c *Flags) Config() (Config, error) {
	spec, hasWindow, err := ParseWindow(c.At, c.From, c.To)
	if err != nil {
		return Config{}, err
	}
	sel, err := c.Flags.Selection()
	if err != nil {
		return Config{}, tool.Usagef("%v", err)
	}
	measure, err := bursts.ParseMeasure(c.Measure)
	if err != nil {
		return Config{}, tool.Usagef("--measure: %v", err)
	}
	var shareComm, shareFocus *regexp.Regexp
	for _, f := range []struct {
		flag, re string
		to       **regexp.Regexp
	}{{"--share-comm", c.ShareComm, &shareComm}, {"--share-focus", c.ShareFocus, &shareFocus}} {
		if f.re == "" {
			continue
		}
		if *f.to, err = regexp.Compile(f.re); err != nil {
			return Config{}, tool.Usagef("%s: %v", f.flag, err)
		}
	}
	return Config{
		NoDebuginfod: c.NoDebuginfod, Force: c.Force,
		Window: spec, HasWindow: hasWindow, NoIdle: c.NoIdle, KeepTime: c.KeepTime,
		Heatmap: c.Heatmap, Rows: c.Rows, ShareComm: shareComm, ShareFocus: shareFocus, Bursts: c.Bursts, Measure: measure,
		Top: c.Top, Threshold: c.Threshold, Quiet: c.Quiet, Select: sel,
		Format: c.Format, SampleType: c.SampleType, Push: c.Push, Service: c.Service,
		Label: c.Label, Bucket: c.Bucket, Files: c.Files, PushTimeout: c.PushTimeout, Addresses: c.Addresses,
	}, nil
}
