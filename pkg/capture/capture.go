// Package capture feeds captures of every kind perf users bring to the one
// fold driver (collapse.Driver): perf.data files, read directly with
// pkg/perfdata and pkg/symbols, and the text of `perf script`, read with
// pkg/perfscript, any mix of them in one run, folded on every core. Where
// the perf.data reader cannot print what perf script would (DWARF or LBR
// call graphs, pipe mode, a capture from another host without its
// binaries), it runs perf script on the file instead, when allowed to,
// and says so.
//
//	f := &capture.Folder{Perf: "perf"}
//	sum, err := f.Run(os.Stdout, []collapse.Input{f.Data("perf.data", "perf.data")})
package capture

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"

	"flamekit/pkg/collapse"
	"flamekit/pkg/folded"
	"flamekit/pkg/perfdata"
	"flamekit/pkg/perfscript"
	"flamekit/pkg/sample"
	"flamekit/pkg/symbols"
)

// DefaultResolver returns the Resolver with perf's default places
// (symbols.Options{}), made on first use and shared by every Folder that
// has none, so that a symbol table is loaded once per process however many
// perf.data files are read.
var DefaultResolver = sync.OnceValue(func() *symbols.Resolver {
	return symbols.NewResolver(symbols.Options{})
})

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
	sum, err := f.Driver.Run(w, inputs)
	for _, t := range f.texts {
		if sk := t.Skips(); sk.Count > 0 {
			f.Skipped.Merge(sk)
			f.warnf("%s", sk)
		}
	}
	f.texts = nil
	return sum, err
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

// Data returns the input of the perf.data file at path (gzipped or not);
// source is its name in the metadata ("" for none).
func (f *Folder) Data(path, source string) collapse.Input {
	return collapse.Input{Name: path, Source: source, Open: func() (collapse.Producer, error) {
		return f.openData(path)
	}}
}

// openData opens the perf.data file at path: its reader, or perf script's
// text when the reader cannot read it as perf does.
func (f *Folder) openData(path string) (collapse.Producer, error) {
	if f.Resolver == nil {
		f.Resolver = DefaultResolver()
	}
	file, cleanup, err := gunzipped(path)
	if err != nil {
		return nil, err
	}
	r, err := perfdata.Open(file, perfdata.Options{Symbolizer: f.Resolver, AllowForeign: f.AllowForeign})
	var unsupported *perfdata.UnsupportedError
	if errors.As(err, &unsupported) {
		if f.Perf == "" {
			cleanup()
			return nil, fmt.Errorf("%w; run perf script --header -i %s | stackcollapse, or allow stackcollapse to run it (without --no-perf)", err, path)
		}
		f.warnf("%s: %s: reading it with %s script instead", path, unsupported.Reason, f.Perf)
		return f.script(file, path, cleanup)
	}
	if err != nil {
		cleanup()
		return nil, err
	}
	return &dataProducer{f: f, r: r, path: path, cleanup: cleanup, free: make(chan *dataChunk, 64)}, nil
}

// chunkSamples is how many samples of a perf.data file a chunk holds (a
// variable for the tests).
var chunkSamples = 2048

// dataProducer cuts the samples of a perf.data file into chunks: the
// reading of records, their time order and the resolution of addresses
// run on the reading goroutine; the folding of the samples on workers.
type dataProducer struct {
	f         *Folder
	r         *perfdata.Reader
	path      string
	cleanup   func()
	pending   bool // the reader's current sample goes first in the next chunk
	end       bool
	frameless int64
	free      chan *dataChunk
}

// dataChunk is a run of samples of a perf.data file.
type dataChunk struct {
	p       *dataProducer
	samples perfdata.Samples
	s       sample.Sample
}

func (c *dataChunk) Fold(k *collapse.Sink) {
	for i := range c.samples.Len() {
		c.samples.Sample(i, &c.s)
		k.Add(&c.s)
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
	for c.samples.Len() < chunkSamples {
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
		err = r.Err()
	}
	if d := r.Damage(); p.end && err == nil && d != nil && d.Samples == 0 {
		err = fmt.Errorf("%s: %s", p.path, d)
	}
	if c.samples.Len() == 0 {
		return nil, err
	}
	return c, err
}

func (p *dataProducer) Capture() *sample.Capture { return p.r.Capture() }

func (p *dataProducer) Close() error {
	r := p.r
	err := r.Close()
	p.cleanup()
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
}

// script returns the producer of the text perf script prints for the
// perf.data file at file (path as the user named it).
func (f *Folder) script(file, path string, cleanup func()) (collapse.Producer, error) {
	cmd := exec.Command(f.Perf, "script", "--header", "-i", file)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		cleanup()
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		cleanup()
		return nil, fmt.Errorf("%s: running %s script: %w (install perf, or run perf script where the capture was made)", path, f.Perf, err)
	}
	return f.text(&scriptOutput{ReadCloser: out, cmd: cmd, stderr: &stderr, path: path, perf: f.Perf, cleanup: cleanup}, path), nil
}

// scriptOutput is the output of perf script; closing it waits for perf.
type scriptOutput struct {
	io.ReadCloser
	cmd     *exec.Cmd
	stderr  *strings.Builder
	path    string
	perf    string
	cleanup func()
}

func (s *scriptOutput) Close() error {
	io.Copy(io.Discard, s.ReadCloser) // let perf finish
	err := s.cmd.Wait()
	s.cleanup()
	if err != nil {
		return fmt.Errorf("%s: %s script failed: %w: %s", s.path, s.perf, err, strings.TrimSpace(s.stderr.String()))
	}
	return nil
}

// gunzipped returns the name of the perf.data file at path, or of a
// temporary gunzipped copy of it when it is gzipped (the reader reads a
// file at offsets), and what removes the copy.
func gunzipped(path string) (string, func(), error) {
	f, err := os.Open(path)
	if err != nil {
		return "", nil, err
	}
	defer f.Close()
	var magic [2]byte
	if n, _ := io.ReadFull(f, magic[:]); n < 2 || magic != [2]byte{0x1f, 0x8b} {
		return path, func() {}, nil
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return "", nil, err
	}
	rc, err := folded.Decompress(f)
	if err != nil {
		return "", nil, fmt.Errorf("%s: %w", path, err)
	}
	tmp, err := os.CreateTemp("", "stackcollapse-*.data")
	if err != nil {
		return "", nil, fmt.Errorf("%s: a gunzipped copy is needed to read it: %w", path, err)
	}
	cleanup := func() { tmp.Close(); os.Remove(tmp.Name()) }
	if _, err := io.Copy(tmp, rc); err != nil {
		cleanup()
		return "", nil, fmt.Errorf("%s: %w", path, err)
	}
	return tmp.Name(), cleanup, nil
}

// Folded returns the timed folded stacks of the perf.data file at path, as
// stackcollapse writes them, folded with opt on other goroutines as they
// are read: for readers of folded stacks (timeslice) given a perf.data
// file. perf is as in Folder. The messages of a complete read go to warnf
// once the fold has ended; closing the reader before its end stops the
// folding, and its messages (about a part of the file) are dropped.
func Folded(path string, opt collapse.Options, perf string, warnf func(string, ...any)) io.ReadCloser {
	pr, pw := io.Pipe()
	go func() {
		var msgs []string
		keep := func(format string, args ...any) { msgs = append(msgs, fmt.Sprintf(format, args...)) }
		f := &Folder{Driver: collapse.Driver{Options: opt, Warnf: keep}, Perf: perf}
		_, err := f.Run(pw, []collapse.Input{f.Data(path, path)})
		if err == nil && warnf != nil {
			for _, m := range msgs {
				warnf("%s", m)
			}
		}
		pw.CloseWithError(err) // nil: the reader sees io.EOF
	}()
	return pr
}
