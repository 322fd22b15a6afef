package window

import (
	"errors"
	"fmt"

	"flamekit/pkg/fold/capture"
	"flamekit/pkg/folded"
	"flamekit/pkg/source"
)

// Input is one input of a run: a regular file, which can be read again,
// or a stream (standard input, a pipe, a FIFO), which can be read once,
// and is copied as it is first read when a window needs two passes (see
// Survey). Inputs are opened through package source. What reading it
// found (its metadata lines and the span of its samples) is kept on it,
// for the window and the messages.
type Input struct {
	// Name is the name given on the command line ("-" is standard input).
	Name string
	// Display is the name shown in messages ("<stdin>" for "-").
	Display string
	// Metas are the metadata lines read from the input.
	Metas []folded.Meta
	// Seen is the span of the timed samples read, and Samples their
	// number; Kept is the number a Slicer kept.
	Seen          folded.Span
	Samples, Kept int64
	// Untimed counts the lines without a time (classic or differential).
	Untimed folded.Skips
	// Read is set once the input has been read whole.
	Read bool

	head head // what Heads read

	src  *source.Input   // nil when opening failed
	err  error           // why opening failed, reported when the input is read
	fold capture.Options // how an input that is not folded stacks is folded (capture.Scan)
}

// FromSource returns the input of src, read as folded records through
// capture.Scan each time it is read: folded stacks as they are, perf
// captures folded with o (into timed records, unless o.Collapse.NoTime),
// pprof profiles and bpftrace dumps converted.
func FromSource(src *source.Input, o capture.Options) *Input {
	return &Input{Name: src.Name, Display: src.Display, src: src, fold: o}
}

// Inputs are the inputs of one run, in the order they were named.
type Inputs []*Input

// Close removes the copies of streams (see source.Input.Close).
func (ins Inputs) Close() error {
	var errs []error
	for _, in := range ins {
		if in.src != nil {
			errs = append(errs, in.src.Close())
		}
	}
	return errors.Join(errs...)
}

// stream reports whether the input can be read only once: a stream not
// copied whole yet (see Spool).
func (in *Input) stream() bool { return in.src != nil && in.src.Stream && !in.src.Rereadable() }

// reset forgets what an earlier read found, before the input is read again.
func (in *Input) reset() {
	in.Metas, in.Seen, in.Samples, in.Kept, in.Untimed, in.Read = nil, folded.Span{}, 0, 0, folded.Skips{}, false
}

// String describes the input and the span of its samples, for messages.
func (in *Input) String() string {
	switch {
	case !in.Read:
		return in.Display + " (not read)"
	case !in.Seen.OK:
		return in.Display + " (no timed samples)"
	}
	return fmt.Sprintf("%s @%v to @%v (%s s, %d samples)", in.Display, in.Seen.First, in.Seen.Last, formatSeconds(in.Seen.Last-in.Seen.First), in.Samples)
}

// head is what the start of an input says: the metadata lines before its
// first timed line, and that line's time.
type head struct {
	metas []folded.Meta
	first folded.Time
	ok    bool // first is set
	read  bool // the head was read
}

// headLookahead is how many untimed lines Heads reads before it gives up
// looking for the first timed one.
const headLookahead = 1000

// Heads reads the first lines of each input that can be read again (files),
// up to its first timed line: enough for Clock to guess where relative
// times start and how to reach the wall clock, before the inputs are read
// whole. Streams are left alone. The guess is only a guess: a later part
// of an input may hold earlier samples or other captures, which only a
// full read shows (see Clock).
func (ins Inputs) Heads() error {
	for _, in := range ins {
		if in.stream() || in.Read || in.head.read {
			continue
		}
		n := 0
		sc := in.scan(scanOptions{head: true}, nil, func(rec *folded.Record, _ int, _ []byte) error {
			if rec.Kind == folded.Timed {
				in.head.first, in.head.ok = rec.Time, true
				return errStop
			}
			if n++; n == headLookahead {
				return errStop
			}
			return nil
		})
		if sc.err != nil {
			return sc.err
		}
		in.head.metas, in.head.read = sc.metas, true
	}
	return nil
}

// HasStream reports whether an input can be read only once.
func (ins Inputs) HasStream() bool {
	for _, in := range ins {
		if in.stream() {
			return true
		}
	}
	return false
}

// Spool copies every stream whole into a temporary file in dir ("" means
// os.TempDir()) before anything reads it, as bytes (nothing is parsed), so
// that it reads as a file from then on: Heads reads its first lines, a
// Slicer reads it whole, and again. Files are left alone.
func (ins Inputs) Spool(dir string) error {
	for _, in := range ins {
		if !in.stream() || in.err != nil {
			continue
		}
		if dir != "" {
			in.src.TempDir = dir
		}
		if err := in.src.Spool(); err != nil {
			return err
		}
	}
	return nil
}

// Survey reads every input whole, once, for what a window needs to be
// placed: the first sample of all (relative windows) and the clock
// references (wall-clock windows) of every capture, wherever they are in
// the input. Streams are copied into a temporary file in dir ("" means
// os.TempDir()) as they are read, so that a Slicer can read them again.
func (ins Inputs) Survey(dir string) error {
	for _, in := range ins {
		if err := in.survey(dir); err != nil {
			return err
		}
	}
	return nil
}

func (in *Input) survey(dir string) error {
	in.reset()
	if in.stream() {
		if dir != "" {
			in.src.TempDir = dir
		}
		in.src.Keep()
	}
	sc := in.scan(scanOptions{drain: in.stream()}, nil, func(rec *folded.Record, line int, text []byte) error {
		if rec.Kind == folded.Timed {
			in.Seen.Add(rec.Time)
			in.Samples++
		} else {
			in.Untimed.Note(in.Display, line, lineText(rec, text), errUntimed)
		}
		return nil
	})
	if sc.err != nil {
		return sc.err
	}
	in.Metas = sc.metas
	in.Read = true
	return nil
}
