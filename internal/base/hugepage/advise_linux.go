package hugepage

import (
	"syscall"
	"unsafe"
)

// supported: the kernel may give transparent huge pages.
const supported = true

// madvise(2) advice values (Linux).
const (
	madvHugepage = 14 // MADV_HUGEPAGE
	madvCollapse = 25 // MADV_COLLAPSE, Linux 6.1
)

// advise marks the whole 2 MB pages inside b with MADV_HUGEPAGE. Errors
// are ignored: the buffer works the same without huge pages.
func advise(b []byte) {
	start := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	lo := (start + size2M - 1) &^ (size2M - 1)
	hi := (start + uintptr(len(b))) &^ (size2M - 1)
	if lo >= hi {
		return
	}
	syscall.Madvise(b[lo-start:hi-start], madvHugepage)
}

// collapse has the kernel put the n bytes of memory at start (both
// aligned to 2 MB) into huge pages now, copying what is there
// (MADV_COLLAPSE, Linux 6.1), after asking for them (MADV_HUGEPAGE) for
// the pages not yet touched. A kernel without it, or that cannot, leaves
// the memory as it is. The memory is the runtime's, not a Go object: it is
// passed as numbers.
func collapse(start, n uintptr) {
	syscall.Syscall(syscall.SYS_MADVISE, start, n, madvHugepage)
	syscall.Syscall(syscall.SYS_MADVISE, start, n, madvCollapse)
}
