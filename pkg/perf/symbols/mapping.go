package symbols

import (
	"runtime"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"unsafe"
)

// mapping is a read-only mapping of (part of) a file that the names of
// tables are cut from (see mapFile). Names handed to callers are never
// pieces of it: Lookup copies a name the first time it finds it, so that
// the mapping can be unmapped when the tables are unreachable. A file
// truncated while mapped makes reading the lost pages fail (SIGBUS);
// with faultsPanic that becomes a panic that onFault recovers.
type mapping struct {
	mem []byte
}

// unmapped counts the mappings unmapped (for the tests).
var unmapped atomic.Int64

// contains reports whether s points into the mapping.
func (m *mapping) contains(s string) bool {
	if m == nil || len(s) == 0 || len(m.mem) == 0 {
		return false
	}
	base := uintptr(unsafe.Pointer(unsafe.SliceData(m.mem)))
	p := uintptr(unsafe.Pointer(unsafe.StringData(s)))
	return p >= base && p-base < uintptr(len(m.mem))
}

// own returns s, copied if it points into the mapping.
func (m *mapping) own(s string) string {
	if m.contains(s) {
		return strings.Clone(s)
	}
	return s
}

// faultsPanic makes a memory fault of the calling goroutine (reading a
// mapped file that was truncated) a panic instead of a crash; the
// returned function restores the previous setting.
func faultsPanic() (restore func()) {
	old := debug.SetPanicOnFault(true)
	return func() { debug.SetPanicOnFault(old) }
}

// onFault, deferred after faultsPanic, recovers a memory fault (a mapped
// file truncated while read) and hands it to set; any other panic goes
// on:
//
//	defer faultsPanic()()
//	defer onFault(func(r any) { err = ... })
func onFault(set func(fault any)) {
	if r := recover(); r != nil {
		if !isFault(r) {
			panic(r)
		}
		set(r)
	}
}

// isFault reports whether a recovered value is a memory fault made a
// panic by faultsPanic.
func isFault(r any) bool {
	_, ok := r.(interface{ Addr() uintptr })
	if !ok {
		return false
	}
	_, ok = r.(runtime.Error)
	return ok
}
