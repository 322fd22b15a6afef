//go:build !unix

package symbols

import "os"

// mapFile does not map files on this system: the caller reads them.
func mapFile(f *os.File, off, size int64, populate bool) (data []byte, m *mapping, ok bool) {
	return nil, nil, false
}
