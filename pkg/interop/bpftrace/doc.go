// Package bpftrace folds the maps bpftrace prints when it exits into folded
// stacks, as FlameGraph's stackcollapse-bpftrace.pl does, for flame graphs
// of one-liners such as
//
//	bpftrace -e 'profile:hz:99 { @[kstack, ustack, comm] = count(); }' > out.bt
//
// # What bpftrace prints
//
// Each map entry is "@name[key]: value". A key is its elements joined by
// ", "; a stack element is a newline followed by one line per frame, leaf
// first, and an empty stack prints as nothing:
//
//	@[
//	    do_syscall_64+113
//	    entry_SYSCALL_64_after_hwframe+118
//	,
//	    __GI___write+79
//	    main+849
//	, cpu spin]: 12
//	@[, , swapper/0]: 3
//
// Frames come in bpftrace's three stack modes: "name+offset" (kstack,
// ustack, with "0x7f…" for addresses it could not resolve), "\tADDR
// name+offset (module)" (kstack(perf), ustack(perf)) and bare hex addresses
// (raw). Newer bpftrace adds "@file:line" and "[inlined] " with
// show_debug_info; both are read.
//
// # The folded stack of an entry
//
//   - The key's scalar elements (comm, pid, strings) become the root
//     frames, in key order. Then come the user stacks, then the kernel
//     stacks, each root first; two stacks of the same kind are put as the
//     key lists them read backwards (keys are written leaf first, like
//     the frames of a stack). So @[kstack, ustack, comm] gives
//     comm;user frames;kernel frames, as does @[comm, ustack(perf),
//     kstack(perf)].
//   - A stack is a kernel stack when its addresses are in the kernel half
//     of the address space (perf and raw modes, unresolved frames). A stack
//     without any address (bpftrace mode, every frame resolved) is taken as
//     the kernel stack when it is the first stack of its key, as in
//     @[kstack], @[kstack, ustack] and @[comm, kstack]; an empty element
//     counts as an empty stack here ("@[, " is an empty kstack).
//   - Offsets ("+113") are removed, so that samples at different places in
//     one function add up, as stackcollapse-perf.pl does for perf. Unresolved
//     frames become "[unknown]", or "[module]" when bpftrace names the
//     module; Options.Addrs keeps their address.
//   - Options.Kernel appends "_[k]" to the frames of kernel stacks.
//   - ';' in a name becomes ':' (';' separates frames); blanks are kept.
//   - The value is the count: count() samples, sum() of bytes… Entries are
//     emitted one by one, in input order; callers sum equal stacks (see
//     Collapse).
//
// # Which map
//
// A dump may hold several maps (bpftrace prints every map at exit, sorted
// by name). One is folded: the one named by Options.Map, or by default the
// first map that has a stack in its key (failing that, the first whose
// keys all have an empty element, which is how an empty stack prints). Maps holding histograms, stats or
// strings cannot be folded. Concatenated dumps (cat a.bt b.bt) and maps
// printed periodically (print(@)) fold every occurrence of the chosen map.
//
// # Differences from stackcollapse-bpftrace.pl
//
// The Perl script (FlameGraph commit 41fee1f) reads an entry only when its
// first line is "@[" alone (the unnamed map, a stack first in the key) or
// when the whole entry is on one line starting "@[, ". This package, run on
// the same dumps:
//
//   - keeps the entries whose first stack is empty ("@[, " then the user
//     stack: every sample taken in user mode, 253 of the 260 of the real
//     capture in testdata/bpf, which Perl drops) and the entries without
//     any stack ("@[]: 9", "@[, , swapper/0]: 7", which Perl drops or
//     prints as a frame ", swapper/0");
//   - leaves no ", " frame between two stacks (Perl's output for
//     @[kstack, ustack, comm] has one between the user and kernel frames)
//     and no indentation in names (FlameGraph #201, since fixed in Perl);
//   - reads keys that start with a scalar (@[comm, kstack]) and named maps
//     (@cpu[...]), which Perl skips entirely, and folds one map instead of
//     all of them at once (counts and bytes mixed);
//   - strips offsets and resolves perf-mode frames, so that a function is
//     one frame rather than one per offset (Perl keeps "main+849" and
//     "\tADDR main+849 (/path)" as they are);
//   - counts what it skips (truncated entries, non-integer values) and
//     reports the maps it did not fold, instead of ignoring them silently.
package bpftrace
