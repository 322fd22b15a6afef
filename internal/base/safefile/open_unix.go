//go:build unix

package safefile

import (
	"errors"
	"io/fs"
	"os"
	"strconv"
	"syscall"
	"time"
)

func open(path string, rule Rule) (*os.File, Info, error) {
	refuse := func(err error, detail string) (*os.File, Info, error) {
		return nil, Info{}, &Error{Path: path, What: rule.What, Err: err, Detail: detail}
	}
	// Look before opening: opening a device can have effects of its own,
	// and a FIFO is refused without touching it.
	var before syscall.Stat_t
	var err error
	if rule.FollowSymlink {
		err = syscall.Stat(path, &before)
	} else {
		err = syscall.Lstat(path, &before)
	}
	if err != nil {
		return nil, Info{}, &fs.PathError{Op: "stat", Path: path, Err: err}
	}
	if before.Mode&syscall.S_IFMT == syscall.S_IFLNK {
		return refuse(ErrSymlink, "")
	}
	if before.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return refuse(ErrNotRegular, kind(before.Mode))
	}
	flags := syscall.O_RDONLY | syscall.O_NONBLOCK | syscall.O_CLOEXEC
	if !rule.FollowSymlink {
		flags |= syscall.O_NOFOLLOW
	}
	f, err := os.OpenFile(path, flags, 0)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return refuse(ErrSymlink, "")
		}
		return nil, Info{}, err
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(int(f.Fd()), &st); err != nil {
		f.Close()
		return nil, Info{}, &fs.PathError{Op: "fstat", Path: path, Err: err}
	}
	fail := func(err error, detail string) (*os.File, Info, error) {
		f.Close()
		return refuse(err, detail)
	}
	switch {
	case st.Mode&syscall.S_IFMT != syscall.S_IFREG:
		return fail(ErrNotRegular, kind(st.Mode))
	case st.Dev != before.Dev || st.Ino != before.Ino:
		return fail(ErrChanged, "")
	case !rule.ownerOK(st.Uid):
		return fail(ErrOwner, "owner uid "+strconv.FormatUint(uint64(st.Uid), 10))
	case rule.Private && st.Mode&0o022 != 0:
		return fail(ErrWritable, "mode "+strconv.FormatUint(uint64(st.Mode&0o777), 8))
	case rule.Max > 0 && st.Size > rule.Max:
		return fail(ErrTooLarge, strconv.FormatInt(st.Size, 10)+" bytes, bound "+strconv.FormatInt(rule.Max, 10))
	}
	return f, Info{Size: st.Size, ModTime: time.Unix(st.Mtim.Unix())}, nil
}

// kind names a file type for messages.
func kind(mode uint32) string {
	switch mode & syscall.S_IFMT {
	case syscall.S_IFIFO:
		return "a FIFO"
	case syscall.S_IFCHR:
		return "a character device"
	case syscall.S_IFBLK:
		return "a block device"
	case syscall.S_IFDIR:
		return "a directory"
	case syscall.S_IFSOCK:
		return "a socket"
	case syscall.S_IFLNK:
		return "a symbolic link"
	}
	return "mode " + strconv.FormatUint(uint64(mode), 8)
}
