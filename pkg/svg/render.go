package svg

import (
	_ "embed"
	"io"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"flamekit/internal/base/xmlesc"
	"flamekit/pkg/view/flamegraph"
)

//go:embed flamegraph.js
var script string

// css is the SVG's style sheet, with {{font-family}}, {{font-size}} and
// {{title-size}} standing for the options' values.
//
//go:embed flamegraph.css
var css string

// appendCSS appends the style sheet with the options' font.
func appendCSS(dst []byte, o *Options) []byte {
	rest := css
	for {
		i := strings.Index(rest, "{{")
		if i < 0 {
			return append(dst, rest...)
		}
		dst = append(dst, rest[:i]...)
		rest = rest[i+2:]
		j := strings.Index(rest, "}}")
		switch rest[:j] {
		case "font-family":
			dst = appendCSSString(dst, o.FontType)
		case "font-size":
			dst = appendNum(dst, o.FontSize)
		case "title-size":
			dst = appendNum(dst, o.FontSize+5)
		}
		rest = rest[j+2:]
	}
}

// Script returns the embedded JavaScript of the interactive SVG.
func Script() string { return script }

const (
	xpad     = 10
	framepad = 1
)

// geometry is the derived layout constants of one drawing.
type geometry struct {
	o                   *Options
	width, height       float64
	ypad1, ypad2, ypad3 float64
	axis                float64 // height of the time axis (in ypad2), 0 for none
	timemax, wpt        float64
	depthmax            int32
}

// stripAnnotation removes one trailing _[k], _[w], _[i] or _[j] from a name.
func stripAnnotation(name string) string {
	if n := len(name); n >= 4 && name[n-4] == '_' && name[n-3] == '[' && name[n-1] == ']' {
		switch name[n-2] {
		case 'k', 'w', 'i', 'j':
			return name[:n-4]
		}
	}
	return name
}

func (g *geometry) header(dst []byte) []byte {
	o := g.o
	dst = append(dst, `<?xml version="1.0"`...)
	if o.Encoding != "" {
		dst = append(dst, ` encoding="`...)
		dst = xmlesc.AppendAttr(dst, o.Encoding)
		dst = append(dst, '"')
	}
	dst = append(dst, ` standalone="no"?>
<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">
<svg version="1.1" width="`...)
	dst = appendNum(dst, g.width)
	dst = append(dst, `" height="`...)
	dst = appendNum(dst, g.height)
	dst = append(dst, `" onload="init(evt)" viewBox="0 0 `...)
	dst = appendNum(dst, g.width)
	dst = append(dst, ' ')
	dst = appendNum(dst, g.height)
	dst = append(dst, `" xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink">
<!-- Flame graph stack visualization. See https://github.com/brendangregg/FlameGraph for latest version, and http://www.brendangregg.com/flamegraphs.html for examples. Drawn by flamekit. -->
<!-- NOTES: `...)
	dst = appendComment(dst, o.Notes)
	return append(dst, " -->\n"...)
}

// RenderEmpty writes the small SVG flamegraph.pl draws when there is no
// input: a message instead of a graph.
func RenderEmpty(w io.Writer, o *Options) error {
	g := &geometry{o: o, width: float64(o.Width), height: o.FontSize * 5}
	dst := g.header(nil)
	dst = append(dst, `<text x="`...)
	dst = appendF(dst, float64(o.Width/2), 2)
	dst = append(dst, `" y="`...)
	dst = appendNum(dst, o.FontSize*2)
	dst = append(dst, "\">ERROR: No valid input provided to flamegraph.</text>\n</svg>\n"...)
	_, err := w.Write(dst)
	return err
}

// Render writes the interactive SVG of layout l (made by pkg/view/flamegraph),
// drawn with o: frames narrower than o's --minwidth left out, the others
// scaled to o.Width, stacked up from the bottom (or down from the top
// when o.Inverted), coloured by o's palette, labelled and given tooltips.
func Render(w io.Writer, l *flamegraph.Layout, o *Options) error {
	if len(l.Nodes) == 0 {
		return RenderEmpty(w, o)
	}
	g := &geometry{o: o, width: float64(o.Width)}
	fs := o.FontSize
	g.ypad1 = fs * 3
	g.ypad2 = fs*2 + 10
	if l.Timed {
		g.axis = float64(o.FrameHeight)
		g.ypad2 += g.axis
	}
	if o.Subtitle != "" {
		g.ypad3 = fs * 2
	}
	g.timemax = o.TimeMax(l.Total)
	g.wpt = (g.width - 2*xpad) / g.timemax
	minTime := o.minTime(g.timemax, g.wpt)

	// frames kept (pruning whole subtrees: children are never wider)
	kept, depthmax := l.Kept(minTime)
	g.depthmax = depthmax
	fh := float64(o.FrameHeight)
	g.height = float64(g.depthmax+1)*fh + g.ypad1 + g.ypad2 + g.ypad3

	colors := g.colors(l, kept)

	// frames written as elements: all of them, or for a big graph those
	// at least 1 px wide (a subtree-closed set: children are narrower)
	maxStatic := o.MaxStatic
	if maxStatic <= 0 {
		maxStatic = DefaultMaxStatic
	}
	isStatic := make([]bool, len(kept))
	static, staticColors := kept, colors
	if len(kept) > maxStatic && o.NameAttr == nil {
		static = make([]int32, 0, 8192)
		staticColors = make([]RGB, 0, 8192)
		for k, i := range kept {
			n := &l.Nodes[i]
			end := n.End
			if n.Depth == 0 {
				end = g.timemax
			}
			if (end-n.Start)*g.wpt >= 1 {
				isStatic[k] = true
				static = append(static, i)
				staticColors = append(staticColors, colors[k])
			}
		}
	} else {
		for k := range isStatic {
			isStatic[k] = true
		}
	}

	// frames, then labels, formatted in up to GOMAXPROCS parts (at most 8)
	// by other goroutines, while this one writes
	// the frame data of the script
	parts := runtime.GOMAXPROCS(0)
	if parts > 8 {
		parts = 8
	}
	if len(static) < 4096 {
		parts = 1
	}
	frames := make([][]byte, parts)
	labels := make([][]byte, parts)
	var wg sync.WaitGroup
	for p := 0; p < parts; p++ {
		lo, hi := len(static)*p/parts, len(static)*(p+1)/parts
		wg.Add(1)
		go func() {
			defer wg.Done()
			frames[p], labels[p] = g.frames(l, static[lo:hi], staticColors[lo:hi], lo)
		}()
	}
	head := g.head(nil, g.frameData(l, kept, colors, isStatic))
	wg.Wait()
	if _, err := w.Write(head); err != nil {
		return err
	}
	if _, err := io.WriteString(w, "<g id=\"frames\">\n"); err != nil {
		return err
	}
	for _, b := range frames {
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	// the last chunk of frames, #frames
	closing := "</g>\n</g>\n<g id=\"labels\">\n"
	if len(static) == 0 { // no chunk opened
		closing = closing[len("</g>\n"):]
	}
	if _, err := io.WriteString(w, closing); err != nil {
		return err
	}
	for _, b := range labels {
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	if _, err := io.WriteString(w, "</g>\n"); err != nil {
		return err
	}
	var tail []byte
	if g.axis > 0 {
		tail = g.timeAxis(tail)
	}
	_, err := w.Write(append(tail, "</svg>\n"...))
	return err
}

// timeAxis appends the time axis of a timed flame chart, the twin of the
// explorer's (pkg/view/explorer, chart.js's chartAxis; svgout.js writes
// this one): a band under the frames (under the root row, or under the
// deepest frames of an icicle) with a tick every 1, 2 or 5 × 10^k ns,
// about every 100 px, each labelled in seconds after the chart's first
// sample, after its tick, or before it where it would pass the right
// end, and left out where it would overlap the one before (labels are
// measured as the frames' labels are, FontWidth a character). The script
// does not move the axis: it is hidden while a frame is zoomed.
func (g *geometry) timeAxis(dst []byte) []byte {
	o := g.o
	top := g.height - g.ypad2
	bottom := top + g.axis
	span := g.width - 2*xpad
	want := g.timemax / max(span/100, 1)
	step, exp := 1.0, 0
	for step*10 <= want {
		step *= 10
		exp++
	}
	if step*5 <= want {
		step *= 5
	} else if step*2 <= want {
		step *= 2
	}
	digits := min(max(9-exp, 0), 9)
	charW := o.FontSize * o.FontWidth
	dst = append(dst, "<g id=\"axis\">\n<style type=\"text/css\">#unzoom:not(.hide) ~ #axis { display:none; }</style>\n"...)
	var label []byte
	end := float64(xpad)
	for i := 0; ; i++ {
		t := float64(i) * step
		if t > g.timemax {
			break
		}
		x := xpad + t*g.wpt
		dst = append(dst, `<line x1="`...)
		dst = appendF(dst, x, 1)
		dst = append(dst, `" y1="`...)
		dst = appendNum(dst, top)
		dst = append(dst, `" x2="`...)
		dst = appendF(dst, x, 1)
		dst = append(dst, `" y2="`...)
		dst = appendNum(dst, bottom)
		dst = append(dst, "\" stroke=\"rgb(102,102,102)\"/>\n"...)
		label = appendF(label[:0], t/1e9, digits)
		label = append(label, " s"...)
		w := float64(len(label)) * charW
		lx := x + 3
		if lx+w > g.width-xpad {
			lx = x - 3 - w
		}
		if lx < end {
			continue
		}
		dst = append(dst, `<text x="`...)
		dst = appendF(dst, lx, 2)
		dst = append(dst, `" y="`...)
		dst = appendNum(dst, 3+(top+bottom)/2)
		dst = append(dst, `">`...)
		dst = append(dst, label...)
		dst = append(dst, "</text>\n"...)
		end = lx + w + 6
	}
	return append(dst, "</g>\n"...)
}

// colors picks the colour of every kept frame (sequentially: --cp and
// --random are stateful).
func (g *geometry) colors(l *flamegraph.Layout, kept []int32) []RGB {
	o := g.o
	c := &Colorer{Palette: o.Colors, Mode: o.ColorMode, Map: o.Palette}
	out := make([]RGB, len(kept))
	for k, i := range kept {
		n := &l.Nodes[i]
		switch {
		case n.Name == "--" && n.Depth > 0:
			out[k] = vdgrey
		case n.Name == "-" && n.Depth > 0:
			out[k] = dgrey
		case n.HasDelta:
			d := n.Delta
			if o.Negate {
				d = -d
			}
			out[k] = DiffColor(d, l.MaxDelta)
		default:
			out[k] = c.Color(n.Name)
		}
	}
	return out
}

func (g *geometry) head(dst, data []byte) []byte {
	o := g.o
	fs := o.FontSize
	top, bottom, _ := Background(o.BgColors, o.Colors)
	dst = g.header(dst)
	dst = append(dst, "<defs>\n\t<linearGradient id=\"background\" y1=\"0\" y2=\"1\" x1=\"0\" x2=\"0\" >\n\t\t<stop stop-color=\""...)
	dst = xmlesc.AppendAttr(dst, top)
	dst = append(dst, "\" offset=\"5%\" />\n\t\t<stop stop-color=\""...)
	dst = xmlesc.AppendAttr(dst, bottom)
	dst = append(dst, "\" offset=\"95%\" />\n\t</linearGradient>\n</defs>\n<style type=\"text/css\">\n"...)
	dst = appendCSS(dst, o)
	dst = append(dst, `</style>
<script type="text/ecmascript">
<![CDATA[

var fgConfig = {nametype: `...)
	dst = appendJSString(dst, o.NameType)
	dst = append(dst, ", fontsize: "...)
	dst = appendNum(dst, fs)
	dst = append(dst, ", fontwidth: "...)
	dst = appendNum(dst, o.FontWidth)
	dst = append(dst, ", xpad: "...)
	dst = appendNum(dst, xpad)
	dst = append(dst, ", inverted: "...)
	dst = strconv.AppendBool(dst, o.Inverted)
	dst = append(dst, ", highlight: \""...)
	dst = Highlight.Append(dst)
	dst = append(dst, "\""...)
	dst = append(dst, data...)
	dst = append(dst, "};\n"...)
	dst = append(dst, script...)
	dst = append(dst, "]]>\n</script>\n<rect x=\"0.0\" y=\"0\" width=\""...)
	dst = appendF(dst, g.width, 1)
	dst = append(dst, `" height="`...)
	dst = appendF(dst, g.height, 1)
	dst = append(dst, "\" fill=\"url(#background)\"  />\n"...)
	text := func(dst []byte, id string, x, y float64, extra, content string) []byte {
		dst = append(dst, `<text id="`...)
		dst = append(dst, id...)
		dst = append(dst, `" x="`...)
		dst = appendF(dst, x, 2)
		dst = append(dst, `" y="`...)
		dst = appendNum(dst, y)
		dst = append(dst, `" `...)
		dst = append(dst, extra...)
		dst = append(dst, '>')
		dst = xmlesc.AppendText(dst, content)
		return append(dst, "</text>\n"...)
	}
	W := g.width
	dst = text(dst, "title", float64(int(W/2)), fs*2, "", o.title())
	if o.Subtitle != "" {
		dst = text(dst, "subtitle", float64(int(W/2)), fs*4, "", o.Subtitle)
	}
	under := g.ypad2 - g.axis // the details line's band, under the axis
	dst = text(dst, "details", xpad, g.height-under/2, "", " ")
	dst = text(dst, "unzoom", xpad, fs*2, `class="hide"`, "Reset Zoom")
	dst = text(dst, "search", W-xpad-100, fs*2, "", "Search")
	dst = text(dst, "ignorecase", W-xpad-16, fs*2, "", "ic")
	dst = text(dst, "matched", W-xpad-100, g.height-under/2, "", " ")
	return dst
}

// chunk is the number of frames grouped in one <g> of #frames: the script
// hides whole groups when zooming, so that Chromium paints and restyles
// only what is shown.
const chunk = 256

// frames formats the frame elements and the labels of kept nodes; first
// is the position of kept[0] among all kept frames.
func (g *geometry) frames(l *flamegraph.Layout, kept []int32, colors []RGB, first int) (out, labels []byte) {
	o := g.o
	fh := float64(o.FrameHeight)
	charW := o.FontSize * o.FontWidth
	out = make([]byte, 0, len(kept)*140)
	var tip []byte
	for k, i := range kept {
		if gk := first + k; gk%chunk == 0 {
			if gk > 0 {
				out = append(out, "</g>\n"...)
			}
			out = append(out, "<g>\n"...)
		}
		n := &l.Nodes[i]
		end := n.End
		if n.Depth == 0 {
			end = g.timemax
		}
		x1 := xpad + n.Start*g.wpt
		x2 := xpad + end*g.wpt
		var y1, y2 float64
		d := float64(n.Depth)
		if o.Inverted {
			y1 = g.ypad1 + d*fh
			y2 = g.ypad1 + (d+1)*fh - framepad
		} else {
			y1 = g.height - g.ypad2 - (d+1)*fh + framepad
			y2 = g.height - g.ypad2 - d*fh
		}
		tip = g.tooltip(tip[:0], l, n, end)
		var attrs *Attrs
		if o.NameAttr != nil {
			attrs = o.NameAttr[n.Name]
		}
		closing := "</g>\n"
		if attrs == nil {
			out = append(out, "<g><title>"...)
			out = append(out, tip...)
		} else {
			out, closing = openFrame(out, attrs)
			out = append(out, "<title>"...)
			if attrs.Title != "" {
				out = xmlesc.AppendText(out, attrs.Title)
			} else {
				out = append(out, tip...)
			}
		}
		out = append(out, `</title><rect x="`...)
		out = appendF(out, x1, 1)
		out = append(out, `" y="`...)
		out = appendNum(out, y1)
		out = append(out, `" width="`...)
		out = appendF(out, round1(x2)-round1(x1), 1)
		out = append(out, `" height="`...)
		out = appendF(out, y2-y1, 1)
		out = append(out, `" fill="`...)
		out = colors[k].Append(out)
		out = append(out, `" rx="2" ry="2"/>`...)
		out = append(out, closing...)

		// label
		chars := int((x2 - x1) / charW)
		if chars < 3 || n.Depth == 0 {
			continue
		}
		name := stripAnnotation(n.Name)
		labels = append(labels, `<text x="`...)
		labels = appendF(labels, x1+3, 2)
		labels = append(labels, `" y="`...)
		labels = appendNum(labels, 3+(y1+y2)/2)
		labels = append(labels, `">`...)
		labels = xmlesc.AppendText(labels, fitLabel(name, chars))
		labels = append(labels, "</text>\n"...)
	}
	return out, labels
}

// fitLabel returns the first chars characters of name, the last two
// replaced by ".." when name is longer.
func fitLabel(name string, chars int) string {
	// count code points; bytes that are not UTF-8 count as one each
	cut, n := -1, 0
	for i := 0; i < len(name); n++ {
		if n == chars-2 {
			cut = i
		}
		if n == chars {
			return name[:cut] + ".."
		}
		_, w := decodeRune(name[i:])
		i += w
	}
	return name
}

func decodeRune(s string) (rune, int) {
	if s[0] < utf8.RuneSelf {
		return rune(s[0]), 1
	}
	return utf8.DecodeRuneInString(s)
}

// tooltip appends the escaped tooltip text of node n.
func (g *geometry) tooltip(dst []byte, l *flamegraph.Layout, n *flamegraph.Node, end float64) []byte {
	o := g.o
	var num [32]byte
	samples := appendF(num[:0], (end-n.Start)*o.Factor, 0)
	if n.Depth == 0 {
		dst = append(dst, "all ("...)
	} else {
		dst = xmlesc.AppendTextQuoted(dst, stripAnnotation(n.Name))
		dst = append(dst, " ("...)
	}
	dst = appendCommas(dst, samples)
	dst = append(dst, ' ')
	dst = xmlesc.AppendTextQuoted(dst, o.CountName)
	if n.Depth == 0 {
		return append(dst, ", 100%)"...)
	}
	sv, _ := strconv.ParseFloat(string(samples), 64)
	dst = append(dst, ", "...)
	dst = appendF(dst, 100*sv/(g.timemax*o.Factor), 2)
	dst = append(dst, '%')
	if n.HasDelta {
		d := n.Delta
		if o.Negate && d != 0 {
			d = -d // (never -0, which would print as -0.00)
		}
		dst = append(dst, "; "...)
		if d > 0 {
			dst = append(dst, '+')
		}
		dst = appendF(dst, 100*d/(g.timemax*o.Factor), 2)
		dst = append(dst, '%')
	}
	return append(dst, ')')
}

// openFrame writes the opening tag of a frame with --nameattr attributes
// and returns the matching closing text.
func openFrame(dst []byte, a *Attrs) ([]byte, string) {
	attr := func(dst []byte, name, value string) []byte {
		dst = append(dst, ' ')
		dst = append(dst, name...)
		dst = append(dst, `="`...)
		dst = xmlesc.AppendAttr(dst, value)
		return append(dst, '"')
	}
	closing := "</g>\n"
	if a.Href != "" {
		dst = append(dst, "<a"...)
		dst = attr(dst, "xlink:href", a.Href)
		target := a.Target
		if target == "" {
			target = "_top"
		}
		dst = attr(dst, "target", target)
		for _, x := range a.AExtra {
			dst = attr(dst, x.Name, x.Value)
		}
		closing = "</a>\n"
	} else {
		dst = append(dst, "<g"...)
	}
	if a.ID != "" {
		dst = attr(dst, "id", a.ID)
	}
	if a.Class != "" {
		dst = attr(dst, "class", a.Class)
	}
	for _, x := range a.GExtra {
		dst = attr(dst, x.Name, x.Value)
	}
	return append(dst, '>'), closing
}
