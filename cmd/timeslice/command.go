package main

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/alecthomas/kong"

	"flamekit/internal/cli"
	"flamekit/pkg/bursts"
	"flamekit/pkg/capture"
	"flamekit/pkg/folded"
	"flamekit/pkg/heatmap"
	"flamekit/pkg/pyroscope"
	"flamekit/pkg/selection"
	"flamekit/pkg/source"
	"flamekit/pkg/timeslice"
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

	cli.SelectFlags `embed:""`
	fleetFlags      `embed:""`
	sel             *selection.Selection // --cpu, --pid, --tid, --comm
	pusher          *pyroscope.Pusher
	busy            *busy // the heat map's and the bursts' sink, set by output
	page            *page // the explorer page's sink (--heatmap=html), set by output
}

// Defaults gives kong the defaults of --rows, --top, --threshold and
// --bucket from the one place each is written: the packages that use them.
func (c *command) Defaults() map[string]string {
	return map[string]string{
		"rows": strconv.Itoa(heatmap.DefaultRows), "rowms": strconv.Itoa(1000 / heatmap.DefaultRows),
		"maxrows": strconv.Itoa(heatmap.MaxRows),
		"top":     strconv.Itoa(bursts.DefaultMax), "threshold": strconv.FormatFloat(bursts.DefaultThreshold, 'f', -1, 64),
		"bucket": pyroscope.DefaultBucket.String(), "pprofbucket": DefaultPprofBucket.String(),
	}
}

// Run runs timeslice: it places the window on perf's clock (reading the
// inputs a first time when that needs the first sample or the wall clock),
// reads every input into the chosen output, and reports on stderr.
func (c *command) Run(env *cli.Env) error {
	spec, hasWindow, err := c.window()
	if err != nil {
		return err
	}
	if err := c.check(); err != nil {
		return err
	}
	names := c.Files
	if len(names) == 0 {
		names = []string{"-"}
	}
	inputs, err := openInputs(env, names)
	if err != nil {
		return err
	}
	defer inputs.Close()

	win, guessed, err := c.place(spec, hasWindow, inputs)
	if err != nil {
		return err
	}
	// Counts of different things are never summed: refused from what is
	// known before reading (heads, a survey), else once read.
	if _, _, err := inputs.Measure(); err != nil {
		return err
	}
	s, finish, err := c.read(env, inputs, win)
	if err != nil {
		c.pushFailed(env)
		return err
	}
	// What the inputs' heads said may be wrong: a later part of an input
	// may start earlier, or move the window. Read again from the truth.
	again := false
	if b := c.busy; b != nil && b.started {
		final := inputs.Clock()
		again = final.HasOrigin && final.Origin != b.origin
	}
	if guessed {
		final, err := c.resolve(spec, inputs)
		if err != nil {
			return err
		}
		if win == nil || !final.Same(win) {
			win, again = final, true
		}
	}
	if again {
		if s, finish, err = c.read(env, inputs, win); err != nil {
			return err
		}
	}
	if hasWindow || c.Heatmap != "" || c.Bursts {
		if err := inputs.RequireTimed(); err != nil {
			return err
		}
	}
	if _, _, err := inputs.Measure(); err != nil {
		c.pushFailed(env)
		return err
	}
	clock := inputs.Clock()
	if win != nil {
		c.describe(env, win, &clock)
		if s.Stats.Kept == 0 && s.Stats.Idle == 0 && !inputs.Overlaps(win) {
			return inputs.Outside(win)
		}
	}
	if err := finish(&clock); err != nil {
		c.pushFailed(env)
		return err
	}
	c.summary(env, s, win, inputs)
	return nil
}

// check refuses the flags that do not go together.
func (c *command) check() error {
	if c.Rows < 1 || c.Rows > heatmap.MaxRows {
		return cli.Usagef("--rows %d: want 1 to %d", c.Rows, heatmap.MaxRows)
	}
	if c.Heatmap != "" && c.KeepTime {
		return cli.Usagef("--heatmap and --keep-time cannot be combined")
	}
	if err := c.checkFleet(); err != nil {
		return err
	}
	if c.Bursts && (c.Heatmap != "" || c.KeepTime || c.Push != "" || c.Format == "pprof") {
		return cli.Usagef("--bursts prints windows: it cannot be combined with --heatmap (which marks them), --keep-time, --format pprof or --push")
	}
	if c.Top < 1 || c.Threshold <= 0 {
		return cli.Usagef("--top wants 1 or more, --threshold more than 0")
	}
	sel, err := c.SelectFlags.Selection()
	c.sel = sel
	return err
}

// place reads what the window and the output need to know before the
// samples are read, and places the window on perf's clock (nil: none).
//
// A window on perf's clock is placed at once. One counted from the first
// sample, or on the wall clock, needs what only reading all the input
// tells, and so do the heat map and the bursts, whose seconds count from
// the first sample. Streams, and outputs that cannot be taken back
// (--keep-time, --push), are read a first time for it (Survey, which keeps
// a copy of streams); files are placed from their heads (guessed is then
// true) and read again in the rare case that the whole input says
// otherwise (a later part holding earlier samples).
func (c *command) place(spec timeslice.Spec, hasWindow bool, inputs timeslice.Inputs) (win *timeslice.Window, guessed bool, err error) {
	needClock := hasWindow && spec.NeedsClock() || c.Heatmap != "" || c.Bursts
	switch {
	case c.Push != "" || needClock && (inputs.HasStream() || c.KeepTime):
		if err := inputs.Survey(""); err != nil {
			return nil, false, err
		}
		if err := inputs.RequireTimed(); err != nil {
			return nil, false, err
		}
	case needClock:
		if err := inputs.Heads(); err != nil {
			return nil, false, err
		}
		guessed = hasWindow && spec.NeedsClock()
	}
	if !hasWindow {
		return nil, false, nil
	}
	win, err = c.resolve(spec, inputs)
	if err != nil && !guessed {
		return nil, false, err
	}
	return win, guessed, nil
}

// describe prints the window as resolved (unless -q) and any warning about
// how it was placed.
func (c *command) describe(env *cli.Env, win *timeslice.Window, clock *timeslice.Clock) {
	if win.Warning != "" {
		env.Warnf("warning: %s", win.Warning)
	}
	if !c.Quiet {
		for _, l := range timeslice.DescribeWindow(win, clock) {
			env.Warnf("%s", l)
		}
	}
}

// resolve places the window on the clock the inputs give so far.
func (c *command) resolve(spec timeslice.Spec, inputs timeslice.Inputs) (*timeslice.Window, error) {
	clock := inputs.Clock()
	w, err := clock.Resolve(spec)
	if err != nil {
		if errors.Is(err, timeslice.ErrWindow) {
			return nil, cli.Usagef("%v", err)
		}
		if errors.Is(err, timeslice.ErrNoOrigin) {
			if terr := inputs.RequireTimed(); terr != nil {
				return nil, terr
			}
		}
		return nil, err
	}
	return &w, nil
}

// read reads every input whole into the chosen output.
func (c *command) read(env *cli.Env, inputs timeslice.Inputs, win *timeslice.Window) (*timeslice.Slicer, func(*timeslice.Clock) error, error) {
	needTime := win != nil || c.Heatmap != "" || c.Push != "" || c.Bursts
	s := &timeslice.Slicer{Opts: timeslice.Options{Window: win, NoIdle: c.NoIdle || c.Bursts, NeedTime: needTime, Select: c.sel}}
	finish, err := c.output(env, s, inputs, win)
	if err != nil {
		return nil, nil, err
	}
	for i, in := range inputs {
		if c.page != nil {
			c.page.input(i)
		}
		if err := s.Read(in); err != nil {
			return nil, nil, err
		}
	}
	return s, finish, nil
}

// output sets the Slicer's sink for the chosen output (heat map, timed
// slice, or summed classic stacks) and returns what writes it once every
// input has been read.
func (c *command) output(env *cli.Env, s *timeslice.Slicer, inputs timeslice.Inputs, win *timeslice.Window) (finish func(*timeslice.Clock) error, err error) {
	switch {
	case c.Push != "":
		return c.pushOutput(env, s, inputs)
	case c.Format == "pprof":
		return c.pprofOutput(env, s, inputs, win), nil
	case c.Heatmap == "html":
		return c.pageOutput(env, s, inputs, win), nil
	case c.Heatmap != "" || c.Bursts:
		// Columns and bursts count seconds from the capture's first
		// sample, window or not: second 14 is --from 14s. The first
		// sample as known before this reading (reading resets what an
		// input says about itself).
		before := inputs.Clock()
		b := newBusy(c.Rows, c.Heatmap != "", s.Opts.NoIdle, before.Origin, before.HasOrigin)
		b.weights, b.unit = c.heatWeights(inputs)
		c.busy = b
		s.Sink = b
		s.Opts.Dropped = timeslice.SinkFunc(b.dropped)
		return func(clock *timeslice.Clock) error {
			unrec, rule := b.unrecorded(inputs)
			res, fs, err := c.find(b, inputs, unrec)
			if err != nil {
				return err
			}
			srcs := sources(inputs)
			if c.Bursts {
				return c.printBursts(env, res, fs, clock, srcs, unrec, rule)
			}
			hm := b.heatmap()
			if n := hm.Saturated(); n > 0 {
				env.Warnf("warning: %d samples not counted: their heat map cells were full (2^32-1)", n)
			}
			g := hm.Grid()
			g.SetUnrecorded(unrec)
			info := c.heatInfo(inputs, win, clock, srcs)
			info.Marks = marks(res, fs, clock)
			info.UnrecordedRule = rule.Describe()
			if c.Heatmap == "text" {
				return g.WriteText(env.Stdout, info)
			}
			return g.WriteSVG(env.Stdout, info)
		}, nil
	case c.KeepTime:
		tw := timeslice.NewTimedWriter(env.Stdout)
		s.Sink = tw
		return func(clock *timeslice.Clock) error {
			return tw.Close(inputs.CaptureMetas(), timeslice.SliceMeta(inputs, win, clock))
		}, nil
	}
	var p folded.Profile
	s.Sink = timeslice.SinkFunc(func(rec *folded.Record) error { p.Add(rec); return nil })
	return func(*timeslice.Clock) error { _, err := p.WriteTo(env.Stdout); return err }, nil
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

func (c *command) heatInfo(inputs timeslice.Inputs, w *timeslice.Window, clock *timeslice.Clock, srcs []heatmap.Source) heatmap.Info {
	var names []string
	for _, in := range inputs {
		names = append(names, in.Display)
	}
	meta := inputs.Meta()
	host, _ := meta.Get(folded.KeyHost)
	title := "Heat map of " + strings.Join(names, ", ")
	if len(names) > 4 {
		title = fmt.Sprintf("Heat map of %s ... %s (%d inputs)", names[0], names[len(names)-1], len(names))
	}
	if host != "" {
		title += " (host " + host + ")"
	}
	if d := c.sel.Describe(); d != "" {
		title += ": " + d
	}
	args := ""
	if c.NoIdle {
		args += " --no-idle"
	}
	for _, a := range c.sel.Flags() {
		args += " " + heatmap.ShellQuote(a)
	}
	info := heatmap.Info{Title: title, Args: args, Inputs: srcs, NoIdle: c.NoIdle}
	if b := c.busy; b != nil && b.weights {
		info.Unit = b.unit
	}
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

// summary prints what was skipped and, unless -q, the sample counts on
// stderr.
func (c *command) summary(env *cli.Env, s *timeslice.Slicer, w *timeslice.Window, inputs timeslice.Inputs) {
	st := &s.Stats
	if st.Untimed.Count > 0 {
		env.Warnf("%s", st.Untimed.Describe("untimed"))
	}
	if st.Malformed.Count > 0 {
		env.Warnf("%s", st.Malformed)
	}
	if st.NoField > 0 {
		env.Warnf("%s", c.sel.Missing(st.NoField))
	}
	if c.Quiet || w == nil && c.Heatmap == "" && !c.Bursts {
		return
	}
	idle := ""
	if c.NoIdle {
		idle = fmt.Sprintf(" (%d idle samples dropped)", st.Idle)
	}
	what := "in the window"
	switch {
	case c.Bursts:
		what = "read for bursts"
		idle = fmt.Sprintf(" (%d idle samples not counted)", st.Idle)
	case w == nil:
		what = "in the heat map"
	}
	var used []*timeslice.Input
	for _, in := range inputs {
		if in.Kept > 0 {
			used = append(used, in)
		}
	}
	slices.SortStableFunc(used, func(a, b *timeslice.Input) int { return cmp.Compare(a.Seen.First, b.Seen.First) })
	var names []string
	for _, in := range used {
		names = append(names, in.Display)
	}
	list := strings.Join(names, ", ")
	if len(names) > 4 {
		list = fmt.Sprintf("%s ... %s", names[0], names[len(names)-1])
	}
	env.Warnf("%d samples %s%s, from %d of %d inputs: %s", st.Kept, what, idle, st.Used, len(inputs), list)
}

// openInputs opens the inputs through the one input layer: folded stacks
// are read as they are; perf.data files and perf script text are read as
// the timed folded stacks stackcollapse makes of them (folded again each
// time they are read), pprof profiles and bpftrace dumps as their folded
// stacks (which have no time).
func openInputs(env *cli.Env, names []string) (timeslice.Inputs, error) {
	if err := source.CheckNames(names); err != nil {
		return nil, cli.Usagef("%v", err)
	}
	srcs, err := source.OpenAll(names, source.Options{Stdin: env.Stdin})
	if err != nil {
		return nil, err
	}
	var mu sync.Mutex
	said := map[string]bool{}
	warnf := func(format string, args ...any) { // each message once, however often an input is read
		msg := fmt.Sprintf(format, args...)
		mu.Lock()
		defer mu.Unlock()
		if !said[msg] {
			said[msg] = true
			env.Warnf("%s", msg)
		}
	}
	fold := func(in *source.Input) (io.ReadCloser, error) {
		return capture.Folded(in, capture.Options{Perf: "perf", Warnf: warnf})
	}
	inputs := make(timeslice.Inputs, 0, len(srcs))
	for _, src := range srcs {
		switch src.Kind {
		case source.Folded, source.Empty:
			inputs = append(inputs, timeslice.FromSource(src, nil))
		case source.Unknown:
			if !source.IsText(src.Head) {
				srcs.Close()
				return nil, src.Check()
			}
			inputs = append(inputs, timeslice.FromSource(src, nil)) // its lines are counted as malformed
		default:
			inputs = append(inputs, timeslice.FromSource(src, fold))
		}
	}
	return inputs, nil
}

// heatWeights says whether the heat map's cells sum the samples' weights
// (--measure weight, or auto on input whose metadata says its counts are
// off-CPU time or another weight) and in what unit, for the legend.
func (c *command) heatWeights(inputs timeslice.Inputs) (bool, string) {
	what, _ := inputs.Weight()
	if c.Measure == "samples" || c.Measure == "auto" && what == "" {
		return false, ""
	}
	m, ok, _ := inputs.Measure()
	if !ok {
		return true, "weight"
	}
	return true, m.Label()
}
