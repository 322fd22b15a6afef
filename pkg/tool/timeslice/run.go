// Package timeslice is the whole timeslice tool as a call: [Run] takes a
// [Config] (the window, the output: summed or timed folded stacks, pprof,
// a Pyroscope push, the heat map, the explorer page or the bursts) and a
// [tool.Env] (standard input and output, warnings). It places the window on
// perf's clock (package window), reads the inputs again in the rare
// case their heads were wrong, and finds the bursts (in one pass, the
// heat map's and the bursts' series are package timeline's) and their
// stacks exactly, from the explorer page's timeline or with a second
// reading of the inputs that hold them. cmd/timeslice embeds [Flags], the
// command line, whose Config method gives the Config; any Go program can
// fill a Config itself.
package timeslice

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"flamekit/pkg/filter/selection"
	"flamekit/pkg/filter/window"
	"flamekit/pkg/fold/capture"
	"flamekit/pkg/folded"
	"flamekit/pkg/interop/pprof"
	"flamekit/pkg/interop/pyroscope"
	"flamekit/pkg/source"
	"flamekit/pkg/timeline"
	"flamekit/pkg/tool"
	"flamekit/pkg/tool/slicecmd"
	"flamekit/pkg/view/bursts"
	"flamekit/pkg/view/heatmap"
)

// Config is one run of timeslice (the tool): the window, the output and
// the inputs, as its command line gives them (Flags.Config). Rows, Top
// and Threshold must be set (heatmap.DefaultRows, bursts.DefaultMax,
// bursts.DefaultThreshold); the other fields' zero values are the
// defaults.
type Config struct {
	// Window is where to cut (HasWindow; none: the whole capture), as
	// ParseWindow reads it.
	Window    window.Spec
	HasWindow bool
	// NoIdle drops the samples of idle CPUs.
	NoIdle bool
	// KeepTime writes timed folded lines instead of summed classic stacks.
	KeepTime bool
	// Heatmap is the heat map drawn instead of stacks (NoHeatmap: none).
	Heatmap Heatmap
	// Rows is the heat map's rows per second (1 to heatmap.MaxRows).
	Rows int
	// ShareComm and ShareFocus (--heatmap=text only) shade each cell by
	// the share of its samples whose process matches ShareComm (as
	// --comm) or whose stack has a frame matching ShareFocus (as
	// stackfilter --focus), instead of by count.
	ShareComm, ShareFocus *regexp.Regexp
	// Bursts prints the windows that stand out instead of stacks.
	Bursts bool
	// Measure is what the bursts and cells measure (zero: bursts.Auto).
	Measure bursts.Measure
	// Top and Threshold: at most Top bursts, at a robust z-score of
	// Threshold or more.
	Top       int
	Threshold float64
	// Quiet prints warnings only on stderr.
	Quiet bool
	// Select keeps the samples of some CPUs, processes, threads (nil: all).
	Select *selection.Selection
	// Format is what the window is written as ("": OutputFolded).
	Format Output
	// SampleType is TYPE/UNIT, what pprof and pushed counts measure.
	SampleType string
	// Push is the Pyroscope URL to push to, under Service with Label
	// (KEY=VALUE) series labels; with Format OutputOTLP, the OTLP/HTTP
	// receiver's base URL (otlp.Path is appended), Service its
	// service.name and a host label its host.name.
	Push    string
	Service string
	Label   []string
	// PushTimeout bounds an OTLP push, its retries included (0:
	// DefaultPushTimeout).
	PushTimeout time.Duration
	// ProfileID is the pushed OTLP profiles' id (see otlp.Options), when
	// not zero.
	ProfileID [16]byte
	// Bucket is the time resolution of --push and --format pprof (nil:
	// the output's default).
	Bucket *time.Duration
	// Addresses keeps the frames' addresses in the pprof and OTLP outputs
	// and the pushes (NoAddresses: names only).
	Addresses Addresses
	// NoDebuginfod and Force say where perf.data symbols come from: see
	// capture.SymbolConfig.
	NoDebuginfod, Force bool
	// Files are the inputs ("-" or none: standard input).
	Files []string
}

// run is one Run: the Config and the outputs' sinks.
type run struct {
	Config
	pusher *pyroscope.Pusher
	busy   *busy // the heat map's and the bursts' sink, set by output
	page   *page // the explorer page's sink (--heatmap=html), set by output
	// cut is where --format pprof cuts its intervals (see pprofOutput):
	// guessed before the first reading (hasCut), known for a second one
	// (recut).
	cut           int64
	hasCut, recut bool
	// profile is what the pprof profile written held (tests).
	profile pprof.Stats
	// pageBudget, when not 0, is the explorer page's budget of entries
	// instead of explorer.DefaultBudget (tests).
	pageBudget int
}

// Run runs timeslice: it places the window on perf's clock (reading the
// inputs a first time when that needs the first sample or the wall clock),
// reads every input into the chosen output (Config), writes it on
// env.Stdout and reports on stderr (env.Warn).
func Run(cfg Config, env *tool.Env) error {
	c := &run{Config: cfg}
	if c.Format == "" {
		c.Format = OutputFolded
	}
	return c.run(env)
}

func (c *run) run(env *tool.Env) error {
	spec, hasWindow := c.Window, c.HasWindow
	if err := c.check(); err != nil {
		return err
	}
	names := c.Files
	if len(names) == 0 {
		names = []string{"-"}
	}
	inputs, err := open(names, capture.SymbolConfig{NoDebuginfod: c.NoDebuginfod, Force: c.Force}, c.Addresses != NoAddresses, env)
	if err != nil {
		return err
	}
	defer inputs.Close()
	if err := c.checkAddresses(inputs); err != nil {
		return err
	}

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
	if hasWindow || c.Heatmap != NoHeatmap || c.Bursts {
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
func (c *run) check() error {
	if c.Rows < 1 || c.Rows > heatmap.MaxRows {
		return tool.Usagef("--rows %d: want 1 to %d", c.Rows, heatmap.MaxRows)
	}
	if (c.ShareComm != nil || c.ShareFocus != nil) && c.Heatmap != HeatmapText {
		return tool.Usagef("--share-comm and --share-focus shade the text heat map: give --heatmap=text")
	}
	if c.ShareComm != nil && c.ShareFocus != nil {
		return tool.Usagef("give --share-comm or --share-focus, not both")
	}
	if c.Heatmap != NoHeatmap && c.KeepTime {
		return tool.Usagef("--heatmap and --keep-time cannot be combined")
	}
	switch c.Format {
	case OutputFolded, OutputPprof, OutputOTLP:
	default:
		return tool.Usagef("--format %q: want folded, pprof or otlp", c.Format)
	}
	if err := c.checkFleet(); err != nil {
		return err
	}
	if c.Bursts && (c.Heatmap != NoHeatmap || c.KeepTime || c.Push != "" || c.Format != OutputFolded) {
		return tool.Usagef("--bursts prints windows: it cannot be combined with --heatmap (which marks them), --keep-time, --format pprof/otlp or --push")
	}
	if c.Top < 1 || !(c.Threshold > 0) || math.IsInf(c.Threshold, 1) {
		return tool.Usagef("--top wants 1 or more, --threshold a finite number more than 0 (got %g)", c.Threshold)
	}
	return nil
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
func (c *run) place(spec window.Spec, hasWindow bool, inputs window.Inputs) (win *window.Window, guessed bool, err error) {
	needClock := hasWindow && spec.NeedsClock() || c.Heatmap != NoHeatmap || c.Bursts
	// --format pprof cuts its intervals on the wall clock as it reads:
	// it reads the heads of the inputs, streams copied first to be read
	// as files (see pprofOutput).
	pprofClock := (c.Format == OutputPprof && c.Push == "" || c.Format == OutputOTLP) && c.Resolution() >= pprof.MinCut
	switch {
	case c.Push != "" && c.Format != OutputOTLP || needClock && (inputs.HasStream() || c.KeepTime):
		if err := inputs.Survey(""); err != nil {
			return nil, false, err
		}
		if err := inputs.RequireTimed(); err != nil {
			return nil, false, err
		}
	case needClock || pprofClock:
		if pprofClock {
			if err := inputs.Spool(""); err != nil {
				return nil, false, err
			}
		}
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
func (c *run) describe(env *tool.Env, win *window.Window, clock *window.Clock) {
	if win.Warning != "" {
		env.Warnf("warning: %s", win.Warning)
	}
	if !c.Quiet {
		for _, l := range window.DescribeWindow(win, clock) {
			env.Warnf("%s", l)
		}
	}
}

// resolve places the window on the clock the inputs give so far.
func (c *run) resolve(spec window.Spec, inputs window.Inputs) (*window.Window, error) {
	clock := inputs.Clock()
	w, err := clock.Resolve(spec)
	if err != nil {
		if errors.Is(err, window.ErrWindow) {
			return nil, tool.Usagef("%v", err)
		}
		if errors.Is(err, window.ErrNoOrigin) {
			if terr := inputs.RequireTimed(); terr != nil {
				return nil, terr
			}
		}
		return nil, err
	}
	return &w, nil
}

// read reads every input whole into the chosen output.
func (c *run) read(env *tool.Env, inputs window.Inputs, win *window.Window) (*window.Slicer, func(*window.Clock) error, error) {
	needTime := win != nil || c.Heatmap != NoHeatmap || c.Push != "" || c.Bursts
	s := &window.Slicer{Opts: window.Options{Window: win, NoIdle: c.NoIdle || c.Bursts, NeedTime: needTime, Select: c.Select}}
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
func (c *run) output(env *tool.Env, s *window.Slicer, inputs window.Inputs, win *window.Window) (finish func(*window.Clock) error, err error) {
	switch {
	case c.Push != "" && c.Format != OutputOTLP:
		return c.pushOutput(env, s, inputs)
	case c.Format == OutputPprof || c.Format == OutputOTLP:
		return c.pprofOutput(env, s, inputs, win), nil
	case c.Heatmap == HeatmapHTML:
		return c.pageOutput(env, s, inputs, win), nil
	case c.Heatmap != NoHeatmap || c.Bursts:
		// Columns and bursts count seconds from the capture's first
		// sample, window or not: second 14 is --from 14s. The first
		// sample as known before this reading (reading resets what an
		// input says about itself).
		before := inputs.Clock()
		b := newBusy(c.Rows, c.Heatmap != NoHeatmap, s.Opts.NoIdle, before.Origin, before.HasOrigin)
		b.weights, b.unit = c.heatWeights(inputs)
		b.shareOf = c.shareMatch()
		c.busy = b
		s.Sink = b
		s.Opts.Dropped = window.SinkFunc(b.dropped)
		return func(clock *window.Clock) error {
			unrec, rule := b.unrecorded(inputs)
			res, fs, err := c.find(b.series, inputs, unrec, nil)
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
			if b.shareOf != nil {
				info.Share = b.shareMap().Grid()
				info.ShareOf = c.shareWhat()
			}
			if c.Heatmap == HeatmapText {
				return g.WriteText(env.Stdout, info)
			}
			return g.WriteSVG(env.Stdout, info)
		}, nil
	case c.KeepTime:
		tw := window.NewTimedWriter(env.Stdout)
		s.Sink = tw
		return func(clock *window.Clock) error {
			return tw.Close(inputs.CaptureMetas(), window.SliceMeta(inputs, win, clock))
		}, nil
	}
	// Summed classic stacks: a timeline of one cell, keyed by stack
	// alone (one entry per distinct stack, whatever the samples).
	tb := timeline.NewBuilder(timeline.Options{Whole: true, Merge: timeline.MergeInputs | timeline.MergeThreads | timeline.MergeCPUs})
	s.Sink = window.SinkFunc(tb.Add)
	return func(*window.Clock) error { _, err := tb.Build().WriteFolded(env.Stdout); return err }, nil
}

// ParseWindow reads a window given as --at, or as --from and --to (all
// empty: no window, hasWindow false).
func ParseWindow(at, from, to string) (sp window.Spec, hasWindow bool, err error) {
	usage := func(err error) error { return tool.Usagef("%v\n%s", err, window.Forms) }
	switch {
	case at != "" && (from != "" || to != ""):
		return window.Spec{}, false, usage(errors.New("give either --at or --from/--to, not both"))
	case at != "":
		sp, err := window.ParseAt(at)
		if err != nil {
			return sp, false, usage(err)
		}
		return sp, true, nil
	case from != "" || to != "":
		sp, err := window.ParseRange(from, to)
		if err != nil {
			return sp, false, usage(err)
		}
		return sp, true, nil
	}
	return window.Spec{}, false, nil
}

func (c *run) heatInfo(inputs window.Inputs, w *window.Window, clock *window.Clock, srcs []heatmap.Source) heatmap.Info {
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
	if d := c.Select.Describe(); d != "" {
		title += ": " + d
	}
	args := ""
	if c.NoIdle {
		args += " --no-idle"
	}
	for _, a := range c.Select.Flags() {
		args += " " + slicecmd.Quote(a)
	}
	info := heatmap.Info{Title: title, Args: args, Inputs: srcs, NoIdle: c.NoIdle}
	if b := c.busy; b != nil && b.weights {
		info.Unit = b.unit
	}
	if w != nil {
		info.Notes = append(info.Notes, window.DescribeWindow(w, clock)[0])
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
func (c *run) summary(env *tool.Env, s *window.Slicer, w *window.Window, inputs window.Inputs) {
	st := &s.Stats
	if st.Untimed.Count > 0 {
		env.Warnf("%s", st.Untimed.Describe("untimed"))
	}
	if st.Malformed.Count > 0 {
		env.Warnf("%s", st.Malformed)
	}
	if st.NoField > 0 {
		env.Warnf("%s", c.Select.Missing(st.NoField))
	}
	if c.Quiet || w == nil && c.Heatmap == NoHeatmap && !c.Bursts {
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
	var used []*window.Input
	for _, in := range inputs {
		if in.Kept > 0 {
			used = append(used, in)
		}
	}
	slices.SortStableFunc(used, func(a, b *window.Input) int { return cmp.Compare(a.Seen.First, b.Seen.First) })
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

// Open opens the inputs named (- for env.Stdin) through the one input
// layer, each read as folded records through capture.Scan: folded stacks as
// they are; perf.data files and perf script text as the records of the
// timed folded stacks stackcollapse makes of them, folded again each time
// they are read, never formatted; pprof profiles and bpftrace dumps
// converted. Binary data of no known kind is refused at once.
func Open(names []string, sym capture.SymbolConfig, env *tool.Env) (window.Inputs, error) {
	return open(names, sym, false, env)
}

// open is Open; addresses gives the timed records of perf.data files the
// addresses of their frames (collapse.Options.Addresses).
func open(names []string, sym capture.SymbolConfig, addresses bool, env *tool.Env) (window.Inputs, error) {
	if err := source.CheckNames(names); err != nil {
		return nil, tool.Usagef("%v", err)
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
	o := capture.Options{Perf: "perf", Warnf: warnf,
		Resolver: capture.ResolverFor(capture.SymbolConfig{NoDebuginfod: sym.NoDebuginfod, Force: sym.Force, Getenv: env.Getenv, Progress: env.Stderr})}
	o.Collapse.Addresses = addresses
	inputs := make(window.Inputs, 0, len(srcs))
	for _, src := range srcs {
		if err := src.Check(); err != nil && !src.Text {
			srcs.Close()
			return nil, err
		}
		inputs = append(inputs, window.FromSource(src, o))
	}
	return inputs, nil
}

// heatWeights says whether the heat map's cells sum the samples' weights
// (--measure weight, or auto on input whose metadata says its counts are
// off-CPU time or another weight) and in what unit, for the legend.
func (c *run) heatWeights(inputs window.Inputs) (bool, string) {
	what, _ := inputs.Weight()
	if c.Measure == bursts.Samples || c.Measure == bursts.Auto && what == "" {
		return false, ""
	}
	m, ok, _ := inputs.Measure()
	if !ok {
		return true, "weight"
	}
	return true, m.Label()
}

// shareMatch returns what tells the samples --share-comm or --share-focus
// count (nil: neither given).
func (c *run) shareMatch() func(stack []byte) bool {
	switch {
	case c.ShareComm != nil:
		re := c.ShareComm
		return func(stack []byte) bool { return re.Match(selection.Comm(stack)) }
	case c.ShareFocus != nil:
		re := c.ShareFocus
		return func(stack []byte) bool {
			for len(stack) > 0 {
				f := stack
				if i := bytes.IndexByte(stack, ';'); i >= 0 {
					f, stack = stack[:i], stack[i+1:]
				} else {
					stack = nil
				}
				if re.Match(f) {
					return true
				}
			}
			return false
		}
	}
	return nil
}

// shareWhat names the samples --share-comm or --share-focus count.
func (c *run) shareWhat() string {
	if c.ShareComm != nil {
		return "of a process matching " + c.ShareComm.String() + " (--share-comm)"
	}
	return "of stacks with a frame matching " + c.ShareFocus.String() + " (--share-focus)"
}
