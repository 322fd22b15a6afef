// Package flamegraph is the model of a flame graph: folded stacks merged
// into a tree of frames and laid out, as flamegraph.pl lays them out,
// with nothing about drawing. pkg/svg draws what it lays out.
//
// A [Layout] is every frame in pre-order with its depth and its left and
// right edges in count units (the x axis before any scaling to pixels),
// and for differential input the change of the stacks ending at it. It is
// made from a [folded.Profile] with [LayoutProfile] (stacks summed, then
// merged frame by frame in [CompareStacks] order), from entries with
// [LayoutEntries], or line by line with a [Builder] (a flame chart when
// the lines come in time order). [Read] does all of it for the flamegraph
// command, from folded files. A [Rewrite] applies flamegraph.pl's
// per-stack rewrites first (--reverse, and the chain palette's waker
// marks); Builder.Prune and [Layout.Kept] drop the frames narrower than a
// minimum width (--minwidth, converted to count units by the renderer).
// An icicle graph is the same layout drawn upside down.
package flamegraph
