package collapse

import (
	"errors"
	"io"
	"slices"
)

// ClassicTail is the classic sums of inputs folded by FoldClassic, kept so
// that the tail of a classic run (sorting the sums and writing them) can
// be timed alone, again and again (BenchmarkClassicTail).
type ClassicTail struct {
	st    *stage
	slots [shards][]keySlot
	ids   [shards][]uint32
	used  [shards]int
}

// FoldClassic folds the inputs with d's options and NoTime, and returns
// the sums before they are written.
func FoldClassic(d *Driver, inputs []Input) (*ClassicTail, error) {
	opt := d.Options
	opt.NoTime = true
	st, err := newStage(io.Discard, opt)
	if err != nil {
		return nil, err
	}
	if err := errors.Join(d.fold(st, inputs)...); err != nil {
		return nil, err
	}
	t := &ClassicTail{st: st}
	for i := range st.keys.shards {
		sh := &st.keys.shards[i]
		t.slots[i], t.ids[i], t.used[i] = slices.Clone(sh.slots), slices.Clone(sh.ids), sh.used
	}
	return t, nil
}

// Reset puts the sums back as they were folded, their pieces not ranked,
// for Write.
func (t *ClassicTail) Reset() {
	k := t.st.keys
	for i := range k.shards {
		sh := &k.shards[i]
		sh.slots = append(sh.slots[:0], t.slots[i]...)
		sh.ids = append(sh.ids[:0], t.ids[i]...)
		sh.used = t.used[i]
	}
	k.pieces.order, k.pieces.ends = nil, nil
}

// Write writes the classic output to w, as the end of a run does. Reset
// must come before each Write.
func (t *ClassicTail) Write(w io.Writer) error {
	t.st.w = w
	return t.st.writeClassic(1)
}
