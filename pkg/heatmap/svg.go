package heatmap

import (
	"bufio"
	_ "embed"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"flamekit/internal/xmlesc"
	"flamekit/pkg/folded"
)

// script is the SVG's JavaScript: hover details, range selection and the
// timeslice command. It reads everything it needs from attributes, so no
// input text is ever written into a script context.
//
//go:embed heatmap.js
var script string

// Info is what a drawing says about its input.
type Info struct {
	// Title is the first line, e.g. the input names and host.
	Title string
	// Notes are extra lines under the title (the window, what was
	// excluded).
	Notes []string
	// Args is appended to the timeslice command a range selection gives,
	// already quoted for the shell (e.g. " --no-idle 'stacks/a.folded.gz'").
	Args string
	// NoIdle says idle samples were excluded.
	NoIdle bool
	// Origin is the capture's first sample (HasOrigin), shown in the
	// legend; columns count seconds from its whole second.
	Origin    folded.Time
	HasOrigin bool
	// Wall maps perf time to the wall clock for hover details (nil when
	// unknown); WallEstimated says the mapping is an estimate.
	Wall          func(folded.Time) time.Time
	WallEstimated bool
}

// layout of the drawing, in pixels.
type layout struct {
	x0, y0, cw, ch, width, height int
}

func (g *Grid) layout(notes int) layout {
	cols := max(len(g.Counts), 1)
	l := layout{x0: 80, y0: 42 + notes*14 + 8}
	l.cw = min(max(1000/cols, 3), 24)
	l.ch = min(max(500/g.Rows, 2), 16)
	l.width = max(l.x0+cols*l.cw+30, 760)
	l.height = l.y0 + g.Rows*l.ch + 110
	return l
}

// WriteSVG writes the grid as a self-contained interactive SVG.
func (g *Grid) WriteSVG(w io.Writer, info Info) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	notes := append(g.legend(info), info.Notes...)
	l := g.layout(len(notes))
	cols := len(g.Counts)
	fmt.Fprintf(bw, `<?xml version="1.0" standalone="no"?>
<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">
<svg version="1.1" width="%d" height="%d" viewBox="0 0 %d %d" onload="init(evt)" xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink">
<!-- Sub-second-offset heat map drawn by flamekit timeslice (heatmap option). -->
<style type="text/css">
text { font-family: Verdana, sans-serif; font-size: 12px; fill: rgb(0,0,0); }
#title { font-size: 17px; }
.note { font-size: 11px; fill: rgb(80,80,80); }
.axis { font-size: 10px; fill: rgb(80,80,80); }
#cmd { font-family: monospace; font-size: 12px; user-select: text; -webkit-user-select: text; }
#grid { cursor: crosshair; }
.sel { fill: rgb(40,90,255); fill-opacity: 0.35; stroke: rgb(20,40,160); stroke-width: 0.5; pointer-events: none; }
#hover { fill: none; stroke: rgb(0,0,0); stroke-width: 1.5; pointer-events: none; }
</style>
<script type="text/ecmascript"><![CDATA[
%s]]></script>
<rect x="0" y="0" width="100%%" height="100%%" fill="rgb(255,255,255)"/>
`, l.width, l.height, l.width, l.height, script)
	fmt.Fprintf(bw, "<text id=\"title\" x=\"%d\" y=\"24\">%s</text>\n", l.x0, xmlesc.String(info.Title))
	for i, n := range notes {
		fmt.Fprintf(bw, "<text class=\"note\" x=\"%d\" y=\"%d\">%s</text>\n", l.x0, 42+i*14, xmlesc.String(n))
	}
	// The grid: a background that takes the clicks, then the cells.
	fmt.Fprintf(bw, `<g id="grid" data-base="%d" data-rows="%d" data-cols="%d" data-x0="%d" data-y0="%d" data-cw="%d" data-ch="%d" data-args="%s"`,
		g.Base, g.Rows, cols, l.x0, l.y0, l.cw, l.ch, xmlesc.String(info.Args))
	if info.Wall != nil {
		ms := float64(info.Wall(folded.Time(g.Base*second)).UnixNano()) / 1e6
		fmt.Fprintf(bw, ` data-wall-ms="%s" data-wall-est="%t"`, strconv.FormatFloat(ms, 'f', 3, 64), info.WallEstimated)
	}
	fmt.Fprintf(bw, ">\n<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"rgb(255,255,255)\" stroke=\"rgb(220,220,220)\"/>\n",
		l.x0, l.y0, cols*l.cw, g.Rows*l.ch)
	ms := 1000 / float64(g.Rows)
	for c, col := range g.Counts {
		for r, n := range col {
			if n == 0 {
				continue
			}
			x, y := l.x0+c*l.cw, l.y0+(g.Rows-1-r)*l.ch
			fmt.Fprintf(bw, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%v\" data-c=\"%d\" data-r=\"%d\" data-n=\"%d\"><title>%d s, %s ms: %d samples</title></rect>\n",
				x, y, l.cw, l.ch, Color(n, g.Max), c, r, n, c, strconv.FormatFloat(float64(r)*ms, 'f', -1, 64), n)
		}
	}
	fmt.Fprintf(bw, "<rect id=\"hover\" x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" visibility=\"hidden\"/>\n<g id=\"sel\"></g>\n</g>\n", l.cw, l.ch)
	g.axes(bw, l)
	by := l.y0 + g.Rows*l.ch + 42
	fmt.Fprintf(bw, "<text id=\"details\" x=\"%d\" y=\"%d\"> </text>\n", l.x0, by)
	fmt.Fprintf(bw, "<text id=\"cmd\" x=\"%d\" y=\"%d\">Click a start cell, then an end cell: the timeslice command for that range appears here.</text>\n", l.x0, by+20)
	fmt.Fprintf(bw, "<text id=\"copied\" class=\"note\" x=\"%d\" y=\"%d\"> </text>\n", l.x0, by+38)
	bw.WriteString("</svg>\n")
	return bw.Flush()
}

func (g *Grid) legend(info Info) []string {
	what := "idle included"
	if info.NoIdle {
		what = "idle excluded (--no-idle)"
	}
	origin := ""
	if info.HasOrigin {
		origin = fmt.Sprintf(" (first sample @%v)", info.Origin)
	}
	return []string{
		fmt.Sprintf("columns: seconds from @%d%s; rows: %s ms each, 0 ms at the bottom", g.Base, origin, strconv.FormatFloat(1000/float64(g.Rows), 'f', -1, 64)),
		fmt.Sprintf("cell: number of samples (lines, not periods), fullest %d; %d samples; %s", g.Max, g.Total, what),
	}
}

// axes writes the second labels under the grid and millisecond labels on
// its left.
func (g *Grid) axes(w *bufio.Writer, l layout) {
	cols := len(g.Counts)
	step := 3600
	for _, s := range []int{1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 1800, 3600} {
		if s*l.cw >= 30 {
			step = s
			break
		}
	}
	yb := l.y0 + g.Rows*l.ch
	for c := 0; c < cols; c += step {
		x := l.x0 + c*l.cw + l.cw/2
		fmt.Fprintf(w, "<text class=\"axis\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">%d</text>\n", x, yb+13, c)
	}
	fmt.Fprintf(w, "<text class=\"axis\" x=\"%d\" y=\"%d\">seconds since @%d</text>\n", l.x0, yb+27, g.Base)
	for _, msv := range []int{0, 200, 400, 600, 800} {
		r := int(ceilDiv(int64(msv)*int64(g.Rows), 1000))
		if r >= g.Rows {
			continue
		}
		y := l.y0 + (g.Rows-r)*l.ch
		fmt.Fprintf(w, "<text class=\"axis\" x=\"%d\" y=\"%d\" text-anchor=\"end\">%d ms</text>\n", l.x0-4, y, msv)
	}
}

// ShellQuote quotes s for a POSIX shell when it needs it.
func ShellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./-=:@+,%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
