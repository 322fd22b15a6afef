package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/alecthomas/kong"

	"flamekit/internal/cli"
	"flamekit/pkg/folded"
	"flamekit/pkg/heatmap"
	"flamekit/pkg/pyroscope"
	"flamekit/pkg/timeslice"
)

// description is the first part of timeslice --help.
const description = `Cut a time window out of timed folded stacks (stackcollapse output:
"stack count @seconds" lines), drop idle samples, or draw the sub-second
heat map that shows where to cut. Output is classic folded stacks summed over
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

Several inputs (say, a directory of captures): only those whose span
overlaps the window are read, in time order; the others are skipped after
their first lines. Uncompressed files are searched by seeking, gzipped ones
(pgzip) are read until just past the window.

Examples:
  perf script --header -i perf.data | stackcollapse | timeslice --at 70s±2.5 | flamegraph > reset.svg
  timeslice --at @43521.274±2.5 stacks/*.folded.gz | flamegraph > reset.svg
  timeslice --from 10s --to 20s --no-idle capture.folded > busy.folded
  timeslice --heatmap --no-idle capture.folded.gz > heat.svg     (open in a browser)
  timeslice --heatmap=text --no-idle capture.folded.gz | less -S
  stackcollapse < perf.txt | timeslice > classic.folded            (no window: timed -> classic)
  timeslice --from 60s --to 120s --keep-time big.folded | timeslice --at 70s±2.5
  timeslice --at 70s±2.5 --format pprof capture.folded.gz > spike.pb.gz   (go tool pprof spike.pb.gz)
  timeslice --push http://pyroscope:4040 --service web --label host=web01 capture.folded.gz`

// heatmapFormat is the value of --heatmap: "svg" (the default when the
// flag has no value) or "text".
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
		return fmt.Errorf("--heatmap: want svg or text, got %v", tok.Value)
	}
	switch v = strings.ToLower(v); v {
	case "svg", "text":
		*h = heatmapFormat(v)
		return nil
	}
	return fmt.Errorf("--heatmap=%s: want --heatmap (SVG) or --heatmap=text", v)
}

// IsBool makes --heatmap a flag that takes no separate value.
func (h *heatmapFormat) IsBool() bool { return true }

// command is the timeslice command line.
type command struct {
	At       string          `help:"Window around a time: TIME±HALF (or TIME+-HALF), e.g. 70s±2.5, @43521.274±2.5, 2026-04-15T10:33:10Z±2.5." placeholder:"TIME±W"`
	From     string          `help:"Start of the window (included): 65s, @43518.774 or a wall-clock time. Default: the start of the capture." placeholder:"TIME"`
	To       string          `help:"End of the window (excluded): 75s, @43523.774 or a wall-clock time. Default: the end of the capture." placeholder:"TIME"`
	NoIdle   bool            `name:"no-idle" help:"Drop the samples of idle CPUs (same list as stackcollapse --no-idle; interrupt and softirq work on an idle CPU is kept)."`
	KeepTime bool            `name:"keep-time" help:"Write timed folded lines (one per sample, with a metadata line describing the slice) instead of summed classic stacks, so slices can be chained."`
	Heatmap  heatmapFormat   `help:"Draw the sub-second heat map instead: --heatmap writes an interactive SVG (hover for details; click a start and an end cell for the timeslice command of that range), --heatmap=text a terminal view. Cells count samples (lines, not periods), as FlameScope." placeholder:""`
	Rows     int             `default:"50" help:"Heat map rows per second (50 = 20 ms buckets; 1 to 1000)."`
	Quiet    bool            `short:"q" help:"Do not print the resolved window and sample count on stderr (warnings still are)."`
	Version  cli.VersionFlag `help:"Print the version and exit."`
	Files    []string        `arg:"" optional:"" help:"Timed folded inputs (.gz read transparently); - or none: standard input." placeholder:"FILE"`

	fleetFlags `embed:""`
	pusher     *pyroscope.Pusher
}

// Run runs timeslice: it reads the inputs' heads, places the window on
// perf's clock, reads the inputs that may hold samples of it into the
// chosen output, and reports on stderr.
func (c *command) Run(env *cli.Env) error {
	spec, hasWindow, err := c.window()
	if err != nil {
		return err
	}
	if c.Rows < 1 || c.Rows > heatmap.MaxRows {
		return cli.Usagef("--rows %d: want 1 to %d", c.Rows, heatmap.MaxRows)
	}
	if c.Heatmap != "" && c.KeepTime {
		return cli.Usagef("--heatmap and --keep-time cannot be combined")
	}
	if err := c.checkFleet(); err != nil {
		return err
	}
	names := c.Files
	if len(names) == 0 {
		names = []string{"-"}
	}
	if n := countOf(names, "-"); n > 1 {
		return cli.Usagef("standard input (-) is given %d times", n)
	}
	inputs, err := timeslice.ProbeAll(names, env.Stdin)
	if err != nil {
		return err
	}
	defer inputs.Close()
	needTime := hasWindow || c.Heatmap != "" || c.Push != ""
	if needTime {
		if err := inputs.RequireTimed(); err != nil {
			return err
		}
	}
	clock := inputs.Clock()
	var win *timeslice.Window
	if hasWindow {
		w, err := clock.Resolve(spec)
		if err != nil {
			if errors.Is(err, timeslice.ErrWindow) {
				return cli.Usagef("%v", err)
			}
			return err
		}
		win = &w
		if w.Warning != "" {
			env.Warnf("warning: %s", w.Warning)
		}
	}
	used := inputs.Select(win)
	if win != nil && !c.Quiet {
		for _, l := range timeslice.DescribeWindow(win, &clock) {
			env.Warnf("%s", l)
		}
	}
	if win != nil && len(used) == 0 {
		return timeslice.Outside(win, inputs, nil)
	}
	s := &timeslice.Slicer{Opts: timeslice.Options{Window: win, NoIdle: c.NoIdle, NeedTime: needTime}}
	finish, err := c.output(env, s, used, win, &clock)
	if err != nil {
		return err
	}
	for _, in := range used {
		if err := s.Read(in); err != nil {
			c.pushFailed(env)
			return err
		}
	}
	if win != nil && s.Stats.Kept == 0 && s.Stats.Idle == 0 && !timeslice.OverlapsAny(win, inputs, s) {
		return timeslice.Outside(win, inputs, s)
	}
	if err := finish(); err != nil {
		return err
	}
	c.summary(env, s, win, used, len(inputs))
	return nil
}

// output sets the Slicer's sink for the chosen output (heat map, timed
// slice, or summed classic stacks) and returns what writes it at the end.
func (c *command) output(env *cli.Env, s *timeslice.Slicer, used []*timeslice.Input, win *timeslice.Window, clock *timeslice.Clock) (finish func() error, err error) {
	switch {
	case c.Heatmap != "":
		hm := heatmap.New(c.Rows)
		switch {
		case win != nil && win.HasFrom && (!clock.HasOrigin || win.From > clock.Origin):
			hm.SetOrigin(win.From) // columns from the window's start
		case clock.HasOrigin:
			hm.SetOrigin(clock.Origin)
		}
		s.Sink = timeslice.SinkFunc(func(rec *folded.Record) error { hm.Add(rec.Time); return nil })
		return func() error {
			g := hm.Grid()
			info := c.heatInfo(used, win, clock)
			if c.Heatmap == "text" {
				return g.WriteText(env.Stdout, info)
			}
			return g.WriteSVG(env.Stdout, info)
		}, nil
	case c.Push != "":
		return c.pushOutput(env, s, used, clock)
	case c.Format == "pprof":
		return c.pprofOutput(env, s, used, win, clock)
	case c.KeepTime:
		tw, err := timeslice.NewTimedWriter(env.Stdout, timeslice.SliceMeta(used, win, clock))
		if err != nil {
			return nil, err
		}
		s.Sink = tw
		return tw.Close, nil
	}
	var p folded.Profile
	s.Sink = timeslice.SinkFunc(func(rec *folded.Record) error { p.Add(rec); return nil })
	return func() error { _, err := p.WriteTo(env.Stdout); return err }, nil
}

func (c *command) window() (timeslice.Spec, bool, error) {
	usage := func(err error) error { return cli.Usagef("%v\n%s", err, timeslice.Forms) }
	switch {
	case c.At != "" && (c.From != "" || c.To != ""):
		return timeslice.Spec{}, false, usage(errors.New("give either --at or --from/--to, not both"))
	case c.At != "":
		sp, err := timeslice.ParseAt(c.At)
		if err != nil {
			return sp, false, usage(err)
		}
		return sp, true, nil
	case c.From != "" || c.To != "":
		sp, err := timeslice.ParseRange(c.From, c.To)
		if err != nil {
			return sp, false, usage(err)
		}
		return sp, true, nil
	}
	return timeslice.Spec{}, false, nil
}

func countOf(names []string, s string) int {
	n := 0
	for _, x := range names {
		if x == s {
			n++
		}
	}
	return n
}

func (c *command) heatInfo(used []*timeslice.Input, w *timeslice.Window, clock *timeslice.Clock) heatmap.Info {
	var names, quoted []string
	host := ""
	for _, in := range used {
		names = append(names, in.Display)
		if in.Name != "-" {
			quoted = append(quoted, heatmap.ShellQuote(in.Name))
		}
		if h, ok := in.Merged.Get(folded.KeyHost); ok && host == "" {
			host = h
		}
	}
	title := "Heat map of " + strings.Join(names, ", ")
	if len(names) > 4 {
		title = fmt.Sprintf("Heat map of %s ... %s (%d inputs)", names[0], names[len(names)-1], len(names))
	}
	if host != "" {
		title += " (host " + host + ")"
	}
	args := ""
	if c.NoIdle {
		args += " --no-idle"
	}
	if len(quoted) > 0 {
		args += " " + strings.Join(quoted, " ")
	}
	info := heatmap.Info{Title: title, Args: args, NoIdle: c.NoIdle, Origin: clock.Origin, HasOrigin: clock.HasOrigin}
	if w != nil {
		info.Notes = append(info.Notes, timeslice.DescribeWindow(w, clock)[0])
	}
	if len(clock.Refs) > 0 {
		ref := clock.RefAt(clock.Origin)
		info.Wall = ref.ToWall
		info.WallEstimated = !ref.Exact
	}
	return info
}

// summary prints the sample counts and what was skipped on stderr.
func (c *command) summary(env *cli.Env, s *timeslice.Slicer, w *timeslice.Window, used []*timeslice.Input, total int) {
	st := &s.Stats
	if st.Untimed.Count > 0 {
		env.Warnf("skipped %d untimed (classic) lines: timeslice needs timed folded input; run stackcollapse without --no-time (first: %s)", st.Untimed.Count, st.Untimed.First)
	}
	if st.Malformed.Count > 0 {
		env.Warnf("skipped %d malformed lines (first: %s)", st.Malformed.Count, st.Malformed.First)
	}
	for _, d := range st.Disordered {
		env.Warnf("%s is out of time order: read it whole", d)
	}
	if c.Quiet || w == nil && c.Heatmap == "" {
		return
	}
	idle := ""
	if c.NoIdle {
		idle = fmt.Sprintf(" (%d idle samples dropped)", st.Idle)
	}
	what := "in the window"
	if w == nil {
		what = "in the heat map"
	}
	var names []string
	for _, in := range used {
		names = append(names, in.Display)
	}
	list := strings.Join(names, ", ")
	if len(names) > 4 {
		list = fmt.Sprintf("%s ... %s", names[0], names[len(names)-1])
	}
	env.Warnf("%d samples %s%s, from %d of %d inputs: %s", st.Kept, what, idle, len(used), total, list)
}
