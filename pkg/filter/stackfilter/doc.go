// Package stackfilter shapes folded stacks the way go tool pprof's
// filter options shape a profile: keep the stacks through a function
// (Focus), drop them (Ignore), hide frames and keep their cost (Hide,
// Show), cut a stack above or below a frame (ShowFrom, RootAt, PruneFrom),
// rename frames (Merge) and merge direct recursion (CollapseRecursion),
// after a selection of samples by comm, pid, tid and CPU (package
// selection).
//
// # Matching
//
// A stack is the folded line's frames, root first; the root frame is the
// process name (comm, or comm-PID and comm-PID/TID after stackcollapse
// --pid/--tid). Regular expressions (Go RE2 syntax, unanchored) match a
// frame's name exactly as the folded line spells it, the root frame
// included: what pprof sees of the same stack after timeslice --format
// pprof, where each frame name is one function. Several expressions given
// for one option are alternatives (RE1|RE2).
//
// # Order
//
// Whatever the order of the options, a stack goes through these steps,
// each reading what the one before left:
//
//  1. selection (Options.Select, package selection): the comm (the root
//     frame), and the cpu=, pid= and tid= fields of timed lines;
//  2. Focus, then Ignore, on the stack as read (pprof -focus, -ignore);
//  3. Hide, then Show (pprof -hide, -show);
//  4. ShowFrom (pprof -show_from), RootAt, then PruneFrom (pprof
//     -prune_from);
//  5. Merge, then CollapseRecursion.
//
// Steps 2 to 4 are those of pprof, in pprof's order (its applyFocus:
// FilterSamplesByName, ShowFrom, PruneFrom), and give the stacks and
// totals go tool pprof gives for the same options on the same samples
// (the package's tests check it on real captures).
//
// # Cost
//
// The result of the steps depends only on the stack, so a [Filter]
// computes it once per distinct stack and keeps it; a regular expression
// runs once per distinct frame name. A line then costs one map look-up of
// its stack. Memory grows with the distinct stacks and is bounded: past
// [CacheLimit] bytes the cache is emptied and refilled.
package stackfilter
