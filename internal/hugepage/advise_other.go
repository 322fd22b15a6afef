//go:build !linux

package hugepage

// advise does nothing on this system.
func advise(b []byte) {}
