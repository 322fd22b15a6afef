package capture

import (
	"flamekit/pkg/fold/collapse"
	"flamekit/pkg/perf/perfdata"
	"flamekit/pkg/source"
)

// foldAddrs is Fold when the records keep their addresses
// (collapse.Options.Addresses): each sample goes with the addresses of
// its frames.
func (c *dataChunk) foldAddrs(k *collapse.Sink, fc *perfdata.FrameCache) {
	for i := range c.samples.Len() {
		c.samples.Head(i, &c.s)
		chain := fc.Chain(&c.samples, i)
		fc.Addrs(&c.samples, i, &c.addrs)
		k.AddChainAddrs(&c.s, chain, fc, &c.addrs)
	}
}

// HasAddresses reports whether the records of in can carry the addresses
// of their frames (collapse.Options.Addresses): a perf.data file, not
// folded text, perf script text or a converted profile.
func HasAddresses(in *source.Input) bool { return readers[in.Kind].data }

// BuildIDs returns the build-id table of in when it is a perf.data file
// (compressed or not: read from the decompressed copy the fold reads,
// source.Input.Path), and nil for other kinds of input.
func BuildIDs(in *source.Input) ([]perfdata.BuildID, error) {
	if !readers[in.Kind].data {
		return nil, nil
	}
	path, err := in.Path()
	if err != nil {
		return nil, err
	}
	return perfdata.BuildIDs(path)
}
