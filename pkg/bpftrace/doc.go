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
// The Perl script (FlameGraph commit 41fee1f) only reads keys whose stack
// comes first, and mishandles everything else. This package:
//
//   - does not leave the ", " line between two stacks in the stack as a
//     frame of its own (Perl's output for @[kstack, ustack, comm] has a
//     frame ", " between the user and kernel frames);
//   - strips the indentation of every frame (FlameGraph issue #201; later
//     fixed in the script for frame lines, never for the first element);
//   - reads entries whose first stack is empty ("@[, " and "@[, , comm]"),
//     which Perl folds wrongly or drops, and entries without a stack
//     ("@k[]: 180", the user-mode samples of @[kstack]), which Perl drops;
//   - puts scalar keys at the root whatever their position (Perl makes comm
//     the leaf of @[comm, kstack]) and stacks in key order;
//   - strips offsets and resolves perf-mode frames, so that a function is
//     one frame rather than one per offset;
//   - reads one map instead of mixing the entries of every map (counts and
//     bytes) into one profile, and skips histogram lines instead of folding
//     their bucket counts;
//   - reads values too large for Perl's "\d+" pattern only as integers, and
//     counts what it skips instead of ignoring it silently.
package bpftrace
