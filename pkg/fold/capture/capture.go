// Package capture folds inputs of every kind into folded stacks, the way
// stackcollapse does: it makes perf captures inputs of the one fold driver
// (collapse.Driver), folded on every core, any mix of them in one run:
// perf.data files, read directly with pkg/perf/perfdata and pkg/perf/symbols, and
// the text of `perf script`, read with pkg/perf/perfscript; and it converts
// pprof profiles (pkg/interop/pprof) and bpftrace map dumps (pkg/interop/bpftrace). Where
// the perf.data reader cannot print what perf script would (DWARF or LBR
// call graphs, pipe mode, a capture from another host without its
// binaries), it runs perf script on the file instead, when allowed to, and
// says so.
//
//	in, _ := source.Open("perf.data", source.Options{})
//	f := &capture.Folder{Perf: "perf"}
//	sum, err := f.Run(os.Stdout, []collapse.Input{f.Data(in, "perf.data")})
//
// Every tool reads its inputs through [Scan] (one input) or a [Reader]
// (several, one after another): the one table of how each kind of input
// becomes folded records, without folded text in between. [Folder.Run]
// writes the folded text itself, for stackcollapse, whose output it is.
package capture

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"flamekit/pkg/fold/collapse"
	"flamekit/pkg/folded"
	"flamekit/pkg/perf/debuginfod"
	"flamekit/pkg/perf/perfdata"
	"flamekit/pkg/perf/perfscript"
	"flamekit/pkg/perf/sample"
	"flamekit/pkg/perf/symbols"
	"flamekit/pkg/perf/unwind"
	"flamekit/pkg/source"
	"flamekit/pkg/source/decompress"
)

// DefaultResolver returns the Resolver with perf's default places
// (symbols.Options{}), made on first use and shared by every Folder that
// has none, so that a symbol table is loaded once per process however many
// perf.data files are read.
var DefaultResolver = sync.OnceValue(func() *symbols.Resolver {
	return NewResolver(SymbolConfig{})
})

// SymbolConfig says where symbols come from beyond perf's default
// places; the zero value is the default.
type SymbolConfig struct {
	// NoDebuginfod never asks debuginfod servers (--no-debuginfod), even
	// when DEBUGINFOD_URLS names some.
	NoDebuginfod bool
	// Force reads perf maps and jitdump files whoever owns them
	// (--force, perf's -f).
	Force bool
	// Getenv reads DEBUGINFOD_URLS and the rest (nil: os.Getenv).
	Getenv func(string) string
	// Progress shows debuginfod's downloads, when it is a terminal.
	Progress io.Writer
}

// NewResolver returns a Resolver with perf's default places and what c
// adds: debuginfod as elfutils' environment configures it.
func NewResolver(c SymbolConfig) *symbols.Resolver {
	opts := symbols.Options{Force: c.Force, TableCache: tableCache(c.Getenv)}
	if !c.NoDebuginfod {
		cfg := debuginfod.FromEnv(c.Getenv)
		if len(cfg.URLs) > 0 {
			cfg.BuildID = symbols.FileBuildID
			if isTerminal(c.Progress) {
				cfg.Progress = c.Progress
			}
			opts.Debuginfod = debuginfod.New(cfg)
		}
	}
	return symbols.NewResolver(opts)
}

// tableCache returns the cache of symbol tables the environment asks
// for: FLAMEKIT_CACHE names flamekit's cache directory ("off" for none),
// else symbols.DefaultCacheDir's is used, the tables kept in its
// "symbols" directory. A test binary (go test names it pkg.test, or
// pkg.test.exe) uses none unless FLAMEKIT_CACHE says so: tests do not
// write to the user's cache. (testing.Testing would tell as well, but
// links the testing package, its flags and runtime/trace into every
// tool.) nil when there is none or the directory is not private to the
// user (see symbols.OpenTableCache).
func tableCache(getenv func(string) string) *symbols.TableCache {
	if getenv == nil {
		getenv = os.Getenv
	}
	dir := getenv("FLAMEKIT_CACHE")
	switch {
	case dir == "off":
		return nil
	case dir == "" && strings.HasSuffix(strings.TrimSuffix(os.Args[0], ".exe"), ".test"):
		return nil
	case dir == "":
		if dir = symbols.DefaultCacheDir(getenv); dir == "" {
			return nil
		}
	}
	c, err := symbols.OpenTableCache(filepath.Join(dir, "symbols"))
	if err != nil {
		return nil
	}
	return c
}

// ResolverFor returns NewResolver(c), or the shared DefaultResolver when
// c asks for nothing it does not give (no flag set, no progress to show).
func ResolverFor(c SymbolConfig) *symbols.Resolver {
	getenv := c.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	if !c.NoDebuginfod && !c.Force && (!isTerminal(c.Progress) || getenv("DEBUGINFOD_URLS") == "") &&
		getenv("DEBUGINFOD_URLS") == os.Getenv("DEBUGINFOD_URLS") {
		return DefaultResolver()
	}
	return NewResolver(c)
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// Folder makes the inputs of a collapse.Driver from captures, and runs it.
type Folder struct {
	// Driver folds the inputs: its options, workers and Warnf, which
	// also prints why perf script is run, what a perf.data file held
	// that was skipped, and the lines of perf script text that were not
	// read.
	collapse.Driver
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
	// Skipped counts the lines of perf script text that were not read,
	// and Frameless the perf.data samples left out because perf script
	// prints them without frames (an event recorded without -g whose
	// samples have no ip); complete once Run returns.
	Skipped   folded.Skips
	Frameless int64

	texts []*perfscript.Text
	// inline: the recorded build-ids of perf.data inputs' objects, for
	// --inline (inline.go).
	inline inlineObjects
	// chunk is how many samples of a perf.data file a chunk holds (0:
	// chunkSamples); a head scan takes small ones, as it stops at its
	// first records while the workers fold the chunks read ahead.
	chunk int
}

func (f *Folder) warnf(format string, args ...any) {
	if f.Warnf != nil {
		f.Warnf(format, args...)
	}
}

// Run folds the inputs (made by f.Data and f.Text) in order, as one
// stream, and writes the folded output to w; see collapse.Driver.Run.
func (f *Folder) Run(w io.Writer, inputs []collapse.Input) (collapse.Summary, error) {
	f.texts = f.texts[:0]
	f.prepare()
	sum, err := f.Driver.Run(w, inputs)
	f.noteSkips()
	f.noteRefused()
	return sum, err
}

// noteRefused says which files the capture named (perf maps, jitdump
// files, binaries) were refused as unsafe to read, each once however many
// inputs and readings share the Resolver.
func (f *Folder) noteRefused() {
	for _, err := range f.Resolver.TakeRefused() {
		f.warnf("%v", err)
	}
}

// prepare sets the Resolver (DefaultResolver when none) and lets the
// symbol check name why objects have no symbols (Resolver.Why).
func (f *Folder) prepare() {
	if f.Resolver == nil {
		f.Resolver = DefaultResolver()
	}
	if f.WhyNoSymbols == nil {
		f.WhyNoSymbols = f.Resolver.Why
	}
	f.prepareInline()
}

// noteSkips counts and reports the lines of perf script text not read.
func (f *Folder) noteSkips() {
	for _, t := range f.texts {
		if sk := t.Skips(); sk.Count > 0 {
			f.Skipped.Merge(sk)
			f.warnf("%s", sk)
		}
	}
	f.texts = nil
}

// Text returns the input of the perf script text that open opens (plain
// text): name names it in messages, source in the metadata ("" for
// none).
func (f *Folder) Text(name, source string, open func() (io.ReadCloser, error)) collapse.Input {
	return collapse.Input{Name: name, Source: source, Open: func() (collapse.Producer, error) {
		rc, err := open()
		if err != nil {
			return nil, err
		}
		return f.text(rc, name), nil
	}}
}

func (f *Folder) text(rc io.ReadCloser, name string) *perfscript.Text {
	t := perfscript.NewText(rc, name, f.Srcline)
	f.texts = append(f.texts, t)
	return t
}

// Data returns the input of the perf.data file in; srcName is its name in
// the metadata ("" for none). A compressed file, or one on standard input
// or a pipe, is read from a decompressed copy (see source.Input.Path).
func (f *Folder) Data(in *source.Input, srcName string) collapse.Input {
	return collapse.Input{Name: in.Display, Source: srcName, Open: func() (collapse.Producer, error) {
		return f.openData(in)
	}}
}

// openData opens the perf.data file in: its reader, or perf script's text
// when the reader cannot read it as perf does.
func (f *Folder) openData(in *source.Input) (collapse.Producer, error) {
	if f.Resolver == nil {
		f.Resolver = DefaultResolver()
	}
	path := in.Display
	file, err := in.Path()
	if err != nil {
		return nil, err
	}
	if cut := in.Cut(); cut != nil {
		f.warnf("%s: %v: reading the perf.data it holds up to the cut", path, cut)
	}
	opt := perfdata.Options{Symbolizer: f.Resolver, AllowForeign: f.AllowForeign}
	// A copy (gzipped, standard input) is dated as the capture, or not
	// at all: never by the time of copying.
	if t, ok := in.ModTime(); ok {
		opt.ModTime = t
	} else {
		opt.NoModTime = true
	}
	r, err := perfdata.Open(file, opt)
	var unsupported *perfdata.UnsupportedError
	if errors.As(err, &unsupported) {
		if f.Perf == "" {
			return nil, fmt.Errorf("%s: %s: needs perf script; %s | stackcollapse, or allow stackcollapse to run it (without --no-perf)", path, unsupported.Reason, scriptAdvice(in))
		}
		f.warnf("%s: %s: reading it with %s script instead", path, unsupported.Reason, f.Perf)
		if unsupported.Pipe {
			f.pipeCut(file, path)
		}
		return f.script(file, path)
	}
	if err != nil {
		return nil, named(err, file, path)
	}
	r.DeferFrames()
	f.noteInline(r)
	return &dataProducer{f: f, r: r, file: file, path: path, free: make(chan *dataChunk, 64)}, nil
}

// chunkSamples is how many samples of a perf.data file a chunk holds (a
// variable for the tests). About ten chunks are in flight (read ahead,
// folding, waiting to be written), each with its samples and its folded
// text, whose memory is reused from chunk to chunk: small chunks keep it
// small, and memory a process has not touched costs a page fault per
// page. 512 samples of a system-wide capture fold to about 180 KB of
// timed lines; 2048 made 4,000 more page faults (16 MB) on a 10 MB
// capture.
var chunkSamples = 512

// chunkStackBytes bounds the user stack dumps a chunk of --call-graph
// dwarf samples holds for the workers to unwind (perfdata.DeferFrames),
// in the reader's memory until the chunk is folded: about 80 samples of
// 8 KB dumps, where 512 would hold 4 MB, ten chunks in flight, and
// memory touched costs (see perfdata's smallBuffers): stackcollapse on a
// 494 MB dwarf capture touched 58 MB with 1 MB chunks, 47 with 512 KB.
// Smaller chunks cost more hand-overs to the workers.
var chunkStackBytes = 512 << 10

// headChunk is the chunk of a head scan (ScanOptions.Head).
const headChunk = 128

// dataProducer cuts the samples of a perf.data file into chunks: the
// reading of records, their time order and the side-band records (maps,
// threads) run on the reading goroutine; the resolution of addresses
// (deferred frames, one perfdata.FrameCache per worker) and the folding
// of the samples on workers.
type dataProducer struct {
	f         *Folder
	r         *perfdata.Reader
	file      string // read (a decompressed copy, maybe)
	path      string // as the user named it
	pending   bool   // the reader's current sample goes first in the next chunk
	end       bool
	frameless int64
	free      chan *dataChunk

	mu     sync.Mutex
	caches []*perfdata.FrameCache // by worker number
	// folding counts the chunks given out and not yet folded: the
	// workers unwind the user stacks of --call-graph dwarf samples, whose
	// stops the reader's Stats count once they are all folded.
	folding sync.WaitGroup
}

// cache returns the FrameCache of worker w.
func (p *dataProducer) cache(w int) *perfdata.FrameCache {
	p.mu.Lock()
	defer p.mu.Unlock()
	for len(p.caches) <= w {
		p.caches = append(p.caches, nil)
	}
	if p.caches[w] == nil {
		p.caches[w] = p.r.NewFrameCache()
	}
	return p.caches[w]
}

// dataChunk is a run of samples of a perf.data file.
type dataChunk struct {
	p       *dataProducer
	samples perfdata.Samples
	s       sample.Sample
	addrs   folded.Addrs // foldAddrs' scratch
}

func (c *dataChunk) Fold(k *collapse.Sink) {
	defer c.p.folding.Done()
	fc := c.p.cache(k.Worker())
	if c.p.f.Options.Addresses {
		c.foldAddrs(k, fc) // addrs.go
		return
	}
	for i := range c.samples.Len() {
		c.samples.Head(i, &c.s)
		k.AddChain(&c.s, fc.Chain(&c.samples, i), fc)
	}
}

func (c *dataChunk) Done() {
	c.samples.Reset()
	select {
	case c.p.free <- c:
	default:
	}
}

func (p *dataProducer) Next(pre *collapse.Prescan) (collapse.Chunk, error) {
	if p.end {
		return nil, nil
	}
	var c *dataChunk
	select {
	case c = <-p.free:
	default:
		c = &dataChunk{p: p}
	}
	r := p.r
	size := p.f.chunk
	if size <= 0 {
		size = chunkSamples
	}
	for c.samples.Len() < size && c.samples.StackBytes() < chunkStackBytes {
		if !p.pending {
			if !r.Next() {
				p.end = true
				break
			}
			if !r.PrintsFrames() {
				// perf script prints such a sample (an event recorded
				// without a call graph and without an ip) on one
				// indented line, which stackcollapse-perf.pl does not
				// read.
				p.frameless++
				continue
			}
		}
		p.pending = false
		if pre.Wanted() && !pre.See(r.Head()) {
			p.pending = true
			break
		}
		r.Keep(&c.samples)
	}
	var err error
	if p.end {
		err = named(r.Err(), p.file, p.path)
	}
	if d := r.Damage(); p.end && err == nil && d != nil && d.Samples == 0 {
		err = fmt.Errorf("%s: %s", p.path, d)
	}
	if c.samples.Len() == 0 {
		return nil, err
	}
	p.folding.Add(1)
	return c, err
}

func (p *dataProducer) Capture() *sample.Capture { return p.r.Capture() }

func (p *dataProducer) Close() error {
	r := p.r
	p.folding.Wait() // for the Stats of what the workers unwound
	err := r.Close()
	d := r.Damage()
	if p.end && r.Err() == nil && (d == nil || d.Samples > 0) {
		p.f.Frameless += p.frameless
		if d != nil {
			p.f.warnf("%s: %s", p.path, d)
		}
		p.f.report(p.path, r.Stats(), p.frameless)
	}
	return err
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
	if n, causes := s.Unwind.Short(); n > 0 {
		f.warnf("%s: %d of the %d user stacks unwound from --call-graph dwarf stack dumps end before their outermost frame, as perf's unwinder ends them (%s)%s",
			path, n, s.Unwind.Total(), causes, unwindAdvice(&s.Unwind))
	}
}

// unwindAdvice says how to keep more of the stacks that the DWARF
// unwinder could not finish, for their most frequent causes.
func unwindAdvice(u *perfdata.UnwindStops) string {
	var tips []string
	if u[unwind.StackEnd] > 0 {
		tips = append(tips, "a larger stack dump keeps more frames: perf record --call-graph dwarf,16384 (at most 65528)")
	}
	if u[unwind.NoCFI]+u[unwind.NoObject] > 0 {
		tips = append(tips, "code without unwind tables (Go binaries, objects not on this machine) stops the unwind: record such programs with frame pointers (-g), or run perf archive where they were recorded")
	}
	if u[unwind.JIT] > 0 {
		tips = append(tips, "JIT code has no unwind tables: record JIT runtimes with frame pointers (-g)")
	}
	if u[unwind.Replaced] > 0 {
		tips = append(tips, "objects changed since the capture (another build-id): run perf archive where it was recorded")
	}
	if len(tips) == 0 {
		return ""
	}
	return "; " + strings.Join(tips, "; ")
}

// script returns the producer of the text perf script prints for the
// perf.data file at file (path as the user named it).
func (f *Folder) script(file, path string) (collapse.Producer, error) {
	cmd := exec.Command(f.Perf, "script", "--header", "-i", file)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: running %s script: %w (install perf, or run perf script where the capture was made)", path, f.Perf, err)
	}
	return f.text(&scriptOutput{ReadCloser: out, cmd: cmd, stderr: &stderr, path: path, perf: f.Perf}, path), nil
}

// pipeCut says when the pipe-mode perf.data file ends inside a record:
// perf script reads it to its last complete record without a word.
func (f *Folder) pipeCut(file, path string) {
	fh, err := os.Open(file)
	if err != nil {
		return // perf script will say
	}
	defer fh.Close()
	end, err := perfdata.ScanPipe(fh, path)
	if err == nil && end.Cut() {
		f.warnf("%s: cut short: the last %d bytes hold no complete record; the %d complete samples before them are read", path, end.Size-end.Complete, end.Samples)
	}
}

// scriptOutput is the output of perf script; closing it stops perf if it
// was not read to its end, and waits for it.
type scriptOutput struct {
	io.ReadCloser
	cmd    *exec.Cmd
	stderr *strings.Builder
	path   string
	perf   string
	eof    bool
}

func (s *scriptOutput) Read(p []byte) (int, error) {
	n, err := s.ReadCloser.Read(p)
	if err == io.EOF {
		s.eof = true
	}
	return n, err
}

func (s *scriptOutput) Close() error {
	if !s.eof {
		s.cmd.Process.Kill() // the output failed, or the reader stopped: perf's text is not wanted
	}
	io.Copy(io.Discard, s.ReadCloser)
	err := s.cmd.Wait()
	if err != nil && s.eof {
		return fmt.Errorf("%s: %s script failed: %w: %s", s.path, s.perf, err, strings.TrimSpace(s.stderr.String()))
	}
	return nil
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
