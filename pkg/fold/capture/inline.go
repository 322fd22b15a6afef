package capture

import (
	"sync"

	"flamekit/pkg/perf/perfdata"
)

// inlineObjects is what --inline needs of the perf.data inputs: the
// build-id each recorded its objects with, so that the debug information
// of an object is read from the file of that build-id (the object at its
// path, or the build-id cache's copy, as the symbols come from), and
// never from another build of it.
type inlineObjects struct {
	mu     sync.Mutex
	ids    map[string]string // object path → recorded build-id
	warned bool
}

// noteInline keeps the build-id table of the perf.data file r reads,
// for --inline.
func (f *Folder) noteInline(r *perfdata.Reader) {
	if !f.Inline {
		return
	}
	ids := r.BuildIDs()
	f.inline.mu.Lock()
	defer f.inline.mu.Unlock()
	if f.inline.ids == nil {
		f.inline.ids = map[string]string{}
	}
	for _, b := range ids {
		if _, ok := f.inline.ids[b.File]; !ok && !b.Kernel {
			f.inline.ids[b.File] = b.ID
		}
	}
}

// prepareInline lets --inline read objects through inlineObject, before
// the run starts.
func (f *Folder) prepareInline() {
	if f.Inline && f.InlineObject == nil {
		f.InlineObject = f.inlineObject
	}
}

// inlineObject is collapse.Driver.InlineObject for perf.data inputs: the
// file of the recorded build-id (symbols.Resolver.ObjectFile); an object
// recorded without one is read at its path; one whose file here has
// another build-id is not read.
func (f *Folder) inlineObject(dso string) (string, bool) {
	f.inline.mu.Lock()
	id := f.inline.ids[dso]
	f.inline.mu.Unlock()
	if id == "" {
		return "", true
	}
	_, closeFn, name, err := f.Resolver.ObjectFile(dso, id)
	if err != nil {
		f.inline.mu.Lock()
		warn := !f.inline.warned
		f.inline.warned = true
		f.inline.mu.Unlock()
		if warn {
			f.warnf("--inline: %v: its frames are not expanded (and those of other such objects)", err)
		}
		return "", false
	}
	closeFn()
	return name, true
}
