package perfdata

import (
	"os"
	"slices"
	"strings"
)

// BuildID is one entry of a capture's build-id table (perf record
// writes one for every file that has samples, unless -B): the file, as
// perf names it, and its GNU build-id.
type BuildID struct {
	File   string
	ID     string // lowercase hexadecimal
	Kernel bool   // the kernel or one of its modules
}

// BuildIDs reads the build-id table of the perf.data file at path (its
// header only: no sample is read), host entries sorted by file.
func BuildIDs(path string) ([]BuildID, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	fi, err := readHeader(f, st.Size(), path)
	if err != nil {
		return nil, err
	}
	return fi.buildIDList(), nil
}

// BuildIDs returns the build-id table of the file r reads, as the
// function BuildIDs does, without reading its header again.
func (r *Reader) BuildIDs() []BuildID { return r.fi.buildIDList() }

// buildIDList is the header's build-id table, sorted by file.
func (fi *fileInfo) buildIDList() []BuildID {
	out := make([]BuildID, 0, len(fi.buildIDs))
	for name, b := range fi.buildIDs {
		out = append(out, BuildID{File: name, ID: hexID(b.id), Kernel: b.kernel})
	}
	slices.SortFunc(out, func(a, b BuildID) int { return strings.Compare(a.File, b.File) })
	return out
}
