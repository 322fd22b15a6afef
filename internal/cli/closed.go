package cli

import "syscall"

// closedWriter is standard output when the process was started with it
// closed: every write fails, as write(2) on a closed descriptor does.
type closedWriter struct{}

func (closedWriter) Write([]byte) (int, error) { return 0, errClosed{} }

// errClosed is the error of a write to a closed standard output.
type errClosed struct{}

func (errClosed) Error() string { return "bad file descriptor (it is closed)" }

func (errClosed) Is(target error) bool { return target == syscall.EBADF }
