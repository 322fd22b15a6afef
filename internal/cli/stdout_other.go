//go:build !linux

package cli

// stdoutClosed reports whether the process was started with its standard
// output closed; it is only told on Linux.
func stdoutClosed() bool { return false }
