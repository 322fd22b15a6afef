// Package capture folds inputs of every kind into folded stacks, the way
// stackcollapse does: it feeds perf captures to the one collapse stage
// (pkg/collapse): perf.data files, read directly with pkg/perfdata and
// pkg/symbols, and the text of `perf script`, read with pkg/perfscript;
// and it converts pprof profiles (pkg/pprof) and bpftrace map dumps
// (pkg/bpftrace). Where the perf.data reader cannot print what perf script
// would (DWARF or LBR call graphs, pipe mode, a capture from another host
// without its binaries), it runs perf script on the file instead, when
// allowed to, and says so.
//
//	in, _ := source.Open("perf.data", source.Options{})
//	st, _ := collapse.New(os.Stdout, collapse.Options{})
//	f := capture.Folder{Stage: st, Perf: "perf"}
//	err := f.Data(in, "perf.data")
//	sum, err := st.Close()
//
// [Folded] gives any input as folded text, for the commands that read
// folded stacks (flamegraph, difffolded, timeslice).
package capture

import (
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"

	"flamekit/pkg/collapse"
	"flamekit/pkg/folded"
	"flamekit/pkg/perfdata"
	"flamekit/pkg/perfscript"
	"flamekit/pkg/source"
	"flamekit/pkg/source/decompress"
	"flamekit/pkg/symbols"
)

// DefaultResolver returns the Resolver with perf's default places
// (symbols.Options{}), made on first use and shared by every Folder that
// has none, so that a symbol table is loaded once per process however many
// perf.data files are read.
var DefaultResolver = sync.OnceValue(func() *symbols.Resolver {
	return symbols.NewResolver(symbols.Options{})
})

// Folder adds captures to a collapse stage, one input after the other.
type Folder struct {
	// Stage receives the samples; the caller closes it.
	Stage *collapse.Stage
	// Perf is the perf binary to run (perf script --header -i FILE) on a
	// perf.data file that the reader cannot read as perf does; "" never
	// runs perf, and such a file is an error.
	Perf string
	// Resolver resolves addresses to symbols in perf.data files; nil
	// means DefaultResolver.
	Resolver *symbols.Resolver
	// AllowForeign reads a capture made on another host whose binaries
	// are not here, their frames [unknown] (as perf script here would
	// print them), instead of running perf script on it.
	AllowForeign bool
	// Warnf prints a message on standard error (may be nil): why perf
	// script is run, what a perf.data file held that was skipped, and the
	// lines of perf script text that were not read.
	Warnf func(format string, args ...any)
	// Skipped counts the lines of perf script text that were not read,
	// and Frameless the perf.data samples left out because perf script
	// prints them without frames (an event recorded without -g whose
	// samples have no ip).
	Skipped   folded.Skips
	Frameless int64
}

func (f *Folder) warnf(format string, args ...any) {
	if f.Warnf != nil {
		f.Warnf(format, args...)
	}
}

// Data folds the perf.data file in as one input; srcName is its name in
// the metadata ("" for none). A compressed file, or one on standard input
// or a pipe, is read from a decompressed copy (see source.Input.Path).
func (f *Folder) Data(in *source.Input, srcName string) error {
	if f.Resolver == nil {
		f.Resolver = DefaultResolver()
	}
	path := in.Display
	file, err := in.Path()
	if err != nil {
		return err
	}
	r, err := perfdata.Open(file, perfdata.Options{Symbolizer: f.Resolver, AllowForeign: f.AllowForeign})
	var unsupported *perfdata.UnsupportedError
	if errors.As(err, &unsupported) {
		if f.Perf == "" {
			return fmt.Errorf("%s: %s: needs perf script; %s | stackcollapse, or allow stackcollapse to run it (without --no-perf)", path, unsupported.Reason, scriptAdvice(in))
		}
		f.warnf("%s: %s: reading it with %s script instead", path, unsupported.Reason, f.Perf)
		return f.script(file, path, srcName)
	}
	err = named(err, file, path)
	if err != nil {
		return err
	}
	defer r.Close()
	st := f.Stage
	st.Begin(r.Capture(), srcName)
	frameless := int64(0)
	for r.Next() {
		s := r.Sample()
		if !r.PrintsFrames() {
			// perf script prints such a sample (an event recorded
			// without a call graph and without an ip) on one indented
			// line, which stackcollapse-perf.pl does not read.
			frameless++
			continue
		}
		if err := st.Add(s); err != nil {
			return err
		}
	}
	if err := r.Err(); err != nil {
		st.End()
		return named(err, file, path)
	}
	if d := r.Damage(); d != nil && d.Samples == 0 {
		st.End()
		return fmt.Errorf("%s: %s", path, d)
	}
	if err := st.End(); err != nil {
		return err
	}
	f.Frameless += frameless
	if d := r.Damage(); d != nil {
		f.warnf("%s: %s", path, d)
	}
	f.report(path, r.Stats(), frameless)
	return nil
}

// report says what the reader skipped or perf lost, so that nothing is
// left out without a word.
func (f *Folder) report(path string, s perfdata.Stats, frameless int64) {
	var parts []string
	add := func(n int64, what string) {
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, what))
		}
	}
	add(frameless, "samples without an ip or call graph left out (perf script prints them on one line, which stackcollapse-perf.pl does not read)")
	add(s.DroppedChains, "call chains dropped as perf drops them (a bad context marker)")
	add(s.GuestSamples, "samples of a virtual machine's guest left out, as perf script does")
	add(s.Lost, "events lost by the kernel while recording (LOST records)")
	add(s.LostSamples, "samples lost by the kernel while recording")
	add(s.Unknown, "records of unknown types skipped")
	if len(parts) > 0 {
		f.warnf("%s: %s", path, strings.Join(parts, "; "))
	}
}

// named makes the perf.data reader's error name the input as the user
// named it, rather than the decompressed copy read.
func named(err error, file, path string) error {
	var fe *perfdata.FormatError
	if errors.As(err, &fe) && fe.File == file {
		fe.File = path
	}
	var ue *perfdata.UnsupportedError
	if errors.As(err, &ue) && ue.File == file {
		ue.File = path
	}
	return err
}

// scriptAdvice says how to run perf script on the input.
func scriptAdvice(in *source.Input) string {
	switch {
	case in.Stream:
		return "save it to a file and run perf script --header -i FILE"
	case in.Method != decompress.None:
		name := in.Name
		for _, ext := range []string{".gz", ".zst", ".zstd"} {
			name = strings.TrimSuffix(name, ext)
		}
		if name == in.Name {
			name += ".data"
		}
		return fmt.Sprintf("decompress it (%s -dc %s > %s) and run perf script --header -i %s", in.Method, in.Name, name, name)
	}
	return "run perf script --header -i " + in.Name
}

// script folds the text perf script prints for the perf.data file at file
// (path as the user named it).
func (f *Folder) script(file, path, srcName string) error {
	cmd := exec.Command(f.Perf, "script", "--header", "-i", file)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("%s: running %s script: %w (install perf, or run perf script where the capture was made)", path, f.Perf, err)
	}
	ferr := f.Text(out, path, srcName)
	if ferr != nil {
		cmd.Process.Kill() // the output failed, or the reader stopped: perf's text is not wanted
		io.Copy(io.Discard, out)
	}
	werr := cmd.Wait()
	if ferr != nil {
		return ferr
	}
	if werr != nil {
		return fmt.Errorf("%s: %s script failed: %w: %s", path, f.Perf, werr, strings.TrimSpace(stderr.String()))
	}
	return nil
}

// Text folds perf script text read from r as one input: name names it in
// messages, source in the metadata ("" for none). It reads sequentially;
// perfscript.Collapser folds text on every core when no other kind of
// input is in the same run.
func (f *Folder) Text(r io.Reader, name, srcName string) error {
	st := f.Stage
	rd := perfscript.NewReader(r, name)
	begun := false
	for rd.Next() {
		if !begun {
			// The capture's facts are complete once the first sample
			// is read.
			st.Begin(rd.Capture(), srcName)
			begun = true
		}
		if err := st.Add(rd.Sample()); err != nil {
			return err
		}
	}
	if !begun {
		st.Begin(rd.Capture(), srcName)
	}
	if err := rd.Err(); err != nil {
		st.End()
		return err
	}
	if sk := rd.Skips(); sk.Count > 0 {
		f.Skipped.Merge(sk)
		f.warnf("%s", sk)
	}
	return st.End()
}
