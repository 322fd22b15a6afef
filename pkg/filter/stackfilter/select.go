package stackfilter

import (
	"flamekit/pkg/filter/selection"
	"flamekit/pkg/folded"
)

// selectFields applies the cpu, pid and tid part of the selection to a
// record (the comm part is a property of the stack, cached with it),
// counting in st the lines that lack a field it needs.
func (f *Filter) selectFields(rec *folded.Record, st *Stats) bool {
	if f.fields == nil {
		return true
	}
	switch f.fields.Match(rec) {
	case selection.Keep:
		return true
	case selection.Unknown:
		st.Unknown++
	}
	return false
}
