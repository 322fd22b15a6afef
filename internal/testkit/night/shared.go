package night

import (
	"fmt"
	"os"
	"sync"
	"testing"
	"time"
)

var shared struct {
	sync.Mutex
	nights map[string]*Night
	errs   map[string]error
	dirs   []string
}

// Shared generates the night of the idle capture of the given length
// (Options' defaults otherwise) once per process, in a new temporary
// directory, and returns it to every caller: the tests of a package share
// one night. RemoveShared (from TestMain) deletes the directories.
func Shared(length time.Duration, single bool) (*Night, error) {
	return SharedOf(Options{Length: length, Single: single})
}

// SharedOf is Shared for any night (o.Dir is ignored): one generation per
// distinct o per process.
func SharedOf(o Options) (*Night, error) {
	o.Dir = ""
	key := fmt.Sprintf("%+v %+v", o, *o.capture())
	shared.Lock()
	defer shared.Unlock()
	if n, ok := shared.nights[key]; ok {
		return n, shared.errs[key]
	}
	if shared.nights == nil {
		shared.nights, shared.errs = map[string]*Night{}, map[string]error{}
	}
	dir, err := os.MkdirTemp("", "flamekit-night-")
	if err == nil {
		shared.dirs = append(shared.dirs, dir)
		var n *Night
		o.Dir = dir
		n, err = Generate(o)
		shared.nights[key] = n
	}
	shared.errs[key] = err
	return shared.nights[key], err
}

// RemoveShared deletes the directories of the shared nights.
func RemoveShared() {
	shared.Lock()
	defer shared.Unlock()
	for _, d := range shared.dirs {
		os.RemoveAll(d)
	}
	shared.dirs = nil
	shared.nights, shared.errs = nil, nil
}

// TestLength is the length of the night a test generates: twelve hours,
// one hour with go test -short. It is meant to be called from tests.
func TestLength() time.Duration {
	if testing.Short() {
		return time.Hour
	}
	return 12 * time.Hour
}
