// Package flamegraph is the whole flamegraph tool as a call: [Run] takes a
// [Config] (the drawing options, the inputs) and a [tool.Env] (standard
// streams, warnings). It reads the inputs through the one input layer
// (folding perf captures, pprof profiles and bpftrace dumps as
// stackcollapse does), merges them into the flame graph model (package
// flamegraph) and renders the SVG (package svg), with flamegraph.pl's
// messages. cmd/flamegraph only turns flags into a Config; any Go program
// can do the same.
package flamegraph

import (
	"errors"
	"fmt"
	"io"

	"flamekit/pkg/fold/capture"
	"flamekit/pkg/fold/collapse"
	"flamekit/pkg/folded"
	"flamekit/pkg/svg"
	"flamekit/pkg/tool"
	flame "flamekit/pkg/view/flamegraph"
)

// Config is one run of flamegraph, as its command line gives it.
type Config struct {
	// Options are the drawing options (svg.DefaultOptions and the
	// flags); Run fills their NameAttr and Palette from NameAttr and CP.
	Options svg.Options
	// NameAttr is a file of per-function SVG attributes ("": none).
	NameAttr string
	// CP reuses and updates the colours in svg.PaletteFile.
	CP bool
	// Reverse reverses the frames of every stack.
	Reverse bool
	// Files are the inputs ("-" or none: standard input).
	Files []string
}

// ErrNoStacks is returned when the inputs hold no stack count: Run has
// then said so on Stderr, as flamegraph.pl does, and written its empty
// SVG; flamegraph.pl exits with status 2, without another message.
var ErrNoStacks = errors.New("no stack counts found")

// Run reads the inputs and writes the SVG on env.Stdout.
func Run(c Config, env *tool.Env) error {
	o := &c.Options
	var err error
	if c.NameAttr != "" {
		if o.NameAttr, err = svg.ReadNameAttr(c.NameAttr, func(msg string) { env.Warnf("%s", msg) }); err != nil {
			return err
		}
	}
	if c.CP {
		if o.Palette, err = svg.ReadPalette(svg.PaletteFile); err != nil {
			return err
		}
	}
	ins, err := tool.Open(c.Files, env)
	if err != nil {
		return err
	}
	defer ins.Close()
	// Perf captures, pprof and bpftrace are folded as stackcollapse folds
	// them: classic (summed) records, or timed ones for a chart in time
	// order.
	rd := capture.NewReader(ins, capture.Options{Collapse: collapse.Options{NoTime: !o.Flamechart}, Perf: "perf", Warnf: env.Warnf})
	rw := flame.Rewrite{Reverse: c.Reverse, Chain: o.Colors == "chain"}
	in := flame.ReadRecords(rd.All(), capture.TextSize(ins), o.Flamechart, rw, o.MinCount)
	if err := rd.Err(); err != nil {
		return err
	}
	in.Skips = rd.Skips()
	if env.Stderr == nil {
		env = &tool.Env{Stdin: env.Stdin, Stdout: env.Stdout, Stderr: io.Discard, Warn: env.Warn, Getenv: env.Getenv}
	}
	l := in.Layout
	if in.Timed && o.CountName == "samples" {
		o.CountName = "ns" // a chart of timed samples is as wide as their time
	}
	if l.Total == 0 {
		fmt.Fprintln(env.Stderr, "ERROR: No stack counts found")
		warnSkips(env, in.Skips)
		if err := svg.RenderEmpty(env.Stdout, o); err != nil {
			return err
		}
		return ErrNoStacks
	}
	if o.Total > 0 && o.Total < l.Total {
		if o.Total/l.Total > 0.02 {
			fmt.Fprintf(env.Stderr, "Specified --total %s is less than actual total %s, so ignored\n",
				folded.FormatCount(o.Total), folded.FormatCount(l.Total))
		}
		o.Total = 0
	}
	if o.CountName == "samples" && l.Total < 100 {
		fmt.Fprintf(env.Stderr, "Stack count is low (%s). Did something go wrong?\n", folded.FormatCount(l.Total))
	}
	if l.Total > folded.MaxCount {
		env.Warnf("warning: the counts sum to about %s, beyond 2^53: the widths are right, but the counts shown are rounded", folded.FormatCount(l.Total))
	}
	warnSkips(env, in.Skips)
	if err := svg.Render(env.Stdout, l, o); err != nil {
		return err
	}
	if c.CP {
		if err := svg.WritePalette(svg.PaletteFile, o.Palette); err != nil {
			env.Warnf("could not update %s: %v", svg.PaletteFile, err)
		}
	}
	return nil
}

// warnSkips prints flamegraph.pl's message about the lines skipped.
func warnSkips(env *tool.Env, s folded.Skips) {
	if s.Count > 0 {
		fmt.Fprintf(env.Stderr, "Ignored %d lines with invalid format (first: %v)\n", s.Count, s.First)
	}
}
