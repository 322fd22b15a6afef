package cli

import (
	"os"
	"syscall"
)

// stdoutClosed reports whether the process was started with its standard
// output closed (cmd >&-). The Go runtime then opens /dev/null in its
// place, read-write, and everything written would vanish without an
// error; a shell's > /dev/null, and systemd's StandardOutput=null, open
// it write-only. (A deliberate 1<>/dev/null is taken for closed too.)
func stdoutClosed() bool {
	flags, _, errno := syscall.Syscall(syscall.SYS_FCNTL, 1, syscall.F_GETFL, 0)
	if errno != 0 || flags&syscall.O_ACCMODE != syscall.O_RDWR {
		return false
	}
	var fd, null syscall.Stat_t
	if syscall.Fstat(1, &fd) != nil || syscall.Stat(os.DevNull, &null) != nil {
		return false
	}
	return fd.Mode&syscall.S_IFMT == syscall.S_IFCHR && fd.Rdev == null.Rdev
}
