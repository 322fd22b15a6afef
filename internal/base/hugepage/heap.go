package hugepage

import (
	"runtime"
	"unsafe"
)

// Heap asks for huge pages for about the next n bytes the Go heap will
// use. It allocates n bytes (which touches no page), asks for huge pages
// for them, and has the garbage collector free them at once: the spans
// the program allocates next are cut from that memory, lowest addresses
// first. The request stays on the memory when the runtime later returns
// pages of it to the system.
//
// The runtime maps its heap without asking for huge pages, so on kernels
// set to "madvise" a process that fills a heap of hundreds of megabytes
// takes a page fault per 4 kB. stackcollapse on a 114 MB perf.data file
// took 39,000 of them, 8% of its CPU time on a virtual machine; with Heap
// it takes 3,500. Heap costs a collection of the heap as it is, so call
// it at start-up, when the heap is small, and only when the work ahead is
// large: it costs about a millisecond. It does nothing on systems without
// transparent huge pages.
func Heap(n int) {
	if !supported || n < Min {
		return
	}
	runtime.KeepAlive(Bytes(n)) // allocated and advised, then garbage
	runtime.GC()
}

// arenaChunk is how much heap the Go runtime maps at a time (its page
// allocator's chunk: 512 pages of 8 kB), aligned to its size.
const arenaChunk = 4 << 20

// First asks for huge pages for the 4 MB of the Go heap that the objects
// allocated now come from: called at the start of main, the chunk the
// runtime mapped at start-up, where the program's first megabytes of
// objects go (the command line's model, the first buffers). What start-up
// wrote there is collapsed into huge pages, the rest gets them when first
// touched. Otherwise each 4 kB of it costs a page fault: 300 to 500 of the
// 1,100 a 1.9 MB capture's stackcollapse took, 20 to 40 µs each on some
// virtual machines (where it took 50 ms instead of 55). It does nothing
// where the kernel cannot.
func First() {
	if !supported {
		return
	}
	collapse(heapAddr()&^(arenaChunk-1), arenaChunk)
}

// probe holds the object heapAddr allocates, so that it is on the heap
// (one the compiler may keep on the stack could be anywhere).
var probe *[64]byte

// heapAddr returns the address of a small object allocated now.
func heapAddr() uintptr {
	probe = new([64]byte)
	p := uintptr(unsafe.Pointer(probe))
	probe = nil
	return p
}
