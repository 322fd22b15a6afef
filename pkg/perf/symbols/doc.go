// Package symbols resolves the addresses of a perf capture to the symbol
// names perf script prints, as perf 6.1 (Debian's build, without libbfd)
// does on this machine, so that a reader of perf.data can print what
// perf script prints without running it.
//
// A Resolver loads each object's symbols on first use and keeps them:
//
//   - the kernel (Kernel, Module): kallsyms, from perf's build-id cache
//     copy [kernel.kallsyms]/BUILDID/kallsyms first (right for old
//     captures), else /proc/kallsyms when the capture is of the running
//     kernel; types T, W, D and B kept in either case; module symbols
//     ("\t[ext4]") split off into one table per module;
//   - ELF objects (DSO): .symtab, else .dynsym, looked for where perf
//     looks: the .gnu_debuglink file, the build-id cache's copy and debug
//     file, /usr/lib/debug/PATH(.debug), /usr/lib/debug/.build-id/xx/
//     rest.debug, the file itself; a file whose build-id is not the
//     recorded one is never used (Missing reports the object instead);
//     PLT entries synthesized as "name@plt" ("@plt" for IRELATIVE slots),
//     from the file mapped at run time; the vdso ("[vdso]") from the
//     build-id cache, else, as perf does, from the running machine: this
//     process's own vdso (Options.VDSO), when the capture recorded no
//     build-id (perf record -B, --switch-output) or the one it has;
//   - JIT code (PerfMap, or DSO with "/tmp/perf-PID.map"): the
//     process's jit-PID.dump first, when the capture mapped one (node
//     --perf-prof, the JVM agents: package jitdump, named as perf inject
//     --jit names them: the code at the address at the sample's time,
//     for memory the JIT reused, see JITReuses), then its perf map.
//
// The sources, in order: the file the capture names, the build-id cache,
// the file under /proc/PID/root while a process of another mount
// namespace (a container) that mapped it lives (the reader passes its
// MMAP records to Mapped), debuginfod (Options.Debuginfod: the debug file,
// and the executable when none is here, by build-id), then perf maps and
// jitdump for JIT code; a container's perf map is /tmp/perf-NSPID.map
// inside it, NSPID its pid there (NSpid in /proc/PID/status), as perf's
// nsinfo finds it. Once the process has ended only build-id lookups are
// left, and Missing says the object went with its process. Every file a
// capture names is opened through safefile: a regular file of bounded
// size; perf maps and jitdump files, which the profiled process writes,
// not through a symbolic link and owned by root, the reader or the
// process's user (Options.Force: any owner). Why words, per object, why
// it has frames without symbols — stripped, not found, gone with its
// process, a debuginfod miss, no jitdump nor perf map, a file refused —
// with the fix.
//
// Tables follow perf's rules for building its symbol tree: symbols of
// unknown size end where the next one starts (kallsyms: a page past the
// last kernel or module symbol), then of several symbols at one address
// choose_best_symbol keeps one; NOTYPE labels count in sections named
// *text* or *data*; absolute symbols and those of unallocated sections
// do not; perf maps get no fix-up at all. Where symbols still overlap,
// the symbol perf finds depends on the shape of its red-black tree; the
// package rebuilds that tree exactly and records its answers, so that
// lookups are always a binary search that allocates nothing.
//
// Names are demangled as that perf prints them (Demangle): C++ without
// parameters ("ns::Acc<long>::work"), Rust legacy and v0 without hashes
// ("<rustprog::Fnv as rustprog::Digest>::digest"), OCaml; Go names as
// they are.
//
// Cost: most symbols of a large object are never looked up, so a name
// is demangled when a lookup first finds it, and kept; loading a table
// demangles only aliases that perf's choice between them needs, and
// not even those when the choice cannot change anything but the name
// (then it is made on first lookup too) or when they are two variants
// of one C++ constructor or destructor, which print alike. The symbols
// are sorted by address once read, so that the passes over them walk
// memory in order, and perf's tree is rebuilt by hanging each insert
// under its neighbour in that order rather than by descending the tree.
// Names are cut from the string table or kallsyms file mapped read-only
// (memory a process has never touched costs a page fault per page,
// dearer on virtual machines than the page cache's pages), tables refer
// to them by offset, so the garbage collector has no pointer per symbol
// to follow, and a name is copied out on the first lookup that finds it. Kallsyms is parsed once
// per file, its reference symbols kept for KernelSymbolAddr, in one pass
// into flat arrays that become the tables without perf's tree (its
// symbols have no size, so never overlap once their ends are fixed up;
// the few files where they would go through the tree). A Resolver
// and its Tables are safe for concurrent use; Preload and PreloadKernel
// load tables in the background, so that a reader of a capture, given
// the objects of its build-id table up front, has them loaded on a
// second core while it reads.
//
// Addresses: for an ELF object, the caller gives the file-relative
// address perf prints in callchains, ip - map start + map pgoff; for the
// kernel, its modules and perf maps, the absolute address. The caller
// formats what perf prints around the symbol: "name+0x<Offset>" (perf
// script always prints the offset in callchains), "[unknown]" when
// there is no symbol, and, for a hit on a zero-size perf map entry, the
// odd offset Symbol.PrintedOffset computes.
//
// What this package does not do: read kernel modules' .ko files (perf
// prefers them to kallsyms when it finds them), kcore, compressed
// objects, JIT code by sample time in captures not recorded with perf
// record -k mono or with a jitdump of TSC times (a reused address then
// names the code loaded there last), Java-signature demangling of
// ELF names holding ')' (only reachable by names no compiler emits), and
// the bare debuglink name relative to perf's working directory.
//
// Checked against perf itself: a test writes a perf.data with one sample
// per table boundary and compares perf script's answers with the
// resolver's (all equal on libc, ld.so, libstdc++, Go, Rust, the kernel,
// the vdso and the fixtures; 27 addresses of one of node's 107,000 C++
// symbols differ, a libiberty oddity), and every frame of eight real
// captures is resolved and compared with what perf script printed.
package symbols
