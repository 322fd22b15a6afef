// Package stackfilter shapes folded stacks the way go tool pprof's
// filter options shape a profile: keep the stacks through a function
// (Focus), drop them (Ignore), hide frames and keep their cost (Hide,
// Show), cut a stack above or below a frame (ShowFrom, RootAt, PruneFrom),
// rename frames (Merge) and merge direct recursion (CollapseRecursion),
// after a selection of samples by comm, pid, tid and CPU (package
// selection).
//
// [New] compiles [Options] into a [Filter]; [Filter.Copy] filters the
// records of a reader into a writer, and a [Copier] does it for inputs
// read record by record:
//
//	f, err := stackfilter.New(stackfilter.Options{Focus: []string{"^main"}})
//	if err != nil { ... } // an *OptionError: a bad expression
//	st, err := f.Copy(w, folded.NewReader(r, name))
//
// Options says in which order the steps run; docs/stackfilter.md says how
// frames are matched and what pprof gives for the same options.
package stackfilter
