// Package flamegraph is the flamegraph command: folded stacks in, an
// interactive SVG out, with flamegraph.pl's options. The drawing itself is
// in pkg/svg; this package reads the inputs and the option files.
package flamegraph

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"flamekit/internal/cli"
	"flamekit/pkg/folded"
	"flamekit/pkg/svg"
)

// Description is the first paragraph of --help.
const Description = `Draw an interactive flame graph (SVG) from folded stacks, as flamegraph.pl does.

Reads classic ("stack count"), differential ("stack before after") and timed
("stack count @seconds") folded lines from the files named, or standard input
("-"); gzipped input is read transparently. Options have flamegraph.pl's names,
defaults and meanings (-width, --wid and --WIDTH all work).

Examples:
  perf script | stackcollapse | flamegraph > cpu.svg
  flamegraph --title "CPU, web01" --minwidth 0.5% out.folded > cpu.svg
  grep -v cpu_idle out.folded | flamegraph --colors java > java.svg
  difffolded before.folded after.folded | flamegraph > diff.svg
  flamegraph --flamechart timed.folded.gz > chart.svg   (timed input: time order)
  flamegraph --inverted --reverse out.folded > icicle.svg

In the SVG: hover for details, click to zoom, Ctrl-F or F3 to search with a
regular expression, Ctrl-I to toggle case; zoom and search are kept in the URL.`

// Cmd is the kong grammar of the flamegraph command.
type Cmd struct {
	Title      string  `name:"title" help:"Title text (default \"Flame Graph\"; \"Icicle Graph\" with --inverted, \"Flame Chart\" with --flamechart)."`
	Subtitle   string  `name:"subtitle" help:"Second line of the title."`
	Width      int     `name:"width" default:"1200" help:"Width of the image in pixels."`
	Height     int     `name:"height" default:"16" help:"Height of each frame in pixels."`
	MinWidth   string  `name:"minwidth" default:"0.1" help:"Omit frames narrower than this many pixels; with a trailing %, narrower than this percentage of the total."`
	FontType   string  `name:"fonttype" default:"Verdana" help:"Font family."`
	FontSize   float64 `name:"fontsize" default:"12" help:"Font size in pixels."`
	FontWidth  float64 `name:"fontwidth" default:"0.59" help:"Average character width, as a fraction of the font size (fits labels)."`
	CountName  string  `name:"countname" default:"samples" help:"Unit of the counts, shown in tooltips."`
	NameType   string  `name:"nametype" default:"Function:" help:"Word shown before the frame name on hover."`
	Colors     string  `name:"colors" default:"hot" help:"Palette: hot mem io wakeup chain java js perl red green blue aqua yellow purple orange."`
	BgColors   string  `name:"bgcolors" help:"Background: yellow blue green grey or #rrggbb (default by palette)."`
	Hash       bool    `name:"hash" help:"Colour by a hash of the name (similar names get similar colours)."`
	Random     bool    `name:"random" help:"Colour at random."`
	CP         bool    `name:"cp" help:"Consistent palette: reuse and update the colours in ./palette.map."`
	Reverse    bool    `name:"reverse" help:"Reverse the frames of every stack (merged from the leaves)."`
	Inverted   bool    `name:"inverted" help:"Icicle graph: root at the top."`
	Flamechart bool    `name:"flamechart" help:"Flame chart: keep the input order (timed input: time order) instead of merging by name."`
	Negate     bool    `name:"negate" help:"Differential input: swap the colours and signs of changes."`
	Notes      string  `name:"notes" help:"Text for a NOTES comment in the SVG."`
	Total      string  `name:"total" help:"Scale the graph to this total instead of the sum of the counts (if larger)."`
	Factor     float64 `name:"factor" default:"1" help:"Multiply the counts shown in tooltips by this."`
	Encoding   string  `name:"encoding" help:"Encoding named in the XML declaration."`
	NameAttr   string  `name:"nameattr" type:"path" help:"File of per-function SVG attributes: name, TAB, key=value pairs separated by TABs."`

	Files   []string        `arg:"" optional:"" name:"file" help:"Folded input files (default: standard input; \"-\" is standard input)."`
	Version cli.VersionFlag `name:"version" help:"Print the version and exit."`
}

// PaletteFile is where --cp keeps its colours, in the current directory.
const PaletteFile = "palette.map"

var (
	minWidthRE = regexp.MustCompile(`^[0-9.]+%?$`)
	encodingRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9._-]*$`)
)

// Options turns the command line into drawing options, or a usage error.
func (c *Cmd) Options() (*svg.Options, error) {
	o := svg.DefaultOptions()
	o.Title, o.Subtitle = c.Title, c.Subtitle
	if c.Width <= 0 || c.Height <= 0 {
		return nil, cli.Usagef("--width and --height must be positive")
	}
	o.Width, o.FrameHeight = c.Width, c.Height
	if !minWidthRE.MatchString(c.MinWidth) {
		return nil, cli.Usagef("Value '%s' is invalid for minwidth, expected a float.", c.MinWidth)
	}
	mw := strings.TrimSuffix(c.MinWidth, "%")
	o.MinWidthPct = mw != c.MinWidth
	v, err := strconv.ParseFloat(strings.TrimSuffix(mw, "."), 64)
	if err != nil {
		return nil, cli.Usagef("Value '%s' is invalid for minwidth, expected a float.", c.MinWidth)
	}
	o.MinWidth = v
	if c.FontSize <= 0 || c.FontWidth <= 0 {
		return nil, cli.Usagef("--fontsize and --fontwidth must be positive")
	}
	o.FontType, o.FontSize, o.FontWidth = c.FontType, c.FontSize, c.FontWidth
	o.CountName, o.NameType = c.CountName, c.NameType
	o.Colors = c.Colors
	if _, _, ok := svg.Background(c.BgColors, c.Colors); !ok {
		return nil, cli.Usagef("Unrecognized bgcolor option %q (want yellow, blue, green, grey or #rrggbb)", c.BgColors)
	}
	o.BgColors = c.BgColors
	switch {
	case c.Hash:
		o.ColorMode = svg.ColorHash
	case c.Random:
		o.ColorMode = svg.ColorRandom
	}
	o.Inverted, o.Flamechart, o.Negate = c.Inverted, c.Flamechart, c.Negate
	o.Notes = c.Notes
	if c.Total != "" {
		t, ok := folded.ParseCount([]byte(c.Total))
		if !ok {
			return nil, cli.Usagef("--total %q is not a number", c.Total)
		}
		o.Total = t
	}
	o.Factor = c.Factor
	if c.Encoding != "" && !encodingRE.MatchString(c.Encoding) {
		return nil, cli.Usagef("--encoding %q is not an encoding name", c.Encoding)
	}
	o.Encoding = c.Encoding
	return &o, nil
}

// Run reads the input and writes the SVG.
func (c *Cmd) Run(env *cli.Env) error {
	o, err := c.Options()
	if err != nil {
		return err
	}
	if c.NameAttr != "" {
		if o.NameAttr, err = ReadNameAttr(c.NameAttr, env); err != nil {
			return err
		}
	}
	if c.CP {
		if o.Palette, err = ReadPalette(PaletteFile); err != nil {
			return err
		}
	}
	rw := svg.Rewrite{Reverse: c.Reverse, Chain: c.Colors == "chain"}
	in, err := Read(c.Files, c.Flamechart, rw, o)
	if err != nil {
		return err
	}
	l := in.Layout
	if l.Total == 0 {
		fmt.Fprintln(env.Stderr, "ERROR: No stack counts found")
		warnSkips(env, in.Skips)
		if err := svg.RenderEmpty(env.Stdout, o); err != nil {
			return err
		}
		return &cli.ExitError{Code: cli.ExitUsage}
	}
	if o.Total > 0 && o.Total < l.Total {
		if o.Total/l.Total > 0.02 {
			fmt.Fprintf(env.Stderr, "Specified --total %s is less than actual total %s, so ignored\n",
				folded.FormatCount(o.Total), folded.FormatCount(l.Total))
		}
		o.Total = 0
	}
	if c.CountName == "samples" && l.Total < 100 {
		fmt.Fprintf(env.Stderr, "Stack count is low (%s). Did something go wrong?\n", folded.FormatCount(l.Total))
	}
	warnSkips(env, in.Skips)
	if err := svg.Render(env.Stdout, l, o); err != nil {
		return err
	}
	if c.CP {
		if err := WritePalette(PaletteFile, o.Palette); err != nil {
			env.Warnf("could not update %s: %v", PaletteFile, err)
		}
	}
	return nil
}

func warnSkips(env *cli.Env, s folded.Skips) {
	if s.Count > 0 {
		fmt.Fprintf(env.Stderr, "Ignored %d lines with invalid format (first: %v)\n", s.Count, s.First)
	}
}

// Input is what Read gathered.
type Input struct {
	Layout *svg.Layout
	Skips  folded.Skips // malformed lines passed over (metadata lines are not counted)
	Timed  bool         // the flame chart was ordered by time
}

// Read reads folded files (lenient: malformed lines are counted, not
// fatal) and lays them out. Without flamechart, stacks are summed and
// merged frame by frame (timed lines lose their time). With flamechart,
// lines keep the input order and each is merged with the line before it,
// as flamegraph.pl does; but when every line is timed, the samples are
// ordered by time first (stable), so the x axis is time order. With o
// not nil, frames that o's --minwidth would drop are dropped during the
// layout already.
func Read(names []string, flamechart bool, rw svg.Rewrite, o *svg.Options) (*Input, error) {
	fs := folded.NewFiles(names, true)
	in := &Input{}
	if !flamechart {
		set := readStacks(fs, inputSize(names))
		if err := fs.Err(); err != nil {
			return nil, err
		}
		in.Skips = fs.Skips()
		var minCount float64
		if o != nil {
			minCount = o.MinCount(set.total)
		}
		in.Layout = svg.LayoutEntries(set.entries, rw, minCount, set.inOrder)
		return in, nil
	}

	// flame chart: keep every line; intern the stacks
	type line struct {
		stack         int32
		count, before float64
		time          folded.Time
		kind          folded.Kind
	}
	index := map[string]int32{}
	var stacks []string
	var lines []line
	allTimed := true
	for fs.Next() {
		rec := fs.Record()
		id, ok := index[string(rec.Stack)]
		if !ok {
			key := string(rec.Stack) // one copy: also the stack when rw changes nothing
			id = int32(len(stacks))
			stacks = append(stacks, rw.Apply(key))
			index[key] = id
		}
		lines = append(lines, line{id, rec.Count, rec.Before, rec.Time, rec.Kind})
		if rec.Kind != folded.Timed {
			allTimed = false
		}
	}
	if err := fs.Err(); err != nil {
		return nil, err
	}
	in.Skips = fs.Skips()
	if allTimed && len(lines) > 0 {
		slices.SortStableFunc(lines, func(a, b line) int {
			switch {
			case a.time < b.time:
				return -1
			case a.time > b.time:
				return 1
			}
			return 0
		})
		in.Timed = true
	}
	b := svg.NewBuilder()
	if o != nil {
		var total float64
		for _, ln := range lines {
			total += ln.count
		}
		b.Prune(o.MinCount(total))
	}
	for _, ln := range lines {
		b.Add(stacks[ln.stack], ln.count, ln.before, ln.kind == folded.Diff)
	}
	in.Layout = b.Layout()
	return in, nil
}

// inputSize returns the size of the named regular files (0 if there is
// standard input among them). Gzipped files count their compressed size:
// it is only a hint.
func inputSize(names []string) int64 {
	var n int64
	for _, name := range names {
		st, err := os.Stat(name)
		if name == "-" || err != nil || !st.Mode().IsRegular() {
			return 0
		}
		n += st.Size()
	}
	return n
}

// ReadPalette reads a --cp palette file ("name->rgb(r,g,b)" lines). A
// missing file is an empty palette.
func ReadPalette(path string) (map[string]svg.RGB, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return map[string]svg.RGB{}, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	m, err := ParsePalette(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// ParsePalette parses palette lines "name->rgb(r,g,b)"; lines of another
// form are ignored, as flamegraph.pl ignores them.
func ParsePalette(r io.Reader) (map[string]svg.RGB, error) {
	m := map[string]svg.RGB{}
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		name, col, ok := strings.Cut(sc.Text(), "->")
		if !ok {
			continue
		}
		if c, ok := svg.ParseRGB(col); ok {
			m[name] = c
		}
	}
	return m, sc.Err()
}

// WritePalette writes a --cp palette file, sorted by name.
func WritePalette(path string, m map[string]svg.RGB) error {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	slices.Sort(names)
	var b []byte
	for _, n := range names {
		b = append(b, n...)
		b = append(b, "->"...)
		b = m[n].Append(b)
		b = append(b, '\n')
	}
	return os.WriteFile(path, b, 0o644)
}

// ReadNameAttr reads a --nameattr file: each line is a function name, a
// TAB, then TAB-separated key=value pairs (title, id, class, href, target,
// g_extra, a_extra). Extra attributes are parsed as name="value" pairs;
// event handlers (on...) and script links are dropped with a warning, so
// the SVG never runs code from the file.
func ReadNameAttr(path string, env *cli.Env) (map[string]*svg.Attrs, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ParseNameAttr(f, path, func(msg string) { env.Warnf("%s", msg) })
}

// ParseNameAttr parses --nameattr lines read from r; name is the file name
// for messages, and warn receives what was dropped.
func ParseNameAttr(r io.Reader, name string, warn func(string)) (map[string]*svg.Attrs, error) {
	m := map[string]*svg.Attrs{}
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<24)
	for ln := 1; sc.Scan(); ln++ {
		line := strings.TrimSuffix(sc.Text(), "\r")
		fn, rest, ok := strings.Cut(line, "\t")
		if !ok {
			return nil, &cli.ExitError{Code: cli.ExitFailure,
				Err: fmt.Errorf("%s:%d: invalid format: want name<TAB>key=value[<TAB>key=value...]", name, ln)}
		}
		a := m[fn]
		if a == nil {
			a = &svg.Attrs{}
			m[fn] = a
		}
		for _, kv := range strings.Split(rest, "\t") {
			k, v, _ := strings.Cut(kv, "=")
			switch k {
			case "title":
				a.Title = v
			case "id":
				a.ID = v
			case "class":
				a.Class = v
			case "href":
				if !svg.SafeHref(v) {
					warn(fmt.Sprintf("%s:%d: dropped href %q: links that run code are not written", name, ln, v))
					continue
				}
				a.Href = v
			case "target":
				a.Target = v
			case "g_extra", "a_extra":
				attrs := parseExtra(v, func(msg string) { warn(fmt.Sprintf("%s:%d: %s", name, ln, msg)) })
				if k == "g_extra" {
					a.GExtra = append(a.GExtra, attrs...)
				} else {
					a.AExtra = append(a.AExtra, attrs...)
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return m, nil
}

var extraRE = regexp.MustCompile(`([^\s=]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|(\S+))`)

// parseExtra parses raw extra attributes (name="value" ...) into safe ones.
func parseExtra(s string, warn func(string)) []svg.Attr {
	var out []svg.Attr
	for _, m := range extraRE.FindAllStringSubmatch(s, -1) {
		name, value := m[1], m[2]+m[3]+m[4]
		if !svg.SafeAttrName(name) || strings.EqualFold(name, "xlink:href") || strings.EqualFold(name, "href") {
			warn(fmt.Sprintf("dropped attribute %q: event handlers and links are not written as extras", name))
			continue
		}
		out = append(out, svg.Attr{Name: name, Value: value})
	}
	return out
}
