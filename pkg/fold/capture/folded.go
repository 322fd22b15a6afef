package capture

import (
	"errors"
	"flamekit/pkg/perf/symbols"
	"fmt"
	"io"
	"strings"
	"sync"

	"flamekit/pkg/fold/collapse"
	"flamekit/pkg/folded"
	"flamekit/pkg/interop/bpftrace"
	"flamekit/pkg/interop/pprof"
	"flamekit/pkg/source"
)

// Options say how Folded folds an input that is not folded stacks.
type Options struct {
	// Collapse are the options of perf captures (perf.data, perf script
	// text): Collapse.NoTime gives classic lines, summed and sorted.
	Collapse collapse.Options
	// Resolver resolves the addresses of perf.data files (nil:
	// DefaultResolver); NewResolver makes one for a SymbolConfig.
	Resolver *symbols.Resolver
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
	// head: the caller wants the first records only (ScanOptions.Head).
	head bool
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
// sorted, as stackcollapse does; which map was folded when several have
// stacks, and the entries skipped, are said through warnf.
func Bpftrace(in *source.Input, opt bpftrace.Options, w io.Writer, warnf func(string, ...any)) error {
	var prof folded.Profile
	if err := bpftraceFold(in, opt, func(rec *folded.Record) error {
		prof.Add(rec)
		return nil
	}, warnf); err != nil {
		return err
	}
	_, err := prof.WriteTo(w)
	return err
}

// bpftraceSummary says what a bpftrace dump held besides the stacks
// folded: an error when it held no map at all.
func bpftraceSummary(in *source.Input, opt bpftrace.Options, sum bpftrace.Summary, warnf func(string, ...any)) error {
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
	f.noteRefused()
	return sum, err
}

// Records folds the perf capture in (IsPerf) as stackcollapse does, and
// gives out the records, metadata lines and malformed lines that a lenient
// folded.Reader would read from the folded text, without that text (see
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
	if o.head {
		// The first records only: one worker, small chunks, so that
		// little is read and folded ahead of the stop.
		f.Workers, f.chunk = 1, headChunk
	}
	sum, err := f.RunRecords(out, []collapse.Input{f.Input(in)})
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
