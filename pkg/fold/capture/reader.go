package capture

import (
	"iter"

	"flamekit/pkg/folded"
	"flamekit/pkg/source"
)

// Reader reads the folded records of several inputs of any kind, one
// after another, each through Scan: what flamegraph, difffolded,
// stackfilter and stacktop read.
//
//	r := capture.NewReader(ins, capture.Options{Perf: "perf"})
//	for rec := range r.All() { ... }
//	if err := r.Err(); err != nil { ... }
//	skipped := r.Skips()
type Reader struct {
	// Units is the units rule (folded.Units), given every input's
	// metadata lines as they are read: inputs whose counts measure
	// different things end the reading with its error. NewReader gives
	// each Reader its own; a tool reading its inputs with several Readers
	// shares one.
	Units *folded.Units

	ins   source.Inputs
	o     Options
	cur   *source.Input
	metas []folded.Meta
	skips folded.Skips
	err   error
}

// NewReader returns a Reader of ins, folded with o where they are not
// folded stacks.
func NewReader(ins source.Inputs, o Options) *Reader {
	return &Reader{ins: ins, o: o, Units: new(folded.Units)}
}

// All returns the records of every input in order. A record and its Stack
// are valid for one step. The iteration ends at the first error, which Err
// then returns; it can be run once.
func (r *Reader) All() iter.Seq[*folded.Record] {
	return func(yield func(*folded.Record) bool) {
		for _, in := range r.ins {
			if r.err != nil {
				return
			}
			r.cur = in
			r.Units.Input(in.Display)
			stopped := false
			sc, err := Scan(in, r.o, ScanOptions{Meta: r.Units.Meta}, func(rec *folded.Record, _ int, _ []byte) error {
				if !yield(rec) {
					stopped = true
					return ErrStop
				}
				return nil
			})
			r.metas = append(r.metas, sc.Metas...)
			r.skips.Merge(sc.Skips)
			r.err = err
			if stopped {
				return
			}
		}
		r.cur = nil
	}
}

// Input returns the input being read during All (nil after it).
func (r *Reader) Input() *source.Input { return r.cur }

// Err returns the first error met.
func (r *Reader) Err() error { return r.err }

// Skips returns the malformed lines skipped in the inputs read so far.
func (r *Reader) Skips() folded.Skips { return r.skips }

// Metas returns the metadata lines of the inputs read so far.
func (r *Reader) Metas() []folded.Meta { return r.metas }
