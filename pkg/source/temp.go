package source

import (
	"errors"
	"fmt"
	"os"
	"sync"
)

// tempFile is a temporary file of this package: a copy of a stream, or a
// decompressed copy of a perf.data file. Where /proc is mounted (Linux),
// it is unlinked as soon as it is made and used through /proc/PID/fd/N
// while it is open, so that nothing is left in $TMPDIR however the
// program ends: an error, SIGPIPE from `| head`, SIGHUP, SIGKILL. Without
// /proc it keeps its name until close, or RemoveTemps on a signal.
type tempFile struct {
	f     *os.File
	path  string // how to open it again: /proc/PID/fd/N, or its name
	named bool   // it still has its name in the directory
}

// procFD names a descriptor of a process (a variable for the tests of
// the fallback without /proc).
var procFD = "/proc/%d/fd/%d"

// temps are the temporary files that still have a name; closing is set
// by RemoveTemps, after which no file is made. onNamed is called before
// the first file that may keep its name is made (see OnNamedTemp).
var temps struct {
	sync.Mutex
	paths   map[string]bool
	closing bool
	onNamed func()
}

// OnNamedTemp sets fn to be called once, before the first temporary file
// that keeps its name is made: where /proc is missing, or a file could
// not be unlinked. A program that removes them on a signal (RemoveTemps)
// installs its handler in fn: where /proc is mounted it is never needed,
// and the signals keep their default action (the process dies of them, as
// a shell loop interrupted by ^C expects).
func OnNamedTemp(fn func()) {
	temps.Lock()
	defer temps.Unlock()
	temps.onNamed = fn
}

// named runs the OnNamedTemp function, once; temps is locked.
func named() {
	if fn := temps.onNamed; fn != nil {
		temps.onNamed = nil
		fn()
	}
}

// createTemp creates a temporary file in dir ("" is os.TempDir()) and
// unlinks it when it can be opened again through /proc; else it keeps its
// name until close, for RemoveTemps. The lock held throughout makes a
// signal's RemoveTemps wait for the unlinking: no name escapes it.
func createTemp(dir, pattern string) (*tempFile, error) {
	temps.Lock()
	defer temps.Unlock()
	if temps.closing {
		return nil, errors.New("the program is ending")
	}
	if _, err := os.Stat(fmt.Sprintf(procFD, os.Getpid(), 0)); err != nil {
		named() // no /proc: the file will keep its name
	}
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return nil, err
	}
	proc := fmt.Sprintf(procFD, os.Getpid(), f.Fd())
	if st, err := os.Stat(proc); err == nil && os.SameFile(st, mustStat(f)) {
		if err := os.Remove(f.Name()); err == nil {
			return &tempFile{f: f, path: proc}, nil
		}
	}
	named()
	if temps.paths == nil {
		temps.paths = map[string]bool{}
	}
	temps.paths[f.Name()] = true
	return &tempFile{f: f, path: f.Name(), named: true}, nil
}

func mustStat(f *os.File) os.FileInfo {
	st, err := f.Stat()
	if err != nil {
		return nil
	}
	return st
}

// close closes the file and removes its name if it still has one. An
// unlinked file is gone with its last descriptor.
func (t *tempFile) close() error {
	err := t.f.Close()
	if t.named {
		temps.Lock()
		delete(temps.paths, t.f.Name())
		temps.Unlock()
		if rerr := os.Remove(t.f.Name()); rerr != nil && !os.IsNotExist(rerr) && err == nil {
			err = rerr
		}
	}
	return err
}

// RemoveTemps removes every temporary file the package made that still
// has a name (none where /proc is mounted: they are unlinked when made).
// It is for a program about to exit on a signal (see internal/cli), which
// runs no deferred Close. The inputs are unusable after it.
func RemoveTemps() {
	temps.Lock()
	defer temps.Unlock()
	temps.closing = true
	for p := range temps.paths {
		os.Remove(p)
		delete(temps.paths, p)
	}
}
