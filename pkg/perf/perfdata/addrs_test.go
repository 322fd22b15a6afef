package perfdata

import (
	"bytes"
	"path/filepath"
	"testing"

	"flamekit/internal/testkit/golden"
	"flamekit/pkg/folded"
)

// checkAddrs checks the addresses of sample i of b against its chain of
// n frames: one address per frame, each inside the map it names.
func checkAddrs(t *testing.T, fc *FrameCache, b *Samples, i, n int, a *folded.Addrs) {
	t.Helper()
	fc.Addrs(b, i, a)
	if len(a.Frames) != n {
		t.Fatalf("sample %d: %d addresses for %d frames", i, len(a.Frames), n)
	}
	for _, f := range a.Frames {
		if f.Map >= int32(len(a.Maps)) {
			t.Fatalf("sample %d: map %d of %d", i, f.Map, len(a.Maps))
		}
		if f.Map >= 0 {
			if m := a.Maps[f.Map]; f.PC < m.Start || f.PC >= m.Limit {
				t.Fatalf("sample %d: %#x outside its map %s %#x-%#x", i, f.PC, m.File, m.Start, m.Limit)
			}
		}
	}
}

// TestAddrs: the addresses of the frames of real captures' samples are
// one per frame of their chains, in their maps, the program's with its
// build-id, each map of the sample's process (or the kernel's, -1).
func TestAddrs(t *testing.T) {
	for _, name := range []string{"go", "syswide", "nocallgraph", "dwc", "java"} {
		data, err := golden.Read(filepath.Join("testdata", name+".data.gz"))
		if err != nil {
			t.Fatal(err)
		}
		r, err := newReader(memFile{bytes.NewReader(data), int64(len(data))}, name, Options{})
		if err != nil {
			t.Fatal(err)
		}
		r.DeferFrames()
		var kept Samples
		for r.Next() {
			r.Keep(&kept)
		}
		fc := r.NewFrameCache()
		var a folded.Addrs
		files := map[string]string{}
		heads := kept.heads
		for i := range kept.Len() {
			checkAddrs(t, fc, &kept, i, len(fc.Chain(&kept, i)), &a)
			for _, m := range a.Maps {
				if m.PID != -1 && m.PID != heads[i].processID {
					t.Fatalf("%s sample %d: a map of process %d in process %d", name, i, m.PID, heads[i].processID)
				}
				if m.Symbolizable {
					files[m.File] = m.BuildID
				}
			}
		}
		r.Close()
		if name == "go" && files["/tmp/flamekit-perfdata/goprog.bin"] != "ee60327d5aaf71dd4887a9dd6271a9a2722db16e" || len(files) == 0 {
			t.Errorf("%s: files %v", name, files)
		}
		t.Logf("%s: %d samples, files %v", name, kept.Len(), files)
	}
}
