//go:build !linux

package hugepage

// supported: no transparent huge pages here.
const supported = false

// advise does nothing on this system.
func advise(b []byte) {}

// collapse does nothing on this system.
func collapse(start, n uintptr) {}
