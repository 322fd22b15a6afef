package folded

// Addrs are the addresses of the frames a record's stack was folded from,
// as a perf.data reader found them: what a pprof or OTLP profile needs so
// that a server (Pyroscope, Parca) or go tool pprof can name the frames
// itself from the binaries, by build-id. The stack's names stay what
// every tool sees; Addrs say where each came from.
type Addrs struct {
	// Frames are the frames of the call chain, leaf first, as recorded.
	Frames []AddrFrame
	// Maps are the mappings the frames are in.
	Maps []Mapping
}

// AddrFrame is one frame of a call chain.
type AddrFrame struct {
	// PC is the instruction's address in its process (kernel addresses
	// as they are): for callers, the return address.
	PC uint64
	// Map is the index of its mapping in Addrs.Maps, -1 for none.
	Map int32
	// Names is how many frames of the folded stack it gave, from the
	// root side of the ones before it: 0 when the naming rules dropped
	// it, more than 1 for inlined functions and "->" pieces. The frames
	// of the stack before those of the outermost address frame (the
	// process's root frame) have no address.
	Names int32
}

// Mapping is one file mapped into a process (perf's MMAP records), or a
// kernel map.
type Mapping struct {
	// PID is the process, -1 for a map of the kernel's space.
	PID int32
	// Start and Limit bound the mapped addresses; Offset is the file
	// offset of Start.
	Start, Limit, Offset uint64
	// File is the file as perf names it ("/usr/lib/x86_64-linux-gnu/libc.so.6",
	// "[kernel.kallsyms]", "[vdso]", "/tmp/perf-PID.map").
	File string
	// BuildID is its GNU build-id in lowercase hexadecimal, "" if the
	// capture has none.
	BuildID string
	// Symbolizable says that a symbolizer can name its addresses from
	// File or BuildID (an ELF file): false for the kernel and its
	// modules, the vdso, JIT code and anonymous memory, whose frames
	// keep their names in every profile.
	Symbolizable bool
}
