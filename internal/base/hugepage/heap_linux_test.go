package hugepage

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"unsafe"
)

// TestHeap: after Heap, memory the program allocates next lies in a
// mapping that asks for huge pages (VmFlags "hg" in /proc/self/smaps),
// where before it did not have to.
func TestHeap(t *testing.T) {
	if _, err := os.Stat("/sys/kernel/mm/transparent_hugepage/enabled"); err != nil {
		t.Skip("this kernel has no transparent huge pages:", err)
	}
	Heap(64 << 20)
	// Spans of 8 MB, allocated after Heap: each is cut from the memory
	// it marked, whose whole 2 MB pages ask for huge pages.
	var keep [][]byte
	for range 4 {
		b := make([]byte, 8<<20)
		b[0] = 1
		keep = append(keep, b)
		addr := (uintptr(unsafe.Pointer(unsafe.SliceData(b))) + size2M - 1) &^ (size2M - 1)
		wantHuge(t, addr, "the first whole 2 MB page of a slice allocated after Heap")
	}
	runtime.KeepAlive(keep) // each slice allocated anew, not reused
}

// vmFlags returns the VmFlags of the mapping of this process that holds
// addr; errNoFlags when the kernel does not say.
func vmFlags(addr uintptr) (string, error) {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return "", err
	}
	defer f.Close()
	in, found := false, false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		var lo, hi uintptr
		if n, _ := fmt.Sscanf(line, "%x-%x", &lo, &hi); n == 2 && strings.IndexByte(line, ' ') > 0 {
			in = lo <= addr && addr < hi
			continue
		}
		if in && strings.HasPrefix(line, "VmFlags:") {
			return strings.TrimSpace(strings.TrimPrefix(line, "VmFlags:")), nil
		}
		if in {
			found = true
		}
	}
	if found {
		return "", errNoFlags
	}
	return "", fmt.Errorf("no mapping of /proc/self/smaps holds %#x (%v)", addr, sc.Err())
}

var errNoFlags = errors.New("no VmFlags")

// TestFirst: after First, the heap's chunk that objects are allocated from
// lies in a mapping that asks for huge pages.
func TestFirst(t *testing.T) {
	if _, err := os.Stat("/sys/kernel/mm/transparent_hugepage/enabled"); err != nil {
		t.Skip("this kernel has no transparent huge pages:", err)
	}
	if b, _ := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled"); strings.Contains(string(b), "[never]") {
		t.Skip("transparent huge pages are off here")
	}
	First()
	wantHuge(t, heapAddr()&^(arenaChunk-1), "the heap's chunk First asked huge pages for")
}

// wantHuge fails t unless the mapping holding addr asks for huge pages
// (VmFlags "hg"); it skips t where the kernel does not say.
func wantHuge(t *testing.T, addr uintptr, what string) {
	t.Helper()
	flags, err := vmFlags(addr)
	if err == errNoFlags {
		t.Skip("this kernel's /proc/self/smaps has no VmFlags: cannot tell")
	}
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(" "+flags+" ", " hg ") {
		t.Errorf("%s, at %#x, is in a mapping with VmFlags %q, without hg", what, addr, flags)
	}
}
