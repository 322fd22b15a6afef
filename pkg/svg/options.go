package svg

// Attr is one extra SVG attribute from a --nameattr file.
type Attr struct{ Name, Value string }

// Attrs are the per-function attributes of a --nameattr file.
type Attrs struct {
	Title  string // replaces the tooltip
	ID     string
	Class  string
	Href   string // wraps the frame in a link
	Target string // link target, "_top" when empty
	GExtra []Attr // more attributes of the frame element
	AExtra []Attr // more attributes of the link
}

// Options are flamegraph.pl's drawing options. DefaultOptions returns
// flamegraph.pl's defaults.
type Options struct {
	Title       string  // "" = "Flame Graph", "Icicle Graph" or "Flame Chart"
	Subtitle    string  // second heading, none when empty
	Width       int     // image width in pixels
	FrameHeight int     // --height: frame height in pixels
	MinWidth    float64 // prune frames narrower than this (pixels, or percent)
	MinWidthPct bool    // MinWidth is a percentage of the total
	FontType    string
	FontSize    float64
	FontWidth   float64 // average glyph width as a fraction of FontSize
	CountName   string  // "samples"
	NameType    string  // "Function:"
	Colors      string  // palette, "hot"
	BgColors    string  // "" = by palette
	ColorMode   ColorMode
	// Palette, if not nil, is the --cp consistent palette (name → colour);
	// colours chosen for new names are added to it.
	Palette    map[string]RGB
	Inverted   bool
	Flamechart bool // only changes the default title
	Negate     bool // swap the sign of differential changes
	Notes      string
	Total      float64 // --total: scale to this total if larger than the real one; 0 = none
	Factor     float64 // multiply the counts shown in tooltips
	Encoding   string  // encoding="..." of the XML declaration, none when empty
	NameAttr   map[string]*Attrs
	// MaxStatic is the number of frames above which only the frames at
	// least 1 pixel wide are written as SVG elements (the picture without
	// script); the script draws the narrower ones of a zoomed frame from
	// the frame data it always carries. 0 means DefaultMaxStatic. Graphs
	// with --nameattr attributes are always fully written.
	MaxStatic int
}

// DefaultMaxStatic is the default Options.MaxStatic: up to 10,000 frames,
// every frame is an element, as flamegraph.pl writes it.
const DefaultMaxStatic = 10000

// DefaultOptions returns the defaults of flamegraph.pl.
func DefaultOptions() Options {
	return Options{
		Width: 1200, FrameHeight: 16, MinWidth: 0.1, FontType: "Verdana",
		FontSize: 12, FontWidth: 0.59, CountName: "samples", NameType: "Function:",
		Colors: "hot", Factor: 1,
	}
}

// Title returns the title to draw: o.Title or the default for the mode.
func (o *Options) title() string {
	switch {
	case o.Title != "":
		return o.Title
	case o.Flamechart:
		return "Flame Chart"
	case o.Inverted:
		return "Icicle Graph"
	}
	return "Flame Graph"
}

// MinTime returns the --minwidth threshold in count units for a graph
// whose total is timemax.
func (o *Options) minTime(timemax, wpt float64) float64 {
	if o.MinWidthPct {
		return timemax * o.MinWidth / 100
	}
	return o.MinWidth / wpt
}

// MinCount returns the width, in count units, under which Render drops a
// frame of a graph whose counts sum to total (--minwidth), made a little
// smaller so that it can prune a layout before its total is summed in
// another order: frames narrower than it will not be drawn.
func (o *Options) MinCount(total float64) float64 {
	timemax := o.TimeMax(total)
	if timemax <= 0 {
		return 0
	}
	wpt := (float64(o.Width) - 2*xpad) / timemax
	return o.minTime(timemax, wpt) * (1 - 1e-9)
}

// TimeMax returns the total the graph is scaled to: the --total if it is
// at least the real total, else the real total.
func (o *Options) TimeMax(total float64) float64 {
	if o.Total > total {
		return o.Total
	}
	return total
}
