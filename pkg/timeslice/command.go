package timeslice

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/alecthomas/kong"

	"flamekit/internal/cli"
	"flamekit/pkg/folded"
	"flamekit/pkg/heatmap"
)

// Description is the first part of timeslice --help.
const Description = `Cut a time window out of timed folded stacks (stackcollapse output:
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
  timeslice --from 60s --to 120s --keep-time big.folded | timeslice --at 70s±2.5`

// HeatmapFormat is the value of --heatmap: "svg" (the default when the
// flag has no value) or "text".
type HeatmapFormat string

// Decode implements kong.MapperValue: --heatmap alone means svg,
// --heatmap=text the terminal view.
func (h *HeatmapFormat) Decode(ctx *kong.DecodeContext) error {
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
		*h = HeatmapFormat(v)
		return nil
	}
	return fmt.Errorf("--heatmap=%s: want --heatmap (SVG) or --heatmap=text", v)
}

// IsBool makes --heatmap a flag that takes no separate value.
func (h *HeatmapFormat) IsBool() bool { return true }

// Command is the timeslice command line.
type Command struct {
	At       string          `help:"Window around a time: TIME±HALF (or TIME+-HALF), e.g. 70s±2.5, @43521.274±2.5, 2026-04-15T10:33:10Z±2.5." placeholder:"TIME±W"`
	From     string          `help:"Start of the window (included): 65s, @43518.774 or a wall-clock time. Default: the start of the capture." placeholder:"TIME"`
	To       string          `help:"End of the window (excluded): 75s, @43523.774 or a wall-clock time. Default: the end of the capture." placeholder:"TIME"`
	NoIdle   bool            `name:"no-idle" help:"Drop the samples of idle CPUs (same list as stackcollapse --no-idle; interrupt and softirq work on an idle CPU is kept)."`
	KeepTime bool            `name:"keep-time" help:"Write timed folded lines (one per sample, with a metadata line describing the slice) instead of summed classic stacks, so slices can be chained."`
	Heatmap  HeatmapFormat   `help:"Draw the sub-second heat map instead: --heatmap writes an interactive SVG (hover for details; click a start and an end cell for the timeslice command of that range), --heatmap=text a terminal view. Cells count samples (lines, not periods), as FlameScope." placeholder:""`
	Rows     int             `default:"50" help:"Heat map rows per second (50 = 20 ms buckets; 1 to 1000)."`
	Quiet    bool            `short:"q" help:"Do not print the resolved window and sample count on stderr (warnings still are)."`
	Version  cli.VersionFlag `help:"Print the version and exit."`
	Files    []string        `arg:"" optional:"" help:"Timed folded inputs (.gz read transparently); - or none: standard input." placeholder:"FILE"`
}

// Run runs timeslice.
func (c *Command) Run(env *cli.Env) error {
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
	names := c.Files
	if len(names) == 0 {
		names = []string{"-"}
	}
	if n := countOf(names, "-"); n > 1 {
		return cli.Usagef("standard input (-) is given %d times", n)
	}

	// Read the heads of all inputs.
	var inputs []*Input
	defer func() {
		for _, in := range inputs {
			in.Close()
		}
	}()
	for _, name := range names {
		var in *Input
		var err error
		if name == "-" {
			in, err = ProbeStream(name, io.NopCloser(env.Stdin))
		} else {
			in, err = Probe(name)
		}
		if err != nil {
			return err
		}
		inputs = append(inputs, in)
	}
	needTime := hasWindow || c.Heatmap != ""
	if needTime {
		for _, in := range inputs {
			if !in.Empty && in.FirstKind != folded.Timed {
				return fmt.Errorf("%s: %s line without a time: timeslice needs timed folded input (\"stack count @seconds\"); run stackcollapse without --no-time", in.FirstWhere, in.FirstKind)
			}
		}
	}

	clock := buildClock(inputs)
	var win *Window
	if hasWindow {
		w, err := clock.Resolve(spec)
		if err != nil {
			if errors.Is(err, ErrWindow) {
				return cli.Usagef("%v", err)
			}
			return err
		}
		win = &w
		if w.Warning != "" {
			env.Warnf("warning: %s", w.Warning)
		}
	}

	// Select the inputs whose span overlaps the window, in time order.
	slices.SortStableFunc(inputs, func(a, b *Input) int {
		ta, oka := a.Origin()
		tb, okb := b.Origin()
		switch {
		case oka && okb:
			return cmp.Compare(ta, tb)
		case oka:
			return -1
		case okb:
			return 1
		}
		return 0
	})
	var used []*Input
	for _, in := range inputs {
		if in.Empty {
			continue
		}
		if win != nil {
			if first, last, declared, ok := in.Span(); ok && declared &&
				(win.HasTo && first >= win.To || win.HasFrom && last < win.From) {
				in.Close()
				continue
			}
		}
		used = append(used, in)
	}
	if win != nil && !c.Quiet {
		for _, l := range describeWindow(win, &clock) {
			env.Warnf("%s", l)
		}
	}
	if win != nil && len(used) == 0 {
		return outside(win, inputs, nil)
	}

	s := &Slicer{Opts: Options{Window: win, NoIdle: c.NoIdle, NeedTime: needTime}}
	var out func() error
	switch {
	case c.Heatmap != "":
		hm := heatmap.New(c.Rows)
		switch {
		case win != nil && win.HasFrom && (!clock.HasOrigin || win.From > clock.Origin):
			hm.SetOrigin(win.From) // columns from the window's start
		case clock.HasOrigin:
			hm.SetOrigin(clock.Origin)
		}
		s.Sink = SinkFunc(func(rec *folded.Record) error { hm.Add(rec.Time); return nil })
		out = func() error {
			g := hm.Grid()
			info := c.heatInfo(used, win, &clock)
			if c.Heatmap == "text" {
				return g.WriteText(env.Stdout, info)
			}
			return g.WriteSVG(env.Stdout, info)
		}
	case c.KeepTime:
		fw := folded.NewWriter(env.Stdout)
		head := sliceMeta(used, win, &clock)
		if err := fw.WriteMeta(&head); err != nil {
			return err
		}
		var first, last folded.Time
		seen := false
		s.Sink = SinkFunc(func(rec *folded.Record) error {
			if rec.Kind == folded.Timed {
				if !seen || rec.Time < first {
					first = rec.Time
				}
				if !seen || rec.Time > last {
					last = rec.Time
				}
				seen = true
			}
			return fw.Write(rec)
		})
		out = func() error {
			var tail folded.Meta
			if seen {
				tail.Set(folded.KeyFirst, first.String())
				tail.Set(folded.KeyLast, last.String())
			}
			tail.Set(folded.KeySamples, fmt.Sprint(s.Stats.Kept))
			if err := fw.WriteMeta(&tail); err != nil {
				return err
			}
			return fw.Flush()
		}
	default:
		var p folded.Profile
		s.Sink = SinkFunc(func(rec *folded.Record) error { p.Add(rec); return nil })
		out = func() error { _, err := p.WriteTo(env.Stdout); return err }
	}
	for _, in := range used {
		if err := s.Read(in); err != nil {
			return err
		}
	}
	if win != nil && s.Stats.Kept == 0 && s.Stats.Idle == 0 && !overlapsAny(win, inputs, s) {
		return outside(win, inputs, s)
	}
	if err := out(); err != nil {
		return err
	}
	c.summary(env, s, win, used, len(inputs))
	return nil
}

func (c *Command) window() (Spec, bool, error) {
	usage := func(err error) error { return cli.Usagef("%v\n%s", err, Forms) }
	switch {
	case c.At != "" && (c.From != "" || c.To != ""):
		return Spec{}, false, usage(errors.New("give either --at or --from/--to, not both"))
	case c.At != "":
		sp, err := ParseAt(c.At)
		if err != nil {
			return sp, false, usage(err)
		}
		return sp, true, nil
	case c.From != "" || c.To != "":
		sp, err := ParseRange(c.From, c.To)
		if err != nil {
			return sp, false, usage(err)
		}
		return sp, true, nil
	}
	return Spec{}, false, nil
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

// buildClock gathers the origin (the earliest first sample of all inputs)
// and the wall-clock references of the inputs.
func buildClock(inputs []*Input) Clock {
	var c Clock
	for _, in := range inputs {
		if t, ok := in.Origin(); ok && (!c.HasOrigin || t < c.Origin) {
			c.Origin, c.HasOrigin = t, true
		}
	}
	for _, in := range inputs {
		first, last, _, ok := in.Span()
		if !ok {
			if f, okF := in.Origin(); okF {
				first, last = f, f
			}
			if l, okL := in.Merged.Time(folded.KeyLast); okL {
				last, ok = l, true
			}
		}
		if r, ok := refFromMeta(&in.Merged, first, last, ok, time.Local); ok {
			c.Refs = append(c.Refs, r)
		}
	}
	return c
}

const wallLayout = "2006-01-02T15:04:05.000000Z07:00"

// describeWindow returns the lines that show the resolved window.
func describeWindow(w *Window, c *Clock) []string {
	end := func(has bool, t folded.Time, open string) string {
		if !has {
			return open
		}
		return "@" + t.String()
	}
	lines := []string{fmt.Sprintf("window %s to %s on perf's clock (from included, to excluded)",
		end(w.HasFrom, w.From, "the start"), end(w.HasTo, w.To, "the end"))}
	if c.HasOrigin {
		rel := func(has bool, t folded.Time, open string) string {
			if !has {
				return open
			}
			return formatSeconds(t-c.Origin) + " s"
		}
		lines = append(lines, fmt.Sprintf("  = %s to %s after the first sample (@%v)",
			rel(w.HasFrom, w.From, "the start"), rel(w.HasTo, w.To, "the end"), c.Origin))
	}
	if w.Ref != nil {
		wall := func(has bool, t folded.Time, open string) string {
			if !has {
				return open
			}
			return w.Ref.ToWall(t).In(time.Local).Format(wallLayout)
		}
		how := "exact: " + w.Ref.How
		if !w.Ref.Exact {
			how = "estimated from \"captured on\", about ±1 s"
		}
		lines = append(lines, fmt.Sprintf("  = %s to %s wall clock (%s)",
			wall(w.HasFrom, w.From, "the start"), wall(w.HasTo, w.To, "the end"), how))
	}
	return lines
}

func overlapsAny(w *Window, inputs []*Input, s *Slicer) bool {
	for _, in := range inputs {
		first, last, _, ok := in.Span()
		if s != nil {
			if f, l, okS := s.Seen(in); okS {
				if !ok || f < first {
					first = f
				}
				if !ok || l > last {
					last = l
				}
				ok = true
			}
		}
		if ok && (!w.HasTo || first < w.To) && (!w.HasFrom || last >= w.From) {
			return true
		}
	}
	return false
}

// outside is the error for a window that misses every input.
func outside(w *Window, inputs []*Input, s *Slicer) error {
	var b strings.Builder
	from, to := "the start", "the end"
	if w.HasFrom {
		from = "@" + w.From.String()
	}
	if w.HasTo {
		to = "@" + w.To.String()
	}
	fmt.Fprintf(&b, "the window %s to %s is outside every input; spans found:", from, to)
	const show = 12
	for i, in := range inputs {
		if i == show {
			fmt.Fprintf(&b, "\n  ... and %d more", len(inputs)-show)
			break
		}
		desc := in.String()
		if s != nil {
			if f, l, ok := s.Seen(in); ok {
				desc = fmt.Sprintf("%s @%v to @%v (samples read)", in.Display, f, l)
			}
		}
		fmt.Fprintf(&b, "\n  %s", desc)
	}
	return errors.New(b.String())
}

// sliceMeta is the metadata line that starts --keep-time output: the
// facts of the capture (its first and last sample stay those of the
// capture, so relative times keep their meaning when slices are chained)
// and the slice.
func sliceMeta(used []*Input, w *Window, c *Clock) folded.Meta {
	var m folded.Meta
	var names []string
	for _, in := range used {
		for _, f := range in.Merged.Fields {
			switch f.Key {
			case folded.KeySamples, folded.KeySource, folded.KeyFirst, folded.KeyLast:
			default:
				m.Set(f.Key, f.Value)
			}
		}
		names = append(names, in.Display)
	}
	if c.HasOrigin {
		m.Set(folded.KeyFirst, c.Origin.String())
	}
	var last folded.Time
	hasLast := false
	for _, in := range used {
		if _, l, _, ok := in.Span(); ok && (!hasLast || l > last) {
			last, hasLast = l, true
		}
	}
	if hasLast {
		m.Set(folded.KeyLast, last.String())
	}
	m.Set(folded.KeySource, strings.Join(names, " "))
	if w != nil {
		if w.HasFrom {
			m.Set(KeySliceFrom, w.From.String())
		}
		if w.HasTo {
			m.Set(KeySliceTo, w.To.String())
		}
	}
	return m
}

func (c *Command) heatInfo(used []*Input, w *Window, clock *Clock) heatmap.Info {
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
		info.Notes = append(info.Notes, describeWindow(w, clock)[0])
	}
	if len(clock.Refs) > 0 {
		ref := clock.refForPerf(clock.Origin)
		info.Wall = ref.ToWall
		info.WallEstimated = !ref.Exact
	}
	return info
}

// summary prints the sample counts and what was skipped on stderr.
func (c *Command) summary(env *cli.Env, s *Slicer, w *Window, used []*Input, total int) {
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
