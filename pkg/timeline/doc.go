// Package timeline is the model of a timed profile: every sample of one or
// more timed folded streams, by time, stack, thread and CPU, aggregated
// into cells of time so that the views of a capture (heat map, bursts,
// slices, the explorer page's flame graphs) read one index instead of the
// samples.
//
// A [Builder] takes the records of each input and builds a [Timeline]:
//
//	b := timeline.NewBuilder(timeline.Options{Merge: timeline.MergeAll})
//	in := b.Input("profile.folded", "", 0)
//	for rec := range rd.All() { // rd a *folded.Reader
//		if err := b.Add(rec); err != nil { ... }
//	}
//	b.SetMetas(in, rd.Meta())
//	tl := b.Build()
//	s := tl.Series(timeline.Samples, nil) // samples per 20 ms cell
//
// [Timeline.Series] reads a per-cell series, [Timeline.Range] the entries
// of a time range (from which a slice or a flame graph is summed),
// [Timeline.Coarsen] widens the cells for long captures. Each view keeps
// only the keys it needs ([Merge]); one that reads the series only lays it
// out densely as [Counts]. A sample read but not kept (an idle one) is
// covered ([Builder.Cover]), so that every view of a capture spans the
// same seconds ([Timeline.Extent]).
//
// A Builder given a budget of entries (Options.Budget, the explorer
// page's) holds no more, whatever the number of samples: past it, it
// widens the cells, then keeps each cell's heaviest stacks and sums the
// rest per process ([Reduced]), every total per cell, input and process
// staying exact.
package timeline
