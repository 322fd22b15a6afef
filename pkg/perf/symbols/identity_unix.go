//go:build unix

package symbols

import (
	"encoding/binary"
	"fmt"
	"os"
	"syscall"
)

// statIdentity returns what tells one version of a file from another:
// its device and inode, size, and modification and change times (the
// change time moves with any write, and no user can set it).
func statIdentity(st *syscall.Stat_t) []byte {
	b := make([]byte, 0, 64)
	for _, v := range []uint64{uint64(st.Dev), st.Ino, uint64(st.Size),
		uint64(st.Mtim.Sec), uint64(st.Mtim.Nsec), uint64(st.Ctim.Sec), uint64(st.Ctim.Nsec)} {
		b = binary.LittleEndian.AppendUint64(b, v)
	}
	return b
}

// fileIdentity is statIdentity of an open file.
func fileIdentity(f *os.File) ([]byte, bool) {
	var st syscall.Stat_t
	if err := syscall.Fstat(int(f.Fd()), &st); err != nil {
		return nil, false
	}
	return statIdentity(&st), true
}

// pathIdentity is statIdentity of the file path names.
func pathIdentity(path string) ([]byte, bool) {
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		return nil, false
	}
	return statIdentity(&st), true
}

// privateDir checks that dir is a directory (not a symbolic link) owned
// by uid that no one else may write to.
func privateDir(dir string, uid uint32) error {
	var st syscall.Stat_t
	if err := syscall.Lstat(dir, &st); err != nil {
		return err
	}
	switch {
	case st.Mode&syscall.S_IFMT != syscall.S_IFDIR:
		return fmt.Errorf("%s: not a directory", dir)
	case st.Uid != uid:
		return fmt.Errorf("%s: owned by uid %d, not by this user (%d)", dir, st.Uid, uid)
	case st.Mode&0o022 != 0:
		return fmt.Errorf("%s: others may write to it (mode %o): chmod go-w it", dir, st.Mode&0o777)
	}
	return nil
}

// ownedBy reports whether path (followed) belongs to uid.
func ownedBy(path string, uid uint32) bool {
	var st syscall.Stat_t
	return syscall.Stat(path, &st) == nil && st.Uid == uid
}
