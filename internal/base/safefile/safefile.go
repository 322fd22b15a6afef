// Package safefile opens the files a capture names — perf maps, jitdump
// files, binaries, debug files, kallsyms copies — which a profiled
// process may have written and which flamekit often reads as root.
//
// One way to open them: stat first, refusing anything but a regular file
// before it is opened (a FIFO would block the reader for ever, a device
// such as /dev/zero never ends); then open with O_NONBLOCK and, unless the
// Rule allows a final symbolic link, O_NOFOLLOW; fstat the open file and
// check it is the file stat saw (a swap between the two is refused), its
// owner and its size; and read at most the bound even if the file grows.
//
// Owners: perf up to 4.13 ignored a /tmp/perf-PID.map that lstat showed
// was owned neither by root nor by perf's effective uid ("File %s not
// owned by current user or root, ignoring it (use -f to override)"); perf
// 6.1's dso__load opens the map with fopen and checks no owner, and
// keeps the owner check only for perf.data (open_file_read) and
// ~/.perfconfig. Rule.Owners lets the caller say who may own a file:
// for perf maps and jitdump, root, the reader and the profiled process's
// user when it is known.
package safefile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"
)

// Errors wrapped by an *Error, to tell why a file was skipped.
var (
	// ErrNotRegular: a FIFO, a socket, a device or a directory.
	ErrNotRegular = errors.New("not a regular file")
	// ErrSymlink: a symbolic link where the Rule allows none.
	ErrSymlink = errors.New("a symbolic link")
	// ErrOwner: owned by a user the Rule does not trust.
	ErrOwner = errors.New("owned by an untrusted user")
	// ErrTooLarge: larger than the Rule's bound.
	ErrTooLarge = errors.New("too large")
	// ErrChanged: the file changed between stat and open.
	ErrChanged = errors.New("replaced while being opened")
	// ErrWritable: others may write to it where the Rule wants it private.
	ErrWritable = errors.New("writable by others")
)

// Rule says which files of one kind may be read.
type Rule struct {
	// What names the kind of file in messages: "perf map", "jitdump".
	What string
	// Max is the largest size read, in bytes; 0 is no bound.
	Max int64
	// FollowSymlink allows the last component to be a symbolic link (the
	// build-id cache's links); the file it leads to is checked as any.
	FollowSymlink bool
	// Owners, when not nil, are the uids that may own the file.
	Owners []uint32
	// Force skips the owner check (perf's -f).
	Force bool
	// Private refuses a file its group or others may write to: one that
	// only its owner can have written (a cache of the reader's own).
	Private bool
}

// Trusted returns the owners perf-like tools trust for files a process
// writes about itself: root, the reader's effective uid, and, when
// processUID is not negative, that process's user.
func Trusted(processUID int) []uint32 {
	o := []uint32{0}
	if e := os.Geteuid(); e > 0 {
		o = append(o, uint32(e))
	}
	if processUID > 0 {
		o = append(o, uint32(processUID))
	}
	return o
}

// Error is a file refused by a Rule, with what to do about it.
type Error struct {
	Path string
	What string // the Rule's What
	Err  error  // ErrNotRegular, ErrOwner, ... or an error of the system
	// Detail says what was seen: "a FIFO", "owner uid 1234",
	// "53687091200 bytes, bound 1073741824".
	Detail string
}

func (e *Error) Error() string {
	what := e.What
	if what == "" {
		what = "file"
	}
	s := fmt.Sprintf("%s %s: skipped: %v", what, e.Path, e.Err)
	if e.Detail != "" {
		s += " (" + e.Detail + ")"
	}
	switch {
	case errors.Is(e.Err, ErrOwner):
		s += "; a process may only describe itself: check who wrote it, or use --force to read it anyway"
	case errors.Is(e.Err, ErrTooLarge):
		s += "; a real one is far smaller: check what wrote it"
	}
	return s
}

func (e *Error) Unwrap() error { return e.Err }

// Open opens path for reading under rule and returns the file with its
// size. The caller closes it.
func Open(path string, rule Rule) (*os.File, int64, error) {
	f, info, err := open(path, rule)
	return f, info.Size, err
}

// Info is what the checks of OpenInfo read of the file opened.
type Info struct {
	Size    int64
	ModTime time.Time
}

// OpenInfo is Open, with the file's modification time from the same
// fstat (a cache that ages its entries needs no second one).
func OpenInfo(path string, rule Rule) (*os.File, Info, error) {
	return open(path, rule)
}

// ReadFile reads path under rule: at most rule.Max bytes, even when the
// file grows while it is read (then the result is an *Error wrapping
// ErrTooLarge).
func ReadFile(path string, rule Rule) ([]byte, error) {
	f, info, err := open(path, rule)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	size := info.Size
	limit := rule.Max
	if limit <= 0 {
		limit = 1 << 62 // no bound; one more must not overflow
	}
	// The size fstat gave is a hint only: read up to one byte more than
	// the bound to see a file that grew.
	buf := make([]byte, 0, size+1)
	data, err := readAtMost(f, buf, limit)
	if err != nil {
		return nil, &Error{Path: path, What: rule.What, Err: err}
	}
	if int64(len(data)) > limit {
		return nil, &Error{Path: path, What: rule.What, Err: ErrTooLarge,
			Detail: "grew past " + strconv.FormatInt(limit, 10) + " bytes while read"}
	}
	return data, nil
}

// readAtMost appends to buf what r holds, stopping after limit+1 bytes.
func readAtMost(r io.Reader, buf []byte, limit int64) ([]byte, error) {
	lr := io.LimitReader(r, limit+1)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := lr.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

func (r Rule) ownerOK(uid uint32) bool {
	if r.Force || r.Owners == nil {
		return true
	}
	for _, o := range r.Owners {
		if o == uid {
			return true
		}
	}
	return false
}
