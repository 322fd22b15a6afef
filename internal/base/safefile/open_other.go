//go:build !unix

package safefile

import "os"

// open checks what the platform allows: a regular file, its size and
// modification time.
func open(path string, rule Rule) (*os.File, Info, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, Info{}, err
	}
	if fi.Mode()&os.ModeSymlink != 0 && !rule.FollowSymlink {
		return nil, Info{}, &Error{Path: path, What: rule.What, Err: ErrSymlink}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, Info{}, err
	}
	fi, err = f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, Info{}, &Error{Path: path, What: rule.What, Err: ErrNotRegular}
	}
	if rule.Private && fi.Mode().Perm()&0o022 != 0 {
		f.Close()
		return nil, Info{}, &Error{Path: path, What: rule.What, Err: ErrWritable}
	}
	if rule.Max > 0 && fi.Size() > rule.Max {
		f.Close()
		return nil, Info{}, &Error{Path: path, What: rule.What, Err: ErrTooLarge}
	}
	return f, Info{Size: fi.Size(), ModTime: fi.ModTime()}, nil
}
