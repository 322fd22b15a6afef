// Package svg draws laid-out flame graphs as interactive SVG, as
// flamegraph.pl draws them: the same geometry, colours, tooltips and
// embedded script (click to zoom, search with a regular expression,
// Ctrl-I for case), with everything from the input escaped.
//
// The model (stacks merged into frames, their widths and depths, pruning,
// the --reverse and chain rewrites) is pkg/view/flamegraph's [flamegraph.Layout];
// this package only renders one: [Render] with [Options] (whose
// [DefaultOptions] are flamegraph.pl's defaults). It also owns what is
// about drawing: the palettes ([Colorer], [DiffColor], [Background]),
// flamegraph.pl's option files (the --cp [PaletteFile] and --nameattr
// [ReadNameAttr]), and the escaping of names into XML, CSS and
// JavaScript. Big graphs carry every frame as compact data that the
// script draws on demand, so that they open fast in a browser (see
// Options.MaxStatic).
package svg
