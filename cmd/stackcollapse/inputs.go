package main

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"flamekit/internal/cli"
	"flamekit/pkg/bpftrace"
	"flamekit/pkg/detect"
	"flamekit/pkg/folded"
	"flamekit/pkg/pprof"
)

// source is one input with its kind, told by its content or by --format.
type source struct {
	name    string // as given: a path, or "-" for standard input
	display string // as messages name it
	kind    detect.Kind
	// open is the stream read for detection, kept for standard input
	// (which cannot be opened twice); files are opened again when read,
	// so that many inputs do not hold many decompressors at once.
	open io.ReadCloser
}

// reader returns the input's stream, opening the file again if needed.
func (s *source) reader(stdin io.Reader) (io.ReadCloser, error) {
	if s.open != nil {
		rc := s.open
		s.open = nil
		return rc, nil
	}
	return folded.OpenStdin(s.name, stdin)
}

// detectSource opens an input (gunzipping it) and tells its kind from its
// first bytes, or takes forced when it is not detect.Unknown. Text of no
// known kind is read as perf script text, which reports its unrecognised
// lines; binary data of no known kind is an error saying what was
// expected.
func detectSource(name string, stdin io.Reader, forced detect.Kind) (*source, error) {
	s := &source{name: name, display: folded.DisplayName(name)}
	rc, err := folded.OpenStdin(name, stdin)
	if err != nil {
		return nil, err
	}
	br := bufio.NewReaderSize(rc, detect.PeekSize)
	head, perr := br.Peek(detect.PeekSize)
	if perr != nil && perr != io.EOF && len(head) == 0 {
		rc.Close()
		return nil, fmt.Errorf("%s: %w", s.display, perr)
	}
	s.kind = forced
	if forced == detect.Unknown {
		s.kind = detect.Detect(head, perr == io.EOF)
		if s.kind == detect.Unknown && pprof.Sniff(head) {
			s.kind = detect.Pprof // pprof's own reader would take it
		}
		if s.kind == detect.Unknown && !detect.IsText(head) {
			rc.Close()
			_, err := detect.Check(head, perr == io.EOF, s.display)
			return nil, err
		}
	}
	if name == "-" {
		s.open = readCloser{br, rc}
	} else {
		rc.Close()
	}
	return s, nil
}

type readCloser struct {
	io.Reader
	io.Closer
}

// foldBpftrace writes the stacks of a bpftrace dump, summed and sorted.
func (c *command) foldBpftrace(env *cli.Env, s *source) error {
	rc, err := s.reader(env.Stdin)
	if err != nil {
		return err
	}
	defer rc.Close()
	opt := bpftrace.Options{Map: c.Map, Kernel: c.Kernel || c.All, Addrs: c.Addrs}
	sum, err := bpftrace.Collapse(rc, s.display, opt, env.Stdout)
	if err != nil {
		return err
	}
	if len(sum.Maps) == 0 && sum.Other > 0 {
		return fmt.Errorf("%s: no bpftrace map in it (%d lines, none \"@name[key]: value\"): is it what bpftrace printed?", s.display, sum.Other)
	}
	var others []string
	for _, m := range sum.Maps {
		if !m.Folded && m.Stacks {
			others = append(others, m.Name)
		}
	}
	if len(others) > 0 && c.Map == "" {
		env.Warnf("%s: folded map %s; %s also %s stacks (choose with --map)", s.display, sum.Map,
			strings.Join(others, ", "), map[bool]string{true: "has", false: "have"}[len(others) == 1])
	}
	if msg := sum.Skipped.String(); msg != "" {
		env.Warnf("%s", msg)
	}
	return nil
}

// passFolded copies already-folded input to the output, line by line:
// classic, differential and timed lines and metadata stay as they are
// (with --no-time, timed lines lose their time); malformed lines are
// skipped and counted.
func (c *command) passFolded(env *cli.Env, s *source) error {
	rc, err := s.reader(env.Stdin)
	if err != nil {
		return err
	}
	defer rc.Close()
	rd := folded.NewReader(rc, s.display)
	rd.Lenient = true
	w := folded.NewWriter(env.Stdout)
	metas := 0
	writeMetas := func() error {
		for ; metas < len(rd.Meta()); metas++ {
			if c.NoTime {
				continue
			}
			m := rd.Meta()[metas]
			if err := w.WriteMeta(&m); err != nil {
				return err
			}
		}
		return nil
	}
	for rd.Next() {
		if err := writeMetas(); err != nil {
			return err
		}
		rec := rd.Record()
		if c.NoTime && rec.Kind == folded.Timed {
			rec.Kind, rec.Time = folded.Classic, 0
		}
		if err := w.Write(rec); err != nil {
			return err
		}
	}
	if err := rd.Err(); err != nil {
		return err
	}
	if err := writeMetas(); err != nil {
		return err
	}
	if msg := rd.Skips().String(); msg != "" {
		env.Warnf("%s", msg)
	}
	return w.Flush()
}
