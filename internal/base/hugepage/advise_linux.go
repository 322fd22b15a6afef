package hugepage

import (
	"syscall"
	"unsafe"
)

// supported: the kernel may give transparent huge pages.
const supported = true

// advise marks the whole 2 MB pages inside b with MADV_HUGEPAGE. Errors
// are ignored: the buffer works the same without huge pages.
func advise(b []byte) {
	start := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	lo := (start + size2M - 1) &^ (size2M - 1)
	hi := (start + uintptr(len(b))) &^ (size2M - 1)
	if lo >= hi {
		return
	}
	syscall.Madvise(b[lo-start:hi-start], 14) // MADV_HUGEPAGE
}
