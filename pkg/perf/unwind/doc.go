// Package unwind unwinds the user stacks of perf record --call-graph dwarf
// samples: from the registers and the stack dump a sample carries, and the
// call frame information (CFI) of the objects mapped in the process, it
// gives the return addresses perf's DWARF unwinder would give.
//
// A Table holds the CFI of one ELF object: .eh_frame (found through the
// binary search table of .eh_frame_hdr when there is one) and .debug_frame
// (from the object or its separate debug file). It parses an FDE the first
// time an address needs it and caches the row of the CFI table it computes
// per address, so that the work grows with the distinct addresses of a
// capture, not with its samples. A Table is safe for concurrent use.
//
// An Unwinder walks one stack at a time (one per goroutine): Unwind takes
// the sample's registers (Regs, in DWARF numbering; PerfRegs converts
// perf's sample_regs_user layout), the stack dump and a Space that says
// which object maps an address, and returns the frames with the reason
// the walk stopped (a Stop). Stopping is never an error: as perf, the
// frames found before it are kept, and the Stop says why there are no
// more (the stack dump ran out, an address in no object, or in a JIT's
// anonymous memory, an object without CFI for it, corrupt CFI).
//
// Only x86-64 is supported: DWARF registers 0 to 16 (rax, rdx, rcx, rbx,
// rsi, rdi, rbp, rsp, r8 to r15, and 16 the return address).
package unwind
