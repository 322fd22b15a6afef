package perfscript

import (
	"io"

	"flamekit/pkg/fold/collapse"
	"flamekit/pkg/folded"
)

// The tests of this package fold perf script text with Collapser: the one
// fold driver (package collapse) with this package's Text as its
// producer, what capture.Folder.Text gives the driver for perf script
// text.

// Options are the collapse options (see package collapse).
type Options = collapse.Options

// Input is one perf script text to read.
type Input struct {
	Name   string                        // shown in messages
	Source string                        // "source" metadata value ("" for stdin)
	Open   func() (io.ReadCloser, error) // opens (and decompresses) the input
}

// Collapser turns perf script text into folded stacks through the collapse
// stage (package collapse): classic output (sorted, summed per stack, as
// stackcollapse-perf.pl prints it) or, when the input has timestamps and
// Options.NoTime is false, one timed line per sample in input order,
// framed by metadata lines.
//
// The input is cut at sample boundaries into chunks that Workers
// goroutines parse at once; the output does not depend on the cut.
type Collapser struct {
	Options
	Workers   int // parsers running at once; 0 means GOMAXPROCS
	ChunkSize int // bytes per chunk; 0 means DefaultChunkSize
	// Warnf prints a message on standard error (may be nil).
	Warnf func(format string, args ...any)
}

// Summary is what a run read and wrote.
type Summary struct {
	collapse.Summary
	// Skipped counts the lines that were neither a sample header, a
	// frame, a comment nor blank.
	Skipped folded.Skips
}

// Run reads the inputs in order, as one stream, and writes the folded
// output to w. Inputs that cannot be read are reported in the returned
// error (after the others were processed); a write error stops the run.
func (c *Collapser) Run(w io.Writer, inputs []Input) (Summary, error) {
	texts := make([]*Text, len(inputs))
	ins := make([]collapse.Input, len(inputs))
	for i, in := range inputs {
		ins[i] = collapse.Input{Name: in.Name, Source: in.Source, Open: func() (collapse.Producer, error) {
			rc, err := in.Open()
			if err != nil {
				return nil, err
			}
			t := NewText(rc, in.Name, c.Srcline)
			t.ChunkSize = c.ChunkSize
			texts[i] = t
			return t, nil
		}}
	}
	d := &collapse.Driver{Options: c.Options, Workers: c.Workers, Warnf: c.Warnf}
	cs, err := d.Run(w, ins)
	sum := Summary{Summary: cs}
	for _, t := range texts {
		if t != nil {
			sum.Skipped.Merge(t.Skips())
		}
	}
	if sum.Skipped.Count > 0 {
		c.warn("%s", sum.Skipped)
	}
	return sum, err
}

func (c *Collapser) warn(format string, args ...any) {
	if c.Warnf != nil {
		c.Warnf(format, args...)
	}
}
