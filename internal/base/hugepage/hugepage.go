// Package hugepage allocates large byte buffers backed, where the kernel
// allows it, by transparent huge pages.
//
// A buffer of tens of megabytes filled once (the stacks of a large
// profile) otherwise costs one page fault per 4 kB page touched; with 2 MB
// pages it costs one per 2 MB. On kernels whose transparent huge pages are
// set to "madvise" (the default of Debian and Ubuntu), only memory that
// asks for them gets them. On some virtual machines a page fault costs
// several microseconds: there, a flame graph of 80,000 stacks spent more
// time faulting in its buffers than drawing.
package hugepage

import "unsafe"

const size2M = 2 << 20

// Min is the smallest buffer worth asking huge pages for.
const Min = 4 << 20

// Bytes returns a byte slice of length 0 and capacity n, asking for huge
// pages when n is at least Min.
func Bytes(n int) []byte { return Slice[byte](n) }

// Slice returns a slice of length 0 and capacity n, asking for huge pages
// when it takes at least Min bytes.
func Slice[T any](n int) []T {
	s := make([]T, 0, n)
	if size := uintptr(n) * unsafe.Sizeof(*new(T)); size >= Min {
		advise(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), size))
	}
	return s
}

// Grow returns s with room for n more elements, like slices.Grow, but at
// least doubling its capacity, and asking for huge pages when the new
// slice takes at least Min bytes.
func Grow[T any](s []T, n int) []T {
	if len(s)+n <= cap(s) {
		return s
	}
	return append(Slice[T](max(len(s)+n, 2*cap(s))), s...)
}

// Table returns a zeroed slice of n elements of a type without pointers,
// placed on 2 MB boundaries and asking for huge pages when it takes at
// least 2 MB: for a table probed at random (a hash table), where each
// probe may otherwise miss the processor's TLB as well as its cache.
func Table[T any](n int) []T {
	size := uintptr(n) * unsafe.Sizeof(*new(T))
	if size < size2M {
		return make([]T, n)
	}
	// Room for the table on a 2 MB boundary: the pages before it are
	// never touched, so they cost no memory.
	b := make([]byte, size+size2M)
	start := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	off := (start+size2M-1)&^(size2M-1) - start
	b = b[off : off+size]
	advise(b)
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), n)
}
