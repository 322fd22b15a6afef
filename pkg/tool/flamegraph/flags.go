package flamegraph

import (
	"regexp"
	"strconv"
	"strings"

	"flamekit/pkg/folded"
	"flamekit/pkg/svg"
	"flamekit/pkg/tool"
)

// Flags are the flamegraph command line: flamegraph.pl's options with its
// names and defaults (a command embeds them; their tags are its flags and
// Defaults gives kong the defaults). Config checks them and turns them
// into a Config.
type Flags struct {
	Title      string  `name:"title" help:"Title text (default \"Flame Graph\"; \"Icicle Graph\" with --inverted, \"Flame Chart\" with --flamechart)."`
	Subtitle   string  `name:"subtitle" help:"Second line of the title."`
	Width      int     `name:"width" default:"${width}" help:"Width of the image in pixels."`
	Height     int     `name:"height" default:"${height}" help:"Height of each frame in pixels."`
	MinWidth   string  `name:"minwidth" default:"${minwidth}" help:"Omit frames narrower than this many pixels; with a trailing %, narrower than this percentage of the total."`
	FontType   string  `name:"fonttype" default:"${fonttype}" help:"Font family."`
	FontSize   float64 `name:"fontsize" default:"${fontsize}" help:"Font size in pixels."`
	FontWidth  float64 `name:"fontwidth" default:"${fontwidth}" help:"Average character width, as a fraction of the font size (fits labels)."`
	CountName  string  `name:"countname" default:"${countname}" help:"Unit of the counts, shown in tooltips."`
	NameType   string  `name:"nametype" default:"${nametype}" help:"Word shown before the frame name on hover."`
	Colors     string  `name:"colors" default:"${colors}" help:"Palette: hot mem io wakeup chain java js perl red green blue aqua yellow purple orange (any case)."`
	BgColors   string  `name:"bgcolors" help:"Background: yellow blue green grey or #rrggbb (default by palette)."`
	Hash       bool    `name:"hash" help:"Colour by a hash of the name (similar names get similar colours)."`
	Random     bool    `name:"random" help:"Colour at random."`
	CP         bool    `name:"cp" help:"Consistent palette: reuse and update the colours in ./palette.map."`
	Reverse    bool    `name:"reverse" help:"Reverse the frames of every stack (merged from the leaves)."`
	Inverted   bool    `name:"inverted" help:"Icicle graph: root at the top."`
	Flamechart bool    `name:"flamechart" help:"Flame chart: keep the input order instead of merging by name (timed input: a lane per thread, each sample at its own time)."`
	Negate     bool    `name:"negate" help:"Differential input: swap the colours and signs of changes."`
	Notes      string  `name:"notes" help:"Text for a NOTES comment in the SVG."`
	Total      string  `name:"total" help:"Scale the graph to this total instead of the sum of the counts (if larger)."`
	Factor     float64 `name:"factor" default:"${factor}" help:"Multiply the counts shown in tooltips by this."`
	Encoding   string  `name:"encoding" help:"Encoding named in the XML declaration."`
	NameAttr   string  `name:"nameattr" type:"path" help:"File of per-function SVG attributes: name, TAB, key=value pairs separated by TABs."`

	Files []string `arg:"" optional:"" name:"file" help:"Folded input files (default: standard input; \"-\" is standard input)."`
}

// Defaults gives kong flamegraph.pl's defaults, from the one place they
// are written: svg.DefaultOptions.
func (c *Flags) Defaults() map[string]string {
	d := svg.DefaultOptions()
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	return map[string]string{
		"width": strconv.Itoa(d.Width), "height": strconv.Itoa(d.FrameHeight),
		"minwidth": f(d.MinWidth), "fonttype": d.FontType, "fontsize": f(d.FontSize),
		"fontwidth": f(d.FontWidth), "countname": d.CountName, "nametype": d.NameType,
		"colors": d.Colors, "factor": f(d.Factor),
	}
}

var (
	minWidthRE = regexp.MustCompile(`^[0-9.]+%?$`)
	encodingRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9._-]*$`)
)

// options turns the command line into drawing options, or a usage error.
func (c *Flags) options() (*svg.Options, error) {
	o := svg.DefaultOptions()
	o.Title, o.Subtitle = c.Title, c.Subtitle
	if c.Width <= 0 || c.Height <= 0 {
		return nil, tool.Usagef("--width and --height must be positive")
	}
	o.Width, o.FrameHeight = c.Width, c.Height
	if !minWidthRE.MatchString(c.MinWidth) {
		return nil, tool.Usagef("Value '%s' is invalid for minwidth, expected a float.", c.MinWidth)
	}
	mw := strings.TrimSuffix(c.MinWidth, "%")
	o.MinWidthPct = mw != c.MinWidth
	v, err := strconv.ParseFloat(strings.TrimSuffix(mw, "."), 64)
	if err != nil {
		return nil, tool.Usagef("Value '%s' is invalid for minwidth, expected a float.", c.MinWidth)
	}
	o.MinWidth = v
	if c.FontSize <= 0 || c.FontWidth <= 0 {
		return nil, tool.Usagef("--fontsize and --fontwidth must be positive")
	}
	o.FontType, o.FontSize, o.FontWidth = c.FontType, c.FontSize, c.FontWidth
	o.CountName, o.NameType = c.CountName, c.NameType
	colors, ok := svg.PaletteName(c.Colors)
	if !ok {
		return nil, tool.Usagef("unknown palette %q for --colors: want one of %s", c.Colors, strings.Join(svg.Palettes, " "))
	}
	o.Colors = colors
	if _, _, ok := svg.Background(c.BgColors, colors); !ok {
		return nil, tool.Usagef("Unrecognized bgcolor option %q (want yellow, blue, green, grey or #rrggbb)", c.BgColors)
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
		if !ok && folded.CountSyntax([]byte(c.Total)) {
			return nil, tool.Usagef("--total: %v", folded.NewCountError([]byte(c.Total)))
		}
		if !ok {
			return nil, tool.Usagef("--total %q is not a number", c.Total)
		}
		o.Total = t
	}
	o.Factor = c.Factor
	if c.Encoding != "" && !encodingRE.MatchString(c.Encoding) {
		return nil, tool.Usagef("--encoding %q is not an encoding name", c.Encoding)
	}
	o.Encoding = c.Encoding
	return &o, nil
}

// Config checks the flags and returns the Config they give, or a
// *tool.UsageError.
func (c *Flags) Config() (Config, error) {
	o, err := c.options()
	if err != nil {
		return Config{}, err
	}
	return Config{Options: *o, NameAttr: c.NameAttr, CP: c.CP, Reverse: c.Reverse, Files: c.Files}, nil
}
