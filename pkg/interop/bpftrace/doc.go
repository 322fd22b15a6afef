// Package bpftrace folds the maps bpftrace prints when it exits into folded
// stacks, as FlameGraph's stackcollapse-bpftrace.pl does, for flame graphs
// of one-liners such as
//
//	bpftrace -e 'profile:hz:99 { @[kstack, ustack, comm] = count(); }' > out.bt
//
// [Fold] calls a function with each entry of one map as a folded record;
// [Collapse] writes the entries summed and sorted, as classic folded lines:
//
//	sum, err := bpftrace.Collapse(r, "out.bt", bpftrace.Options{Kernel: true}, os.Stdout)
//
// [Options] picks the map and how frames are named; the [Summary] lists
// every map of the dump and counts what was skipped. Fold's doc says how an
// entry becomes a stack; docs/bpf.md says where the output differs from the
// Perl script's.
package bpftrace
