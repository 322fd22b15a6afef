//go:build unix

package symbols

import (
	"os"
	"runtime"
	"syscall"
)

// mapFile maps size bytes of f from off, read-only, and returns them with
// the mapping, which is unmapped once unreachable; ok is false when the
// file cannot be mapped (the caller reads it instead).
//
// Names are cut from files mapped this way rather than read into memory:
// a file's pages are already in the page cache, while memory the process
// has never used costs a page fault per page, which on some virtual
// machines (this project's included) costs more than reading the page.
// With populate the whole range is mapped at once (MAP_POPULATE, where
// the system has it) rather than a fault at a time as it is first read:
// for what will be read whole (a symbol table, its names, kallsyms), one
// system call instead of a page fault per 64 kB (the kernel maps 16 pages
// around each), which on this project's virtual machines halves the time
// to read a 5 MB kallsyms copy.
func mapFile(f *os.File, off, size int64, populate bool) (data []byte, m *mapping, ok bool) {
	page := int64(os.Getpagesize())
	start := off &^ (page - 1)
	delta := off - start
	if off < 0 || size <= 0 || size > int64(^uint(0)>>1)-delta {
		return nil, nil, false
	}
	flags := syscall.MAP_PRIVATE
	if populate {
		flags |= mapPopulate
	}
	mem, err := syscall.Mmap(int(f.Fd()), start, int(delta+size), syscall.PROT_READ, flags)
	if err != nil {
		return nil, nil, false
	}
	m = &mapping{mem: mem}
	runtime.AddCleanup(m, func(mem []byte) {
		syscall.Munmap(mem)
		unmapped.Add(1)
	}, mem)
	return mem[delta : delta+size], m, true
}
