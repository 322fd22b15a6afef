// Package explorer writes the explorer page: one self-contained HTML file
// that holds a timed profile and runs FlameScope's loop in the browser,
// without a server or the network. The sub-second heat map (one lane per
// host, the night overview for long captures, bursts marked) selects a
// range; the flame graph of the range is drawn below it (flamegraph's
// colours, zoom, search), or compared with a second range (red/blue, as
// difffolded | flamegraph, and the elided view), filtered by comm, pid,
// tid, CPU and stackfilter's stack filters, shown as an icicle, a flame
// chart, a top table or a sandwich. The page's state lives in the URL
// fragment, whose keys are the command-line flags; it gives the pipeline
// that draws the same flame graph from the command line, and saves the
// view's flame graph (the SVG flamegraph draws) and folded stacks.
//
// The data is a [timeline.Timeline] aggregated per cell (see encode.go for
// the format), gzipped and carried as base64 in the page; the script
// unpacks it with the browser's DecompressionStream. Names are data: the
// script writes them with textContent or on a canvas, never as markup.
// Without script, the page shows the heat map as a picture.
package explorer

import (
	"bytes"
	"embed"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/klauspost/compress/gzip"

	"flamekit/pkg/folded"
	"flamekit/pkg/svg"
	"flamekit/pkg/timeline"
	"flamekit/pkg/view/flamegraph"
	"flamekit/pkg/view/heatmap"
)

//go:embed explorer.css
var css string

// The page's script is its modules, one strict-mode script, in this
// order (the top-level statements run in it: the page's data before the
// modules that read it at load, ui.js, which starts the page, last).
// TestScriptModules checks every .js file of the package is here.
var scriptOrder = []string{
	"flame.js",   // colours (Go twin: pkg/svg's color.go) and the canvas graph
	"svgout.js",  // the SVG flamegraph writes (Go twin: pkg/svg, Render)
	"re2.js",     // regular expressions (Go twin: regexp)
	"tracks.js",  // tracks, the map's modes, what rose in a burst
	"units.js",   // values in their unit (Go twin: pkg/view/top/units.go)
	"chart.js",   // the flame chart (Go twin: pkg/view/flamegraph/chart.go)
	"data.js",    // the header, the data, time (Go twin: encode.go)
	"link.js",    // the view's state in the URL fragment
	"filters.js", // selection and stack filters, sums (Go twin: pkg/filter/...)
	"layout.js",  // the flame graph, differential, sandwich, top, folded, SVG
	"command.js", // the commands that draw the view
	"map.js",     // the heat map (Go twin: pkg/view/heatmap)
	"ui.js",      // the page, status, views, actions, main, test hooks
}

//go:embed *.js
var scripts embed.FS

// script returns the page's script: its modules in scriptOrder.
func script() string {
	var b strings.Builder
	for _, name := range scriptOrder {
		s, err := scripts.ReadFile(name)
		if err != nil {
			panic("explorer: " + err.Error()) // a name in scriptOrder not embedded: caught by the tests
		}
		b.Write(s)
	}
	return b.String()
}

// pageScript is script(), made the first time a page is written: at
// package init it cost every timeslice run 4 ms and 850 kB, page or not.
var pageScript = sync.OnceValue(script)

// MaxTimes is the most samples a page holds at their own time, for the
// flame chart (about 5 bytes each in the page, 12 in the browser): a
// timeline built with timeline.Options.Times = MaxTimes.
const MaxTimes = 2_000_000

// DefaultBudget is the number of entries (distinct cell, input, stack,
// thread and CPU) a page holds at full resolution: about 14 MB of page for
// perf captures. Beyond it the cells are widened until the entries fit,
// and the page says which window to cut for full detail. A timeline built
// with timeline.Options.Budget = DefaultBudget (as timeslice builds the
// page's) never holds more, whatever the samples: past 1 s cells its
// cells keep their heaviest stacks (timeline.Reduced), and the page says
// what that means (reducedNote).
const DefaultBudget = 2_500_000

// Options say what the page shows besides the timeline.
type Options struct {
	// Title heads the page.
	Title string
	// Notes are lines under the title (the window cut, what was left out).
	Notes []string
	// Files are the timeline's inputs as the commands the page gives name
	// them (shell words: absolute paths quoted, "-" for standard input),
	// by input index.
	Files []string
	// Select are the selection flags (--comm RE, --cpu LIST …, as
	// selection.Selection.Flags gives them) the timeline's samples were
	// kept under: every command the page gives carries them, as the
	// page holds no other samples.
	Select []string
	// NoIdle starts the page with idle samples left out (timeslice
	// --no-idle).
	NoIdle bool
	// Weights makes heat map cells sum the samples' weights (off-CPU
	// time) rather than count them; Unit names that weight ("µs
	// off-CPU").
	Weights bool
	Unit    string
	// CountUnit is the unit of the samples' counts as pprof names it
	// ("nanoseconds", "bytes", "count"; "" when unknown): the top table
	// prints its values in it as stacktop does.
	CountUnit string
	// Marks are windows to point out (bursts), best first, on the
	// timeline's axis.
	Marks []heatmap.Mark
	// Wall maps the axis to the wall clock (nil when unknown);
	// WallEstimated says it is an estimate.
	Wall          func(folded.Time) time.Time
	WallEstimated bool
	// Picture is the heat map's description for the picture shown
	// without script (its Marks, Wall and Unit are taken from here).
	Picture heatmap.Info
	// Budget bounds the entries held at full resolution (DefaultBudget
	// when 0).
	Budget int
	// MaxPicture bounds the size of the heat map's picture for browsers
	// without script (MaxPicture when 0): a larger one is left out, with
	// a note.
	MaxPicture int
}

// MaxPicture is the largest heat map picture (SVG bytes) a page carries
// for browsers without script: a night's is 3 MB, six times the page's
// data, for a fallback that timeslice --heatmap gives too.
const MaxPicture = 1 << 20

// Stats say what a page holds.
type Stats struct {
	Frames, Stacks, Threads, Entries int
	// Rows and Seconds are the cells the page holds (see timeline); they
	// differ from the timeline's when the budget made them wider.
	Rows, Seconds int
	// DataBytes is the size of the gzipped data, PageBytes of the page.
	DataBytes, PageBytes int
}

// Write writes the page of tl to w.
func Write(w io.Writer, tl *timeline.Timeline, o Options) (Stats, error) {
	budget := o.Budget
	if budget <= 0 {
		budget = DefaultBudget
	}
	full := tl
	tl = fit(tl, budget)
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, 7)
	enc, err := encode(zw, tl)
	if err == nil {
		err = zw.Close()
	}
	if err != nil {
		return Stats{}, err
	}

	m, err := header(full, tl, &enc, &o)
	if err != nil {
		return Stats{}, err
	}
	head, err := json.Marshal(m)
	if err != nil {
		return Stats{}, err
	}
	// Without script, the heat map as a picture (none for a span the heat
	// map refuses to draw, over 31 days: the page still works).
	pic, picErr := picture(tl, &o)

	var b bytes.Buffer
	b.Grow(gz.Len()*4/3 + len(pic)*4/3 + 200<<10)
	title := o.Title
	if title == "" {
		title = "Profile explorer"
	}
	fmt.Fprintf(&b, `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="flamekit timeslice --heatmap=html">
<title>%s</title>
<style>
%s</style>
</head>
<body>
<header id="top"><h1 id="title">%s</h1>
`, html.EscapeString(title), css, html.EscapeString(title))
	notes := o.Notes
	if n := reducedNote(tl); n != "" {
		notes = append(notes[:len(notes):len(notes)], n)
	}
	for _, n := range notes {
		fmt.Fprintf(&b, "<p class=\"note\">%s</p>\n", html.EscapeString(n))
	}
	b.WriteString("</header>\n<noscript><p class=\"note\">This page draws flame graphs with JavaScript, which is off: here is the heat map as a picture. The same view from the command line: timeslice --heatmap.</p>\n")
	if picErr == nil {
		b.WriteString("<img alt=\"sub-second heat map\" src=\"data:image/svg+xml;base64,")
		b.WriteString(base64.StdEncoding.EncodeToString(pic))
		b.WriteString("\">")
	} else {
		fmt.Fprintf(&b, "<p class=\"note\">No picture: %s</p>", html.EscapeString(picErr.Error()))
	}
	b.WriteString("</noscript>\n<div id=\"app\"><p id=\"loading\" class=\"note\">Unpacking the profile…</p></div>\n")
	b.WriteString("<script id=\"fx-meta\" type=\"application/json\">")
	b.Write(head)
	b.WriteString("</script>\n<script id=\"fx-data\" type=\"application/octet-stream\">")
	b.WriteString(base64.StdEncoding.EncodeToString(gz.Bytes()))
	b.WriteString("</script>\n<script>\n\"use strict\";\n")
	b.WriteString(pageScript())
	b.WriteString("</script>\n</body>\n</html>\n")
	st := Stats{Frames: enc.frames, Stacks: enc.nodes, Threads: len(tl.Threads), Entries: enc.entries,
		Rows: tl.Rows, Seconds: tl.Seconds, DataBytes: gz.Len(), PageBytes: b.Len()}
	_, err = w.Write(b.Bytes())
	return st, err
}

// MaxCells bounds the cells of a host's lane (from its first sample to
// its last): the page keeps a number per cell of each lane, so 5 million
// (28 hours of 20 ms cells) is 40 MB in the browser.
const MaxCells = 5_000_000

// fit widens the cells until the entries fit in budget and every lane in
// MaxCells, a step at a time (timeline's Widen: from 20 ms to 100 ms,
// 200 ms, 1 s, then 10 s, 1 min, 10 min, 1 h, 1 day).
func fit(tl *timeline.Timeline, budget int) *timeline.Timeline {
	for len(tl.Entries) > budget || laneCells(tl) > MaxCells {
		next := tl.Widen()
		if next == nil {
			break // as wide as cells go: the page is larger than planned
		}
		tl = next
	}
	return tl
}

// laneCells returns the most cells a host's lane spans.
func laneCells(tl *timeline.Timeline) int64 {
	type span struct{ lo, hi int32 }
	spans := map[string]*span{}
	for i := range tl.Entries {
		e := &tl.Entries[i]
		h := tl.Inputs[e.Input].Host
		s := spans[h]
		if s == nil {
			spans[h] = &span{e.Cell, e.Cell}
			continue
		}
		s.lo, s.hi = min(s.lo, e.Cell), max(s.hi, e.Cell)
	}
	var n int64
	for _, s := range spans {
		n = max(n, int64(s.hi)-int64(s.lo)+1)
	}
	return n
}

type jsonMeta struct {
	Version  int         `json:"v"`
	Title    string      `json:"title"`
	Rows     int         `json:"rows"`
	Seconds  int         `json:"seconds"`
	Origin   string      `json:"origin"` // the axis time of cell 0, ns
	Wall     *jsonWall   `json:"wall"`
	Inputs   []jsonInput `json:"inputs"`
	Lanes    []jsonLane  `json:"lanes"`
	Marks    []jsonMark  `json:"marks"`
	Measure  string      `json:"measure"` // what heat map cells hold: samples or weight
	Unit     string      `json:"unit"`
	CUnit    string      `json:"countUnit,omitempty"` // Options.CountUnit
	NoIdle   bool        `json:"noIdle"`
	Select   []string    `json:"select,omitempty"` // Options.Select
	Palette  []string    `json:"palette"`
	Integral bool        `json:"integral"`
	WUnit    int64       `json:"wunit"`
	Event    string      `json:"event"`
	Samples  int64       `json:"samples"`
	Weight   string      `json:"weight"`
	Full     *jsonFull   `json:"full"` // set when cells were widened to fit
	SVG      jsonSVG     `json:"svg"`
	Sizes    [3]int      `json:"sizes"` // frames, nodes, entries
	Untimed  int64       `json:"untimed"`
	// Times is the number of samples held at their own time (the flame
	// chart's); TimesCut says the page holds none because there were more
	// than MaxTimes, or its cells were widened.
	Times    int  `json:"times"`
	TimesCut bool `json:"timesCut,omitempty"`
}

type jsonWall struct {
	Ms        float64 `json:"ms"` // wall-clock time of the origin, ms since 1970
	Estimated bool    `json:"estimated"`
}

type jsonInput struct {
	Name    string `json:"name"`
	File    string `json:"file"`
	Host    string `json:"host"`
	First   string `json:"first"` // perf-clock ns
	Last    string `json:"last"`
	Samples int64  `json:"samples"`
	Offset  string `json:"offset"`
}

type jsonLane struct {
	Host   string  `json:"host"`
	Inputs []int   `json:"inputs"`
	WallMs float64 `json:"wallMs"` // wall-clock time of the axis origin on this host (0: unknown)
	Exact  bool    `json:"exact"`
}

type jsonMark struct {
	From  int64  `json:"from"` // ns after the origin
	To    int64  `json:"to"`
	Label string `json:"label"`
}

type jsonFull struct {
	Rows       int     `json:"rows"`
	Entries    int     `json:"entries"`
	FitSeconds float64 `json:"fitSeconds"` // the span that fits at full resolution
}

type jsonSVG struct {
	CSS    string `json:"css"`
	Script string `json:"script"`
}

func header(full, tl *timeline.Timeline, enc *encoded, o *Options) (*jsonMeta, error) {
	m := &jsonMeta{Version: 1, Title: o.Title, Rows: tl.Rows, Seconds: tl.Seconds, Select: o.Select,
		Origin: strconv.FormatInt(int64(tl.Origin), 10), NoIdle: o.NoIdle,
		Integral: enc.integral, WUnit: enc.unit, Samples: tl.Samples, Untimed: tl.Untimed,
		Sizes: [3]int{enc.frames, enc.nodes, enc.entries}, Marks: []jsonMark{}, Inputs: []jsonInput{}}
	_, wt := tl.Total()
	m.Weight = folded.FormatCount(wt)
	m.Times, m.TimesCut = enc.times, full.TimesOver || full != tl && len(full.Times) > 0
	m.Measure, m.Unit, m.CUnit = "samples", "samples", o.CountUnit
	if o.Weights {
		m.Measure, m.Unit = "weight", o.Unit
	}
	if o.Wall != nil {
		m.Wall = &jsonWall{Ms: float64(o.Wall(tl.Origin).UnixNano()) / 1e6, Estimated: o.WallEstimated}
	}
	lanes := map[string]int{}
	for i, in := range tl.Inputs {
		file := "-"
		if i < len(o.Files) {
			file = o.Files[i]
		}
		ji := jsonInput{Name: in.Name, File: file, Host: in.Host, Samples: in.Samples, Offset: strconv.FormatInt(int64(in.Offset), 10)}
		if in.Seen.OK {
			ji.First, ji.Last = strconv.FormatInt(int64(in.Seen.First), 10), strconv.FormatInt(int64(in.Seen.Last), 10)
		}
		m.Inputs = append(m.Inputs, ji)
		for k := range in.Metas {
			if ev, ok := in.Metas[k].Get(folded.KeyEvent); ok && m.Event == "" {
				m.Event = ev
			}
		}
		l, ok := lanes[in.Host]
		if !ok {
			l = len(m.Lanes)
			lanes[in.Host] = l
			m.Lanes = append(m.Lanes, jsonLane{Host: in.Host})
		}
		m.Lanes[l].Inputs = append(m.Lanes[l].Inputs, i)
	}
	if len(m.Lanes) == 0 {
		m.Lanes = []jsonLane{{}}
	}
	if len(m.Lanes) > 1 {
		placeLanes(tl, m)
	}
	for _, mk := range o.Marks {
		m.Marks = append(m.Marks, jsonMark{From: int64(mk.From - tl.Origin), To: int64(mk.To - tl.Origin), Label: mk.Label})
	}
	for _, c := range heatmap.Palette() {
		m.Palette = append(m.Palette, c.String())
	}
	if tl != full || full.Reduced != nil {
		// the entries and cells per second at full resolution
		fe, rows := int64(len(full.Entries)), full.Rows
		if r := full.Reduced; r != nil {
			fe, rows = r.Entries, r.Rows
		}
		f, l, _ := full.Span()
		span := float64(l-f+1) * cellSeconds(full)
		fit := math.Min(span*float64(o.budget())/float64(max(fe, 1)), float64(MaxCells)/float64(rows))
		m.Full = &jsonFull{Rows: rows, Entries: int(fe), FitSeconds: math.Floor(fit)}
	}
	css, err := svgCSS()
	if err != nil {
		return nil, err
	}
	m.SVG = jsonSVG{CSS: css, Script: svg.Script()}
	return m, nil
}

// cellSeconds returns the width of tl's cells in seconds.
func cellSeconds(tl *timeline.Timeline) float64 {
	if tl.Seconds > 1 {
		return float64(tl.Seconds)
	}
	return 1 / float64(tl.Rows)
}

// reducedNote says what a page made of a reduced timeline (see
// timeline.Reduced) holds, when its cells keep only their heaviest
// stacks: what is exact, what is summed, and how to get every stack.
func reducedNote(tl *timeline.Timeline) string {
	r := tl.Reduced
	if r == nil || r.Cap == 0 {
		return "" // cells widened only: the heat map's legend says so
	}
	width := strconv.FormatFloat(cellSeconds(tl), 'f', -1, 64) + " s"
	share := 0.0
	if tl.Samples > 0 {
		share = 100 * float64(r.Other) / float64(tl.Samples)
	}
	return fmt.Sprintf("Aggregated: the capture's %s samples are more than this page holds at full resolution, "+
		"so its cells are %s wide and each keeps, per input, its %d heaviest stacks (CPUs merged). "+
		"The other %s samples (%.1f%%) are summed per process in the stack \"process;%s\": "+
		"the heat map, each cell's total and each process's are exact, a stack shown may have had more samples "+
		"(those of cells where it was not among the heaviest). For every stack of any stretch, "+
		"the commands the page gives (timeslice --from … --to … over the original files) read the capture itself.",
		folded.FormatCount(float64(tl.Samples)), width, r.Cap, folded.FormatCount(float64(r.Other)), share, timeline.OtherFrame)
}

func (o *Options) budget() int {
	if o.Budget > 0 {
		return o.Budget
	}
	return DefaultBudget
}

// placeLanes gives each host's lane the wall-clock time of the axis
// origin on that host's clock, from its inputs' metadata (perf record -k,
// or captured-on estimates).
func placeLanes(tl *timeline.Timeline, m *jsonMeta) {
	for l := range m.Lanes {
		lane := &m.Lanes[l]
		var merged folded.Meta
		var span folded.Span
		for _, i := range lane.Inputs {
			in := &tl.Inputs[i]
			span.Merge(in.Seen)
			for k := range in.Metas {
				for _, f := range in.Metas[k].Fields {
					merged.Set(f.Key, f.Value)
				}
			}
		}
		ref, ok := folded.RefFromMeta(&merged, span.First, span.Last, span.OK, time.Local)
		if !ok {
			continue
		}
		lane.WallMs = float64(ref.ToWall(tl.Origin).UnixNano()) / 1e6
		lane.Exact = ref.Exact
	}
}

// svgCSS returns the style sheet of the SVG flamegraph draws with its
// default options, which the page's SVG writer copies.
func svgCSS() (string, error) {
	b := flamegraph.NewBuilder()
	b.Add("a", 1, 0, false)
	o := svg.DefaultOptions()
	var out bytes.Buffer
	if err := svg.Render(&out, b.Layout(), &o); err != nil {
		return "", err
	}
	s := out.String()
	const open, end = "<style type=\"text/css\">\n", "</style>"
	i := strings.Index(s, open)
	j := strings.Index(s, end)
	if i < 0 || j < i {
		return "", fmt.Errorf("explorer: no style sheet in the flame graph SVG")
	}
	return s[i+len(open) : j], nil
}

// picture draws the heat map as the SVG timeslice --heatmap writes, from
// the timeline's per-cell series (heatmap.Of), for browsers without
// script.
func picture(tl *timeline.Timeline, o *Options) ([]byte, error) {
	var keep func(*timeline.Entry) bool
	if o.NoIdle {
		idle := IdleStacks(tl)
		keep = func(e *timeline.Entry) bool { return !idle[e.Stack] }
	}
	m := timeline.Samples
	if o.Weights {
		m = timeline.Weight
	}
	hm := heatmap.Of(tl, m, keep)
	info := o.Picture
	if info.Title == "" {
		info.Title = o.Title
	}
	info.NoIdle = o.NoIdle
	if o.Weights {
		info.Unit = o.Unit
	}
	info.Marks, info.Wall, info.WallEstimated = o.Marks, o.Wall, o.WallEstimated
	lw := &limitWriter{max: o.MaxPicture}
	if lw.max <= 0 {
		lw.max = MaxPicture
	}
	if err := hm.Grid().WriteSVG(lw, info); err != nil {
		if err == errTooLarge {
			return nil, fmt.Errorf("the heat map's SVG takes more than the page carries (%.1f MB); timeslice --heatmap draws it", float64(lw.max)/1e6)
		}
		return nil, err
	}
	return lw.b.Bytes(), nil
}

var errTooLarge = errors.New("too large")

// limitWriter holds what is written up to max bytes, and refuses more
// (errTooLarge), so that a picture too large is not drawn to the end.
type limitWriter struct {
	b   bytes.Buffer
	max int
}

func (w *limitWriter) Write(p []byte) (int, error) {
	if w.b.Len()+len(p) > w.max {
		return 0, errTooLarge
	}
	return w.b.Write(p)
}
