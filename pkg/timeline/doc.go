// Package timeline is the model of a timed profile: every sample of one or
// more timed folded streams, by time, stack, thread and CPU, aggregated
// into cells of time so that the views of a capture (heat map, bursts,
// slices, the explorer page's flame graphs) read one index instead of the
// samples.
//
// # Identity
//
// Strings are stored once. A frame name is an entry of a frame table
// ([FrameID]); a stack is a node of a prefix tree ([StackID]): a node is
// its parent node and one frame, so a StackID names the path from the root
// to that node, and the stacks sharing a prefix share its nodes. Summing
// weights up the tree is the flame graph's merge. A thread is interned as
// (pid, tid, comm), the comm being the stack's root frame (as
// stackcollapse names the process).
//
// # The cell index
//
// Time is cut into cells of a fixed width from an origin (the capture's
// first sample): [DefaultRows] cells per second (20 ms), as the rows of
// FlameScope's and timeslice's sub-second heat map, with the same
// boundaries (cell c of second s holds the samples from s + ⌈r/rows⌉ s).
// The samples of a cell are summed per (input, stack, thread, CPU): an
// [Entry] holds the number of samples and the sum of their counts. Memory
// is one entry per distinct key, whatever the number of samples; building
// is linear in the samples when each input is in time order (perf script
// writes it so), plus a sort when cells come back.
//
// A [Timeline.Series] reads a per-cell series (samples or weight, under a
// predicate on the entries); [Timeline.Range] gives the entries of a time
// range, from which a slice or a flame graph is summed; [Timeline.Coarsen]
// widens the cells for long captures.
//
// # What a view keeps
//
// Each view builds the timeline it needs, and no more: [Options].Merge
// says what the entries are not keyed by. The explorer page keeps every
// key; the bursts keep the stacks and threads ([MergeCPUs]: a key's share
// is a process's, thread's or function's); a heat map keeps nothing
// but the cell ([MergeAll]: one entry per cell and input, the per-cell
// series). A view that reads the series only lays it out
// densely as [Counts], per second and cell (4 bytes a cell where an entry
// is 32: a 12-hour heat map of 20 ms cells takes about 10 MB):
// [Timeline.Counts] lays a timeline out so, and [NewCounts] counts
// directly. A sample read but not kept (an idle one) is covered
// ([Builder.Cover]): it widens the timeline's [Timeline.Extent], so that
// every view of a capture spans the same seconds.
//
// # Several inputs and hosts
//
// Entries keep their input, and inputs their host (the metadata's host),
// so views can draw one lane per host. Inputs of different hosts have
// different perf clocks: a caller that puts them on one axis (the wall
// clock) gives each input an offset added to its perf times.
package timeline
