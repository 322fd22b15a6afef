package capture

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"flamekit/pkg/fold/collapse"
	"flamekit/pkg/folded"
	"flamekit/pkg/interop/bpftrace"
	"flamekit/pkg/interop/pprof"
	"flamekit/pkg/perf/symbols"
	"flamekit/pkg/source"
)

// Options say how Folded folds an input that is not folded stacks.
type Options struct {
	// Collapse are the options of perf captures (perf.data, perf script
	// text): Collapse.NoTime gives classic lines, summed and sorted.
	Collapse collapse.Options
	// Perf is as Folder.Perf: the perf binary run on a perf.data file
	// the reader cannot read as perf does; "" never runs it.
	Perf string
	// Workers is the number of goroutines folding perf captures (0:
	// GOMAXPROCS).
	Workers int
	// Bpftrace are the options of bpftrace map dumps.
	Bpftrace bpftrace.Options
	// SampleType picks the sample type of pprof profiles (see
	// pprof.ReadOptions).
	SampleType string
	// Resolver resolves the addresses of perf.data files (nil:
	// DefaultResolver); NewResolver makes one for a SymbolConfig.
	Resolver *symbols.Resolver
	// Warnf receives the messages of a fold (a perf.data file read
	// through perf script, frames without symbols, lines skipped), once
	// the input has been read to its end; may be nil.
	Warnf func(format string, args ...any)
}

// SourceName is the value of the "source" metadata of an input: its name,
// or "" for standard input.
func SourceName(in *source.Input) string {
	if in.Name == "-" {
		return ""
	}
	return in.Name
}

// ErrNotPerfScript is wrapped by the error of perf script text in which no
// sample was found and some lines were not perf script's.
var ErrNotPerfScript = errors.New("no samples found, and the input has lines that are not perf script text (counted above): is it the output of 'perf script'?")

// Folded returns in as folded text: its content when it is folded stacks
// (or empty, or text of no known kind, which a folded.Reader reports line
// by line), and otherwise the folded stacks stackcollapse writes for it,
// made on another goroutine as they are read: timed lines from perf
// captures (classic with o.Collapse.NoTime), what the converters make of
// pprof profiles and bpftrace dumps. Binary data of no known kind is an
// error that says what it looks like. Closing the reader before its end
// stops the folding, and drops its messages (about a part of the input).
func Folded(in *source.Input, o Options) (io.ReadCloser, error) {
	switch in.Kind {
	case source.Folded, source.Empty:
		return in.Open()
	case source.Unknown:
		if !source.IsText(in.Head) {
			return nil, in.Check()
		}
		return in.Open()
	}
	pr, pw := io.Pipe()
	fr := &foldReader{pr: pr, done: make(chan struct{})}
	go func() {
		defer close(fr.done)
		var h held
		err := foldTo(pw, in, o, h.keep)
		if err == nil {
			h.say(o.Warnf)
		}
		pw.CloseWithError(err) // nil: the reader sees io.EOF
	}()
	return fr, nil
}

// foldReader is the reading end of a fold: closing it stops the fold and
// waits for it to end.
type foldReader struct {
	pr   *io.PipeReader
	done chan struct{}
	once sync.Once
}

func (r *foldReader) Read(p []byte) (int, error) { return r.pr.Read(p) }

func (r *foldReader) Close() error {
	r.once.Do(func() {
		r.pr.CloseWithError(errStopped)
		<-r.done
	})
	return nil
}

var errStopped = errors.New("the reader of the folded stacks stopped")

// foldTo writes the folded stacks of in to w.
func foldTo(w io.Writer, in *source.Input, o Options, warnf func(string, ...any)) error {
	switch {
	case in.Kind.IsPerfData() || in.Kind == source.PerfScript:
		f := &Folder{Driver: collapse.Driver{Options: o.Collapse, Workers: o.Workers, Warnf: warnf}, Perf: o.Perf, Resolver: o.Resolver}
		input := f.Data(in, SourceName(in))
		if in.Kind == source.PerfScript {
			input = f.Text(in.Display, SourceName(in), in.Open)
		}
		sum, err := f.Run(w, []collapse.Input{input})
		if err == nil && sum.Samples == 0 && f.Skipped.Count > 0 {
			err = fmt.Errorf("%s: %w", in.Display, ErrNotPerfScript)
		}
		return err
	case in.Kind == source.Pprof:
		fw := folded.NewWriter(w)
		if err := Pprof(in, o.SampleType, fw, warnf); err != nil {
			return err
		}
		return fw.Flush()
	case in.Kind == source.Bpftrace:
		return Bpftrace(in, o.Bpftrace, w, warnf)
	}
	return fmt.Errorf("%s: %s cannot be folded", in.Display, in.Kind)
}

// Pprof converts the pprof profile in into folded records written to sink,
// the sample type chosen by sampleType (see pprof.ReadOptions); what was
// chosen among several, and the samples skipped, are said through warnf.
func Pprof(in *source.Input, sampleType string, sink pprof.Sink, warnf func(string, ...any)) error {
	rc, err := in.Open()
	if err != nil {
		return err
	}
	p, err := pprof.Read(rc, in.Display)
	rc.Close()
	if err != nil {
		return err
	}
	sum, err := pprof.Convert(p, pprof.ReadOptions{SampleType: sampleType, Name: SourceName(in)}, sink)
	if err != nil {
		return fmt.Errorf("%s: %w", in.Display, err)
	}
	if len(p.SampleType) > 1 && sampleType == "" {
		var types []string
		for _, st := range p.SampleType {
			types = append(types, st.Type)
		}
		warnf("%s: folding sample type %s of %s (--sample-type picks another)", in.Display, sum.Type, strings.Join(types, ", "))
	}
	if sum.Big > 0 {
		warnf("%s: skipped %d samples whose %s is beyond 2^53 and cannot be summed exactly", in.Display, sum.Big, sum.Type.Type)
	}
	if sum.Zero > 0 || sum.Negative > 0 {
		warnf("%s: skipped %d samples whose %s is 0 and %d negative ones", in.Display, sum.Zero, sum.Type.Type, sum.Negative)
	}
	return nil
}

// Bpftrace writes the stacks of the bpftrace map dump in to w, summed and
// sorted; which map was folded when several have stacks, and the entries
// skipped, are said through warnf.
func Bpftrace(in *source.Input, opt bpftrace.Options, w io.Writer, warnf func(string, ...any)) error {
	rc, err := in.Open()
	if err != nil {
		return err
	}
	defer rc.Close()
	sum, err := bpftrace.Collapse(rc, in.Display, opt, w)
	if err != nil {
		return err
	}
	if len(sum.Maps) == 0 && sum.Other > 0 {
		return fmt.Errorf("%s: no bpftrace map in it (%d lines, none \"@name[key]: value\"): is it what bpftrace printed?", in.Display, sum.Other)
	}
	var others []string
	for _, m := range sum.Maps {
		if !m.Folded && m.Stacks {
			others = append(others, m.Name)
		}
	}
	if len(others) > 0 && opt.Map == "" {
		verb := "have"
		if len(others) == 1 {
			verb = "has"
		}
		warnf("%s: folded map %s; %s also %s stacks (choose with --map)", in.Display, sum.Map, strings.Join(others, ", "), verb)
	}
	if msg := sum.Skipped.String(); msg != "" {
		warnf("%s", msg)
	}
	return nil
}

// RunRecords is Run with the output given to out as records, not written
// as text: see collapse.Driver.RunRecords.
func (f *Folder) RunRecords(out collapse.Records, inputs []collapse.Input) (collapse.Summary, error) {
	f.texts = f.texts[:0]
	f.prepare()
	sum, err := f.Driver.RunRecords(out, inputs)
	f.noteSkips()
	return sum, err
}

// IsPerf reports whether Records folds in: a perf.data file or perf script
// text.
func IsPerf(in *source.Input) bool {
	return in.Kind.IsPerfData() || in.Kind == source.PerfScript
}

// Records folds the perf capture in (IsPerf) as Folded does, and gives out
// the records, metadata lines and malformed lines that a lenient
// folded.Reader would read from Folded's text, without that text (see
// collapse.Driver.RunRecords): the records of one input, in order, on the
// fold's merging goroutine while Records waits. The fold's messages go to
// o.Warnf once the input was read to its end without an error. An error
// returned by out stops the fold, and Records returns it as it is, the
// messages dropped (they are about a part of the input).
func Records(in *source.Input, o Options, out collapse.Records) error {
	if !IsPerf(in) {
		return fmt.Errorf("%s: %s is not a perf capture", in.Display, in.Kind)
	}
	var h held
	f := &Folder{Driver: collapse.Driver{Options: o.Collapse, Workers: o.Workers, Warnf: h.keep}, Perf: o.Perf, Resolver: o.Resolver}
	input := f.Data(in, SourceName(in))
	if in.Kind == source.PerfScript {
		input = f.Text(in.Display, SourceName(in), in.Open)
	}
	sum, err := f.RunRecords(out, []collapse.Input{input})
	if err == nil && sum.Samples == 0 && f.Skipped.Count > 0 {
		err = fmt.Errorf("%s: %w", in.Display, ErrNotPerfScript)
	}
	if err == nil {
		h.say(o.Warnf)
	}
	return err
}

// held keeps a fold's messages (from any goroutine) until the input has
// been read whole: they are said only then, so that a fold stopped half
// way says nothing about the part it read.
type held struct {
	mu   sync.Mutex
	msgs []string
}

func (h *held) keep(format string, args ...any) {
	h.mu.Lock()
	h.msgs = append(h.msgs, fmt.Sprintf(format, args...))
	h.mu.Unlock()
}

// say prints the messages kept on warnf (nil: nowhere).
func (h *held) say(warnf func(string, ...any)) {
	if warnf == nil {
		return
	}
	for _, m := range h.msgs {
		warnf("%s", m)
	}
}

// Fold returns Folded with options o, for source.Files.Fold and
// timeslice.FromSource.
func Fold(o Options) func(*source.Input) (io.ReadCloser, error) {
	return func(in *source.Input) (io.ReadCloser, error) { return Folded(in, o) }
}
