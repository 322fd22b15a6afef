// Package perfdata reads perf.data files (perf record's file mode) and
// delivers their samples as pkg/perf/sample models, with the fields `perf
// script` prints for them by default: the same comm, ids, CPU, time,
// period, event name, tracepoint fields and frames (address, symbol and
// DSO as perf prints them), so that folding them gives what `perf script
// | stackcollapse` gives, without running perf script.
//
// What it does as perf 6.1 does:
//
//   - the file header, the event attributes and the feature sections
//     (hostname, os release, perf version, cmdline, event descriptions,
//     build-ids, tracing data, clock id and reference time, times of the
//     first and last sample) become a sample.Capture with the values perf
//     script --header prints;
//   - records are processed in time order through perf's ordered-events
//     queue, flushed round by round (FINISHED_ROUND), memory bounded by two
//     rounds; perf record -z's COMPRESSED records are decoded as the one
//     zstd stream they form;
//   - COMM, FORK, EXIT, MMAP, MMAP2 and KSYMBOL records keep perf's view of
//     threads and memory maps; a call chain is resolved frame by frame in
//     the address space its context markers select, a marker perf does
//     not know drops the whole chain, user addresses are printed relative
//     to their file, anonymous executable memory is a JIT's
//     /tmp/perf-PID.map;
//   - symbols come from a Symbolizer (pkg/perf/symbols' Resolver), cached per
//     DSO and address; the kernel's map takes its range from its symbols
//     on first use, as perf's map__load does;
//   - a tracepoint sample carries its raw record and the tracepoint's
//     format (sample.Trace): its fields are read typed, and the values
//     the folding rules read from the payload text are read without
//     printing it (tpfields.go); the payload is printed only when asked
//     for, as libtraceevent prints it: the event's print format evaluated
//     (sched_switch's prev_state letters, __print_flags,
//     __print_symbolic, %pS), else name=value fields.
//
// The user stacks of a --call-graph dwarf capture are unwound from each
// sample's registers and stack dump (pkg/perf/unwind) as perf's libunwind
// unwinds them, and joined to the kernel part of its chain: the frames
// perf script --no-inline prints (perf script also adds inlined functions,
// which this package does not). Stats.Unwind counts why stacks ended.
// With DeferFrames the FrameCaches unwind them, on their goroutines: a
// kept sample's stack dump stays in the reader's queue (for a large
// file, in the block it was read ahead in), whose chunk the batch pins
// until it is reset.
//
// A file perf record did not finish is read as far as it goes: killed
// (the header's data size still 0) or cut short (a full disk: the data
// section runs past the end of the file, or the feature sections are
// missing). The reader reads every complete record up to the end of the
// file, takes what the lost feature sections held from this machine
// (symbols from its files by path, its kernel and vdso; tracepoint
// formats from its tracefs; event names from the attributes), and
// Reader.Damage says what was lost, on one line.
//
// What it does not do returns an *UnsupportedError, so that the caller can
// run perf script instead: pipe-mode files, --call-graph dwarf of another
// architecture than x86-64, LBR
// call stacks, big-endian files, and a capture from another host whose
// binaries are not on this machine (unless Options.AllowForeign).
//
// A Reader works like bufio.Scanner:
//
//	r, err := perfdata.Open("perf.data", perfdata.Options{Symbolizer: symbols.NewResolver(symbols.Options{})})
//	if err != nil { ... }
//	defer r.Close()
//	for r.Next() {
//		s := r.Sample() // valid until the next call to Next
//	}
//	if err := r.Err(); err != nil { ... }
//	st := r.Stats() // unknown records skipped, events lost, chains dropped
//
// The per-sample path does not allocate once the caches are warm: the
// Sample, its Frames and the bytes they point to are reused.
//
// For a reader on several cores, Reader.DeferFrames leaves the frames to
// other goroutines: the Reader keeps each sample (Keep) with its call
// chain as recorded and the memory maps of its time (map lists are copied
// on write, so a kept list never changes), and FrameCaches, one per
// goroutine, resolve the chains (Chain, Frame): each distinct frame once
// for all of them, and the outer part of a chain, equal to the last one of
// the same thread, without a lookup.
package perfdata
