package heatmap

import (
	"bufio"
	_ "embed"
	"fmt"
	"io"
	"strconv"
	"time"

	"flamekit/internal/base/xmlesc"
	"flamekit/pkg/folded"
)

// script is the SVG's JavaScript: overview and stretches, hover details,
// range selection and the timeslice command. It reads text (names,
// arguments, labels) from elements and attributes, and only numbers and
// base64 from the data object the writer puts before it, so no input text
// is ever written into a script context.
//
//go:embed heatmap.js
var script string

// Info is what a drawing says about its input.
type Info struct {
	// Title is the first line, e.g. the input names and host.
	Title string
	// Notes are extra lines under the legend (the window, what was
	// excluded).
	Notes []string
	// Args are the options of the timeslice command a selection gives,
	// already quoted for the shell, e.g. " --no-idle". The inputs follow
	// them.
	Args string
	// Inputs are the inputs the command names: a selection names those
	// whose span overlaps it (all of them when none does).
	Inputs []Source
	// NoIdle says idle samples were excluded.
	NoIdle bool
	// Unit is what a cell sums when it sums the samples' weights rather
	// than counting them (Map.AddN), e.g. "µs off-CPU"; "" when a cell
	// counts samples.
	Unit string
	// Wall maps perf time to the wall clock for hover details (nil when
	// unknown); WallEstimated says the mapping is an estimate.
	Wall          func(folded.Time) time.Time
	WallEstimated bool
	// Marks are windows to point out (bursts), best first.
	Marks []Mark
	// UnrecordedRule says what was taken as not recorded, for the legend
	// (see Grid.SetUnrecorded and gaps.Rule.Describe).
	UnrecordedRule string
}

// Source is one input as the timeslice command names it.
type Source struct {
	// Arg is the input as a shell word: an absolute path, quoted for the
	// shell (slicecmd.Quote), or "-" for standard input.
	Arg string
	// First and Last are the times of its first and last sample
	// (HasSpan); an input without a span is always named.
	First, Last folded.Time
	HasSpan     bool
}

// Mark is a window the drawing points out, [From, To) on perf's clock.
type Mark struct {
	From, To folded.Time
	// Label describes it in the list under the map, e.g. "z 48.2, 190
	// samples/s".
	Label string
}

// layout of the drawing, in pixels.
type layout struct {
	width, height int
	x0            int
	long          bool
	ov            Overview
	ovY, ocw, och int // overview: top, cell width and height
	dHeadY        int // detail header line
	dY, cw, ch    int // detail: top, cell width and height
	dCols         int // columns of the detail
	dStart        int64
	legendY       int
	detailsY      int
	burstsY       int
}

const plotWidth = 1200

func (g *Grid) layout(notes int, marks []Mark) layout {
	l := layout{x0: 80, long: g.Long()}
	y := 42 + notes*14
	if l.long {
		l.ov = g.Overview()
		l.ocw = min(max(plotWidth/max(l.ov.Cols, 1), 1), 24)
		l.och = 4
		l.ovY = y + 22
		y = l.ovY + OverviewRows*l.och + 34
		l.dCols, l.cw = StretchSeconds, plotWidth/StretchSeconds
		l.ch = min(max(300/g.Rows, 1), 16)
		l.dStart = g.First
		if len(marks) > 0 {
			mid := (int64(marks[0].From-g.Origin) + int64(marks[0].To-g.Origin)) / 2 / second
			l.dStart = floorDiv(mid-StretchSeconds/2, 10) * 10
		}
		l.dStart = max(min(l.dStart, g.First+int64(g.Cols)-StretchSeconds), g.First)
	} else {
		l.dCols = max(g.Cols, 1)
		l.cw = min(max(plotWidth/l.dCols, 2), 24)
		l.ch = min(max(500/g.Rows, 1), 16)
		l.dStart = g.First
	}
	l.dHeadY = y + 12
	l.dY = y + 22
	y = l.dY + g.Rows*l.ch + 34
	l.legendY = y + 6
	l.detailsY = y + 40
	l.burstsY = l.detailsY + 70
	l.height = l.burstsY + 10
	if len(marks) > 0 {
		l.height += 20 + 16*len(marks)
	}
	w := l.dCols * l.cw
	if l.long {
		w = max(w, l.ov.Cols*l.ocw)
	}
	l.width = max(l.x0+w+30, l.x0+plotWidth+30)
	return l
}

// WriteSVG writes the grid as a self-contained interactive SVG.
// A grid that spans more than MaxSeconds is an error (ErrSpan).
func (g *Grid) WriteSVG(w io.Writer, info Info) error {
	if err := g.checkSpan(); err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	notes := append(g.legend(info), info.Notes...)
	l := g.layout(len(notes), info.Marks)
	fmt.Fprintf(bw, `<?xml version="1.0" standalone="no"?>
<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">
<svg version="1.1" width="%d" height="%d" viewBox="0 0 %d %d" onload="init(evt)" xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink">
<!-- Sub-second-offset heat map drawn by flamekit timeslice (heatmap option). -->
<style type="text/css">
text { font-family: Verdana, sans-serif; font-size: 12px; fill: rgb(0,0,0); }
#title { font-size: 17px; }
.note { font-size: 11px; fill: rgb(80,80,80); }
.axis { font-size: 10px; fill: rgb(80,80,80); }
.head { font-size: 12px; font-weight: bold; }
.nav { font-size: 12px; fill: rgb(20,60,200); cursor: pointer; }
.burst { font-size: 12px; fill: rgb(20,60,200); cursor: pointer; }
#cmd { font-family: monospace; font-size: 12px; user-select: text; -webkit-user-select: text; }
#ogrid, #dgrid { cursor: crosshair; }
image { image-rendering: pixelated; }
.sel { fill: rgb(40,90,255); fill-opacity: 0.35; stroke: rgb(20,40,160); stroke-width: 0.5; pointer-events: none; }
.mark { fill: none; stroke: rgb(0,110,0); stroke-width: 1.5; pointer-events: none; }
.marklabel { font-size: 10px; fill: rgb(0,110,0); }
.hover { fill: none; stroke: rgb(0,0,0); stroke-width: 1.5; pointer-events: none; }
.unrec { fill: url(#unrec); pointer-events: none; }
#stretch { fill: rgb(40,90,255); fill-opacity: 0.12; stroke: rgb(20,40,160); stroke-width: 1; pointer-events: none; }
</style>
`, l.width, l.height, l.width, l.height)
	bw.WriteString("<defs><linearGradient id=\"scale\">")
	for _, s := range []struct {
		at string
		c  RGB
	}{{"0", White}, {"0.5", Mid}, {"1", Hot}} {
		fmt.Fprintf(bw, "<stop offset=\"%s\" stop-color=\"%v\"/>", s.at, s.c)
	}
	bw.WriteString("</linearGradient>")
	// Not recorded: grey, hatched, over the cells (light enough that the
	// colour of an overview cell with some samples shows through).
	bw.WriteString(`<pattern id="unrec" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">` +
		`<rect width="6" height="6" fill="rgb(190,190,190)" fill-opacity="0.6"/><rect width="2" height="6" fill="rgb(100,100,100)" fill-opacity="0.85"/></pattern>`)
	bw.WriteString("</defs>\n")
	// The data, then the script.
	bw.WriteString("<script type=\"text/ecmascript\"><![CDATA[\nvar hmData = {")
	bw.Write(g.appendScriptData(nil, &l, info))
	bw.WriteString("};\n]]></script>\n<script type=\"text/ecmascript\"><![CDATA[\n")
	bw.WriteString(script)
	bw.WriteString("]]></script>\n<rect x=\"0\" y=\"0\" width=\"100%\" height=\"100%\" fill=\"rgb(255,255,255)\"/>\n")
	fmt.Fprintf(bw, "<text id=\"title\" x=\"%d\" y=\"24\">%s</text>\n", l.x0, xmlesc.String(info.Title))
	for i, n := range notes {
		fmt.Fprintf(bw, "<text class=\"note\" x=\"%d\" y=\"%d\">%s</text>\n", l.x0, 42+i*14, xmlesc.String(n))
	}
	fmt.Fprintf(bw, "<g id=\"hm\" data-args=\"%s\"", xmlesc.String(info.Args))
	if info.Unit != "" {
		fmt.Fprintf(bw, " data-unit=\"%s\"", xmlesc.String(info.Unit))
	}
	if info.Wall != nil {
		ms := float64(info.Wall(g.Origin).UnixNano()) / 1e6
		fmt.Fprintf(bw, ` data-wall-ms="%s" data-wall-est="%t"`, strconv.FormatFloat(ms, 'f', 3, 64), info.WallEstimated)
	}
	bw.WriteString(">\n")
	if l.long {
		g.writeOverview(bw, &l, info.Marks)
	}
	g.writeDetail(bw, &l, info.Marks)
	g.writeLegend(bw, &l, &info)
	fmt.Fprintf(bw, "<text id=\"details\" x=\"%d\" y=\"%d\"> </text>\n", l.x0, l.detailsY)
	fmt.Fprintf(bw, "<text id=\"cmd\" x=\"%d\" y=\"%d\">%s</text>\n", l.x0, l.detailsY+20, "Click a start cell, then an end cell: the timeslice command for that range appears here (needs a browser with script).")
	fmt.Fprintf(bw, "<text id=\"copied\" class=\"note\" x=\"%d\" y=\"%d\"> </text>\n", l.x0, l.detailsY+38)
	if len(info.Marks) > 0 {
		fmt.Fprintf(bw, "<g id=\"bursts\">\n<text class=\"head\" x=\"%d\" y=\"%d\">Bursts, best first (green outlines; click one to open and select it):</text>\n", l.x0, l.burstsY+10)
		for i, m := range info.Marks {
			fmt.Fprintf(bw, "<text class=\"burst\" data-mark=\"%d\" x=\"%d\" y=\"%d\">%d. %s</text>\n", i, l.x0+10, l.burstsY+28+16*i, i+1, xmlesc.String(oneLine(m.Label)))
		}
		bw.WriteString("</g>\n")
	}
	bw.WriteString("<g id=\"inputs\" display=\"none\">\n")
	for _, in := range info.Inputs {
		bw.WriteString("<text")
		if in.HasSpan {
			fmt.Fprintf(bw, " data-first=\"%d\" data-last=\"%d\"", int64(in.First-g.Origin), int64(in.Last-g.Origin))
		}
		fmt.Fprintf(bw, ">%s</text>\n", xmlesc.String(in.Arg))
	}
	bw.WriteString("</g>\n</g>\n</svg>\n")
	return bw.Flush()
}

// appendScriptData appends the fields of the script's data object.
func (g *Grid) appendScriptData(dst []byte, l *layout, info Info) []byte {
	o := int64(g.Origin)
	dst = fmt.Appendf(dst, "\norigin: [%d, %d],\n", floorDiv(o, second), o-floorDiv(o, second)*second)
	dst = append(dst, "grid: {"...)
	dst = g.AppendData(dst)
	dst = append(dst, "},\n"...)
	if l.long {
		dst = append(dst, "ov: {"...)
		dst = l.ov.AppendData(dst)
		dst = fmt.Appendf(dst, ", x0: %d, y0: %d, cw: %d, ch: %d},\n", l.x0, l.ovY, l.ocw, l.och)
	} else {
		dst = append(dst, "ov: null,\n"...)
	}
	dst = fmt.Appendf(dst, "detail: {x0: %d, y0: %d, cw: %d, ch: %d, cols: %d, start: %d},\n", l.x0, l.dY, l.cw, l.ch, l.dCols, l.dStart)
	dst = append(dst, "palette: ["...)
	for i, c := range Palette() {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = fmt.Appendf(dst, "%q", c.String())
	}
	dst = append(dst, "],\ngaps: "...)
	dst = g.appendGaps(dst)
	dst = append(dst, ",\nmarks: ["...)
	for i, m := range info.Marks {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = fmt.Appendf(dst, "[%d,%d]", int64(m.From-g.Origin), int64(m.To-g.Origin))
	}
	return append(dst, "]\n"...)
}

// legend returns the lines that say what the drawing shows.
func (g *Grid) legend(info Info) []string {
	what := "idle included"
	if info.NoIdle {
		what = "idle excluded (--no-idle)"
	}
	wall := ""
	if info.Wall != nil {
		wall = ", " + info.Wall(g.Origin).UTC().Format("2006-01-02T15:04:05.000Z")
		if info.WallEstimated {
			wall += " (estimated)"
		}
	}
	lines := []string{
		fmt.Sprintf("time: seconds after the first sample, @%v%s: second 14 here is --from 14s", g.Origin, wall),
		fmt.Sprintf("sub-second map: a column per second, rows of %s ms, 0 ms at the bottom; %s: %d in all, fullest cell %d; %s",
			formatMs(1000/float64(g.Rows)), info.cellWhat(), g.Total, g.Max, what),
	}
	if note := g.unrecordedNote(info.UnrecordedRule); note != "" {
		lines = append(lines, note)
	}
	if g.Long() {
		o := g.Overview()
		lines = append(lines, fmt.Sprintf("overview: a column per %s, a row per %s (0 at the bottom), fullest row %d %s; click it for the sub-second map of %s there",
			formatDuration(o.Len), formatDuration(o.RowSeconds()), o.Max, info.unit(), formatDuration(StretchSeconds)))
	}
	return lines
}

// formatMs formats milliseconds to a tenth, without a needless ".0".
func formatMs(ms float64) string {
	return strconv.FormatFloat(float64(int64(ms*10+0.5))/10, 'f', -1, 64)
}

// formatDuration formats whole seconds as 45 s, 2 min, 1h30m.
func formatDuration(s int64) string {
	switch {
	case s < 60:
		return fmt.Sprintf("%d s", s)
	case s < 3600 && s%60 == 0:
		return fmt.Sprintf("%d min", s/60)
	case s%3600 == 0:
		return fmt.Sprintf("%d h", s/3600)
	case s%60 == 0:
		return fmt.Sprintf("%dh%02dm", s/3600, s%3600/60)
	}
	return fmt.Sprintf("%dh%02dm%02ds", s/3600, s%3600/60, s%60)
}

// clock formats a second count as h:mm:ss or m:ss, for axis labels.
func clock(s int64) string {
	neg := ""
	if s < 0 {
		neg, s = "-", -s
	}
	if s >= 3600 {
		return fmt.Sprintf("%s%d:%02d:%02d", neg, s/3600, s%3600/60, s%60)
	}
	return fmt.Sprintf("%s%d:%02d", neg, s/60, s%60)
}

func dataURI(png []byte) string {
	return "data:image/png;base64," + string(appendBase64(nil, png))
}

func (g *Grid) writeOverview(bw *bufio.Writer, l *layout, marks []Mark) {
	o := &l.ov
	w, h := o.Cols*l.ocw, OverviewRows*l.och
	fmt.Fprintf(bw, "<text class=\"head\" x=\"%d\" y=\"%d\">Overview: %s per column, %s per row; click for the sub-second map there</text>\n",
		l.x0, l.ovY-8, formatDuration(o.Len), formatDuration(o.RowSeconds()))
	img := paint(o.Cols, OverviewRows, l.ocw, l.och, func(c, r int) int {
		return Level(int64(o.Counts[c*OverviewRows+r]), int64(o.Max))
	})
	fmt.Fprintf(bw, "<g id=\"ogrid\">\n<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"rgb(255,255,255)\" stroke=\"rgb(220,220,220)\"/>\n", l.x0, l.ovY, w, h)
	fmt.Fprintf(bw, "<image id=\"oimg\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" preserveAspectRatio=\"none\" xlink:href=\"%s\"/>\n", l.x0, l.ovY, w, h, dataURI(img))
	if o.Unrecorded != nil {
		bw.WriteString("<g id=\"ounrec\">\n")
		for c := 0; c < o.Cols; c++ {
			for r := 0; r < OverviewRows; {
				if !o.Unrecorded[c*OverviewRows+r] {
					r++
					continue
				}
				lo := r
				for r < OverviewRows && o.Unrecorded[c*OverviewRows+r] {
					r++
				}
				fmt.Fprintf(bw, "<rect class=\"unrec\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/>\n",
					l.x0+c*l.ocw, l.ovY+(OverviewRows-r)*l.och, l.ocw, (r-lo)*l.och)
			}
		}
		bw.WriteString("</g>\n")
	}
	labelled := make(map[int]bool) // columns with a mark's number above them
	for i, m := range marks {
		first := true
		for _, seg := range o.segments(g.Origin, m.From, m.To) {
			x := l.x0 + seg.c*l.ocw
			fmt.Fprintf(bw, "<rect class=\"mark\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/>\n",
				x-1, l.ovY+(OverviewRows-1-seg.hi)*l.och-1, l.ocw+2, (seg.hi-seg.lo+1)*l.och+2)
			if first && !labelled[seg.c] {
				fmt.Fprintf(bw, "<text class=\"marklabel\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">%d</text>\n", x+l.ocw/2, l.ovY-1, i+1)
				labelled[seg.c] = true
			}
			first = false
		}
	}
	fmt.Fprintf(bw, "<rect id=\"stretch\" x=\"0\" y=\"%d\" width=\"0\" height=\"%d\" visibility=\"hidden\"/>\n", l.ovY, h)
	fmt.Fprintf(bw, "<rect id=\"ohover\" class=\"hover\" x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" visibility=\"hidden\"/>\n</g>\n", l.ocw, l.och)
	// Axes: time since the first sample under it, the row's offset on
	// its left.
	step := int64(0)
	for _, s := range []int64{60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400, 172800, 604800} {
		if s%o.Len == 0 && int(s/o.Len)*l.ocw >= 60 {
			step = s
			break
		}
	}
	if step == 0 {
		step = o.Len * int64(ceilDiv(60, int64(l.ocw)))
	}
	yb := l.ovY + h
	for s := ceilDiv(o.First, step) * step; s < o.First+int64(o.Cols)*o.Len; s += step {
		x := l.x0 + int((s-o.First)/o.Len)*l.ocw
		fmt.Fprintf(bw, "<text class=\"axis\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>\n", x, yb+13, clock(s))
	}
	fmt.Fprintf(bw, "<text class=\"axis\" x=\"%d\" y=\"%d\">h:mm:ss after the first sample</text>\n", l.x0, yb+26)
	for _, r := range []int{0, OverviewRows / 2} {
		fmt.Fprintf(bw, "<text class=\"axis\" x=\"%d\" y=\"%d\" text-anchor=\"end\">+%s</text>\n", l.x0-4, l.ovY+(OverviewRows-r)*l.och, formatDuration(int64(r)*o.RowSeconds()))
	}
}

// span of rows lo..hi (included) of overview column c.
type segment struct{ c, lo, hi int }

// segments returns the cells of an overview (or of a detail, with Len 1
// and rows buckets) that the window [from, to) covers, a run of rows per
// column.
func (o *Overview) segments(origin, from, to folded.Time) []segment {
	per := o.RowSeconds() * second
	a := floorDiv(int64(from-origin)-o.First*second, per)
	b := floorDiv(int64(to-origin)-1-o.First*second, per)
	var segs []segment
	for i := max(a, 0); i <= b && i < int64(o.Cols*OverviewRows); {
		c := int(i / OverviewRows)
		end := min(int64(c+1)*OverviewRows-1, b)
		segs = append(segs, segment{c, int(i % OverviewRows), int(end % OverviewRows)})
		i = end + 1
	}
	return segs
}

// detailSegments returns the cells of the detail columns c0..c0+cols-1
// (seconds from the origin) that [from, to) covers, a run per column.
func (g *Grid) detailSegments(from, to folded.Time, c0 int64, cols int) []segment {
	a := floorDiv(int64(from-g.Origin)*int64(g.Rows), second)
	b := ceilDiv(int64(to-g.Origin)*int64(g.Rows), second) - 1
	rows := int64(g.Rows)
	var segs []segment
	for i := max(a, c0*rows); i <= b && i < (c0+int64(cols))*rows; {
		c := floorDiv(i, rows)
		end := min((c+1)*rows-1, b)
		segs = append(segs, segment{int(c - c0), int(i - c*rows), int(end - c*rows)})
		i = end + 1
	}
	return segs
}

func (g *Grid) writeDetail(bw *bufio.Writer, l *layout, marks []Mark) {
	w, h := l.dCols*l.cw, g.Rows*l.ch
	head := fmt.Sprintf("Sub-second map of seconds %d to %d after the first sample", l.dStart, l.dStart+int64(l.dCols)-1)
	if !l.long {
		head = "Sub-second map: click a start cell, then an end cell"
	}
	fmt.Fprintf(bw, "<text id=\"dhead\" class=\"head\" x=\"%d\" y=\"%d\">%s</text>\n", l.x0, l.dHeadY, head)
	if l.long {
		fmt.Fprintf(bw, "<text id=\"prev\" class=\"nav\" x=\"%d\" y=\"%d\" text-anchor=\"end\" visibility=\"hidden\">&#9664; earlier</text>\n", l.x0+w-90, l.dHeadY)
		fmt.Fprintf(bw, "<text id=\"next\" class=\"nav\" x=\"%d\" y=\"%d\" text-anchor=\"end\" visibility=\"hidden\">later &#9654;</text>\n", l.x0+w, l.dHeadY)
	}
	img := paint(l.dCols, g.Rows, l.cw, l.ch, func(c, r int) int {
		return Level(int64(g.Count(int(l.dStart-g.First)+c, r)), int64(g.Max))
	})
	fmt.Fprintf(bw, "<g id=\"dgrid\">\n<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"rgb(255,255,255)\" stroke=\"rgb(220,220,220)\"/>\n", l.x0, l.dY, w, h)
	fmt.Fprintf(bw, "<image id=\"dimg\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" preserveAspectRatio=\"none\" xlink:href=\"%s\"/>\n", l.x0, l.dY, w, h, dataURI(img))
	// The cells not recorded, over the image (and over the script's
	// canvas, which goes just after the image; the script redraws them
	// for each stretch).
	bw.WriteString("<g id=\"dunrec\">\n")
	for _, s := range g.unrecordedSegments(l.dStart, l.dCols) {
		fmt.Fprintf(bw, "<rect class=\"unrec\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/>\n",
			l.x0+s.c*l.cw, l.dY+(g.Rows-1-s.hi)*l.ch, l.cw, (s.hi-s.lo+1)*l.ch)
	}
	bw.WriteString("</g>\n")
	bw.WriteString("<g id=\"dmarks\">\n")
	for _, m := range marks {
		for _, s := range g.detailSegments(m.From, m.To, l.dStart, l.dCols) {
			fmt.Fprintf(bw, "<rect class=\"mark\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/>\n",
				l.x0+s.c*l.cw, l.dY+(g.Rows-1-s.hi)*l.ch, l.cw, (s.hi-s.lo+1)*l.ch)
		}
	}
	bw.WriteString("</g>\n<g id=\"sel\"></g>\n")
	fmt.Fprintf(bw, "<rect id=\"hover\" class=\"hover\" x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" visibility=\"hidden\"/>\n</g>\n", l.cw, l.ch)
	// Axes: seconds under the map, milliseconds on its left.
	step := 3600
	for _, s := range []int{1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 1800, 3600} {
		if s*l.cw >= 40 {
			step = s
			break
		}
	}
	yb := l.dY + h
	bw.WriteString("<g id=\"daxis\">\n")
	for s := ceilDiv(l.dStart, int64(step)) * int64(step); s < l.dStart+int64(l.dCols); s += int64(step) {
		x := l.x0 + int(s-l.dStart)*l.cw + l.cw/2
		fmt.Fprintf(bw, "<text class=\"axis\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">%d</text>\n", x, yb+13, s)
	}
	bw.WriteString("</g>\n")
	fmt.Fprintf(bw, "<text class=\"axis\" x=\"%d\" y=\"%d\">seconds after the first sample (@%v)</text>\n", l.x0, yb+26, g.Origin)
	for _, msv := range []int{0, 200, 400, 600, 800} {
		r := int(ceilDiv(int64(msv)*int64(g.Rows), 1000))
		if r >= g.Rows {
			continue
		}
		fmt.Fprintf(bw, "<text class=\"axis\" x=\"%d\" y=\"%d\" text-anchor=\"end\">%d ms</text>\n", l.x0-4, l.dY+(g.Rows-r)*l.ch, msv)
	}
}

// writeLegend writes the colour scales.
func (g *Grid) writeLegend(bw *bufio.Writer, l *layout, info *Info) {
	x, y := l.x0, l.legendY
	bar := func(label string, max uint64) {
		fmt.Fprintf(bw, "<text class=\"axis\" x=\"%d\" y=\"%d\">%s 0</text>\n", x, y+9, label)
		x += 7*len(label) + 14
		fmt.Fprintf(bw, "<rect x=\"%d\" y=\"%d\" width=\"160\" height=\"10\" fill=\"url(#scale)\" stroke=\"rgb(200,200,200)\"/>\n", x, y)
		fmt.Fprintf(bw, "<text class=\"axis\" x=\"%d\" y=\"%d\">%d</text>\n", x+166, y+9, max)
		x += 220
	}
	bar(fmt.Sprintf("%s per %s ms cell:", info.unit(), formatMs(1000/float64(g.Rows))), uint64(g.Max))
	if l.long {
		bar(fmt.Sprintf("%s per %s (overview):", info.unit(), formatDuration(l.ov.RowSeconds())), l.ov.Max)
	}
	if len(g.unrecorded) > 0 {
		fmt.Fprintf(bw, "<rect class=\"unrec\" x=\"%d\" y=\"%d\" width=\"24\" height=\"10\"/><rect x=\"%d\" y=\"%d\" width=\"24\" height=\"10\" fill=\"none\" stroke=\"rgb(200,200,200)\"/>\n", x, y, x, y)
		fmt.Fprintf(bw, "<text class=\"axis\" x=\"%d\" y=\"%d\">not recorded</text>\n", x+30, y+9)
	}
}

// unit names what a cell holds, in the plural: "samples", or Info.Unit.
func (info *Info) unit() string {
	if info.Unit != "" {
		return info.Unit
	}
	return "samples"
}

// cellWhat says what a cell holds, for the legend.
func (info *Info) cellWhat() string {
	if info.Unit != "" {
		return "a cell sums the " + info.Unit + " of its samples"
	}
	return "a cell counts samples (lines, not periods)"
}
