package cli

import (
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// TestHeapAhead: huge pages are asked for by the size of the files the
// arguments name (sparse files here), standard input when it is a file,
// not for small inputs, flags or missing files, at least minHeapAhead
// and at most maxHeapAhead.
func TestHeapAhead(t *testing.T) {
	dir := t.TempDir()
	file := func(name string, size int64) string {
		p := filepath.Join(dir, name)
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Truncate(size); err != nil {
			t.Fatal(err)
		}
		f.Close()
		return p
	}
	small := file("small.folded", 512<<10)
	mid := file("mid.data", 10<<20)
	smallCapture := file("small.data", 2<<20)
	big := file("big.data", 100<<20)
	huge := file("huge.data", 1<<30)
	open := func(p string) *os.File {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	tests := []struct {
		name  string
		args  []string
		stdin *os.File
		want  int
	}{
		{"no input", nil, nil, 0},
		{"small file", []string{small}, nil, 0},
		{"flags and a missing file", []string{"--at", "70s", "-", filepath.Join(dir, "none")}, nil, 0},
		{"big file", []string{"--no-time", big}, nil, 200 << 20},
		{"a 10 MB capture", []string{mid}, nil, minHeapAhead},
		{"small files add up", []string{small, small, small}, nil, minHeapAhead},
		{"a 2 MB capture", []string{smallCapture}, nil, minHeapAhead},
		{"a directory", []string{dir}, nil, 0},
		{"big standard input", []string{"-"}, open(big), 200 << 20},
		{"small standard input", nil, open(small), 0},
		{"capped", []string{huge}, nil, maxHeapAhead},
	}
	for _, tc := range tests {
		if got := heapAhead(tc.args, tc.stdin); got != tc.want {
			t.Errorf("%s: heapAhead = %d MB, want %d MB", tc.name, got>>20, tc.want>>20)
		}
	}
}

// TestFloorPercent: the goal live*(1+p/100) is the floor while the live
// heap is under half of it, and twice the live heap (GOGC=100) after;
// the percentage never scales the runtime's heap minimum past the floor.
func TestFloorPercent(t *testing.T) {
	const mb = 1 << 20
	for _, tc := range []struct {
		live, floor uint64
		want        int
	}{
		{4 * mb, 64 * mb, 1500},  // goal 64 MB
		{16 * mb, 64 * mb, 300},  // goal 64 MB
		{32 * mb, 64 * mb, 100},  // goal 64 MB, as GOGC=100
		{100 * mb, 64 * mb, 100}, // past the floor: GOGC=100
		{0, 64 * mb, 1600},       // nothing live: the runtime's minimum, 4 MB × 16, is the goal
		{mb / 2, 64 * mb, 1600},  // the same bound: 12,700 would put the goal at 508 MB
		{mb / 2, 2 * mb, 100},    // a floor under the runtime's minimum: GOGC=100
	} {
		if got := floorPercent(tc.live, tc.floor); got != tc.want {
			t.Errorf("floorPercent(%d MB, %d MB) = %d, want %d", tc.live/mb, tc.floor/mb, got, tc.want)
		}
	}
}

// TestHeapFloor: once set, the floor raises the GC percentage while the
// heap is small, and a collection runs the tuner again. (The tuner then
// stays on in this test binary, as in a command: its heap may grow to
// minHeapAhead.)
func TestHeapFloor(t *testing.T) {
	runtime.GC()
	heapFloor(minHeapAhead)
	if p := debug.SetGCPercent(100); p <= 100 {
		t.Fatalf("GC percent after heapFloor(%d MB) on a small heap = %d, want more than 100", minHeapAhead>>20, p)
	}
	deadline := time.Now().Add(10 * time.Second)
	for debug.SetGCPercent(100) == 100 {
		if time.Now().After(deadline) {
			t.Fatal("the tuner did not run again after a collection")
		}
		runtime.GC() // the sentinel is garbage: its finalizer tunes again
		time.Sleep(time.Millisecond)
	}
}
