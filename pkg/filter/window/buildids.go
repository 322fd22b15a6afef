package window

import (
	"flamekit/pkg/fold/capture"
	"flamekit/pkg/perf/perfdata"
)

// BuildIDs returns the build-id table of the input when it is a perf.data
// file, gzipped or not (capture.BuildIDs), nil otherwise, and nil for a
// stream not copied yet (see Spool), which this would read.
func (in *Input) BuildIDs() ([]perfdata.BuildID, error) {
	if in.src == nil {
		return nil, in.err
	}
	if in.stream() {
		return nil, nil
	}
	return capture.BuildIDs(in.src)
}

// HasAddresses reports whether the input's records can carry the
// addresses of their frames (capture.HasAddresses): a perf.data file.
func (in *Input) HasAddresses() bool { return in.src != nil && capture.HasAddresses(in.src) }
