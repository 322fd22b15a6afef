package folded

// Units is the one units rule of every flamekit tool that reads several
// folded streams into one output (timeslice, flamegraph, stacktop,
// stackfilter, difffolded): the counts of all its inputs must measure the
// same thing (Measure.Same), as their metadata lines say; inputs that say
// nothing (no metadata: classic output, the Perl tools', a stream whose
// header was removed) are not checked. A tool starts each input with
// Input and gives it every metadata line as it is read (Meta), before
// the records that follow that line are used; the first error is a
// *MeasureError naming both inputs, the lines that say so and what each
// counts. The zero value is ready to use and checks that counts can be
// summed.
type Units struct {
	// Op is what the tool would do with the counts, for the message:
	// "summed" (""), or "compared" (difffolded).
	Op string

	m    Measure // what the inputs read so far measure
	ok   bool    // an input said so
	file string  // the input and line that said so first
	line int

	cur string // the current input
	own stream // what its lines say
	err error
}

// stream is what the metadata lines of one stream say its counts
// measure, line by line: a pprof sample type (a stream read back from
// pprof), which describes the whole stream, else what the lines that say
// (MeasureOf) say, which must agree.
type stream struct {
	pprof, plain         Measure
	pprofLine, plainLine int
	hasPprof, hasPlain   bool
}

// measure returns what the stream measures so far.
func (s *stream) measure() (Measure, int, bool) {
	if s.hasPprof {
		return s.pprof, s.pprofLine, true
	}
	return s.plain, s.plainLine, s.hasPlain
}

// Input starts the metadata of the next input, named file in messages.
func (u *Units) Input(file string) {
	u.cur, u.own = file, stream{}
}

// Meta adds one metadata line of the current input. It returns a
// *MeasureError when the input's counts now measure something other than
// those of the inputs before it, or than its own earlier lines (captures
// of different events concatenated in one stream); once Meta has failed,
// it returns that error again.
func (u *Units) Meta(m *Meta) error {
	if u.err != nil {
		return u.err
	}
	x, okX := MeasureOf(m)
	if !okX {
		return nil
	}
	s := &u.own
	if t, _ := m.Get(KeySampleType); t != "" {
		s.pprof, s.pprofLine, s.hasPprof = x, m.Line, true
	} else if !s.hasPlain {
		s.plain, s.plainLine, s.hasPlain = x, m.Line, true
	} else if !s.hasPprof && !s.plain.Same(x) {
		u.err = u.fail(s.plain, u.cur, s.plainLine, x, u.cur, m.Line)
		return u.err
	}
	own, line, _ := s.measure()
	switch {
	case !u.ok:
		u.m, u.ok, u.file, u.line = own, true, u.cur, line
	case !u.m.Same(own):
		u.err = u.fail(u.m, u.file, u.line, own, u.cur, line)
	}
	return u.err
}

// Add is Input(file) and Meta of each of metas: the metadata of an input
// read whole.
func (u *Units) Add(file string, metas []Meta) error {
	u.Input(file)
	for i := range metas {
		if err := u.Meta(&metas[i]); err != nil {
			return err
		}
	}
	return nil
}

// Measure returns what the inputs measure, and ok false when none of
// their metadata lines says.
func (u *Units) Measure() (m Measure, ok bool) { return u.m, u.ok }

// Err returns the first error of Meta.
func (u *Units) Err() error { return u.err }

func (u *Units) fail(a Measure, fileA string, lineA int, b Measure, fileB string, lineB int) error {
	return &MeasureError{A: a, B: b, FileA: fileA, LineA: lineA, FileB: fileB, LineB: lineB, Op: u.Op}
}
