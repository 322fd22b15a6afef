package flamegraph

import (
	"flamekit/pkg/folded"
	"flamekit/pkg/svg"
)

// stackSet sums counts per distinct stack, like folded.Profile, but
// without hashing while the input comes in strictly increasing order (as
// stackcollapse writes it): then every line is a new stack, and the
// layout can skip the sort too. The first line out of order moves it to a
// map, so memory still grows with distinct stacks, never with lines.
type stackSet struct {
	entries []folded.Entry
	index   map[string]int // nil while the input is strictly increasing
	// inOrder: the entries are in svg.CompareStacks order (bytewise order
	// differs only where a stack is a prefix of the next one).
	inOrder bool
	total   float64
}

func newStackSet() *stackSet { return &stackSet{inOrder: true} }

func (s *stackSet) add(rec *folded.Record) {
	s.total += rec.Count
	i := -1
	if s.index == nil {
		n := len(s.entries)
		if n == 0 || s.entries[n-1].Stack < string(rec.Stack) {
			s.entries = append(s.entries, folded.Entry{Stack: string(rec.Stack)})
			if n > 0 && s.inOrder && svg.CompareStacks(s.entries[n-1].Stack, s.entries[n].Stack) >= 0 {
				s.inOrder = false
			}
			i = n
		} else {
			s.index = make(map[string]int, 2*n)
			for k := range s.entries {
				s.index[s.entries[k].Stack] = k
			}
			s.inOrder = false
		}
	}
	if i < 0 {
		var ok bool
		i, ok = s.index[string(rec.Stack)]
		if !ok {
			i = len(s.entries)
			st := string(rec.Stack)
			s.index[st] = i
			s.entries = append(s.entries, folded.Entry{Stack: st})
		}
	}
	e := &s.entries[i]
	e.Count += rec.Count
	if rec.Kind == folded.Diff {
		e.Before += rec.Before
		e.Diff = true
	}
}
