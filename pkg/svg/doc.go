// Package svg lays out and draws interactive flame graphs, as flamegraph.pl
// draws them: the same geometry, colours, tooltips and embedded script
// (click to zoom, search with a regular expression, Ctrl-I for case), with
// frames merged frame by frame and everything from the input escaped.
//
// A drawing is made in two steps: a [Layout] of the stacks (from a
// [folded.Profile], with [LayoutEntries], or line by line with a
// [Builder] for flame charts), then [Render] with [Options] (whose
// [DefaultOptions] are flamegraph.pl's defaults). Big graphs carry every
// frame as compact data that the script draws on demand, so that they open
// fast in a browser (see Options.MaxStatic).
package svg
