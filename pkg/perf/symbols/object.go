package symbols

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"
)

// ObjectFile opens the file perf reads an object's code and unwind tables
// from (perf's dso__data_fd, for perf record --call-graph dwarf): the
// build-id cache's copy, else the object's own path, else for "[vdso]"
// the running vdso (Options.VDSO). A file whose build-id is not buildID
// ("" accepts any) is not used. name says which file it is; the caller
// closes it.
func (r *Resolver) ObjectFile(path, buildID string) (f io.ReaderAt, closeFn func() error, name string, err error) {
	vdso := path == "[vdso]"
	if !vdso && (!strings.HasPrefix(path, "/") || pseudoFile(path)) {
		return nil, nil, "", fmt.Errorf("%s: not a file: %w", path, fs.ErrNotExist)
	}
	var cands []string
	if buildID != "" {
		base := "elf"
		if vdso {
			base = "vdso"
			cands = append(cands, filepath.Join(r.opts.BuildIDDir, "[vdso]", buildID, "vdso"))
		}
		cands = append(cands, r.buildIDPath(buildID, base))
	}
	if !vdso {
		cands = append(cands, path)
	}
	var mismatch []string
	for _, c := range cands {
		if c == "" || !isRegular(c) {
			continue
		}
		ef, err := openELF(c)
		if err != nil {
			continue
		}
		if got := ef.buildID(); buildID != "" && got != buildID {
			mismatch = append(mismatch, fmt.Sprintf("%s has %s", c, orNone(got)))
			ef.Close()
			continue
		}
		return ef.file, ef.Close, c, nil
	}
	if vdso {
		img := r.runningVDSO()
		if img.err == nil {
			ef, err := newELF(img.name, bytes.NewReader(img.data))
			if err == nil && (buildID == "" || ef.buildID() == buildID) {
				return bytes.NewReader(img.data), func() error { return nil }, img.name, nil
			}
		}
	}
	if len(mismatch) > 0 {
		return nil, nil, "", fmt.Errorf("%w: recorded %s, %s", ErrBuildIDMismatch, buildID, strings.Join(mismatch, ", "))
	}
	return nil, nil, "", fmt.Errorf("%s: no file with its code: %w", path, fs.ErrNotExist)
}
