package source

import (
	"os"
	"sync"
)

// temps are the temporary files this package made and has not removed:
// copies of streams, decompressed copies of perf.data files.
var temps struct {
	sync.Mutex
	paths map[string]bool
}

// createTemp creates a temporary file in dir ("" is os.TempDir()) and
// keeps its name until removeTemp, for RemoveTemps.
func createTemp(dir, pattern string) (*os.File, error) {
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return nil, err
	}
	temps.Lock()
	if temps.paths == nil {
		temps.paths = map[string]bool{}
	}
	temps.paths[f.Name()] = true
	temps.Unlock()
	return f, nil
}

// removeTemp removes a file made by createTemp.
func removeTemp(path string) error {
	temps.Lock()
	delete(temps.paths, path)
	temps.Unlock()
	return os.Remove(path)
}

// RemoveTemps removes every temporary file the package made and has not
// removed yet (the copies of streams that Input.Keep asked for, the
// decompressed copies that Input.Path made). It is for a program about to
// exit on a signal (see internal/cli), which runs no deferred Close: an
// interrupted run leaves nothing in $TMPDIR. The inputs are unusable
// after it.
func RemoveTemps() {
	temps.Lock()
	defer temps.Unlock()
	for p := range temps.paths {
		os.Remove(p)
		delete(temps.paths, p)
	}
}
