package stackfilter

import "flamekit/pkg/folded"

// selectFields applies the --pid, --tid and --cpu selections to a record,
// counting in st the lines dropped for want of the field.
func (f *Filter) selectFields(rec *folded.Record, st *Stats) bool {
	if f.pid == nil && f.tid == nil && f.cpu == nil {
		return true
	}
	return false // TODO: fields of timed lines (folded.Record CPU, PID, TID)
}
