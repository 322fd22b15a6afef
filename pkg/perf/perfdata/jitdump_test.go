package perfdata

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"flamekit/internal/testkit/golden"
	"flamekit/pkg/perf/jitdump"
	"flamekit/pkg/perf/sample"
	"flamekit/pkg/perf/symbols"
)

// TestJitdump reads real captures of JITs (scripts/capture-jit: recorded
// with perf record -k mono) with their jit-PID.dump, without perf inject,
// and names their JIT frames as perf inject --jit and perf script did,
// with the Reader's own frames and with deferred ones (FrameCache):
//   - node: node --perf-prof;
//   - jitreuse: a JIT that ran fn_a, then fn_b at the same address
//     (testdata/perf/src/jitreuse.c): each sample names the code at the
//     address at its time, not the code loaded there last.
func TestJitdump(t *testing.T) {
	for _, c := range []struct {
		name string
		min  int // JIT frames the oracle has at least
	}{
		{"node", 1000},
		{"jitreuse", 1000},
	} {
		for _, deferred := range []bool{false, true} {
			name := c.name
			if deferred {
				name += "/deferred"
			}
			t.Run(name, func(t *testing.T) { testJitdump(t, c.name, c.min, deferred) })
		}
	}
}

func testJitdump(t *testing.T, name string, minFrames int, deferred bool) {
	dir := t.TempDir()
	data, err := golden.Read("../jitdump/testdata/" + name + ".data.gz")
	if err != nil {
		t.Fatal(err)
	}
	capture := filepath.Join(dir, name+".data")
	os.WriteFile(capture, data, 0o644)
	dump, err := golden.Read("../jitdump/testdata/" + name + ".dump.gz")
	if err != nil {
		t.Fatal(err)
	}
	d, err := jitdump.Read(bytes.NewReader(dump))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "jit-"+strconv.Itoa(int(d.PID))+".dump"), dump, 0o644)

	// The oracle: "COUNT TIME_NS ADDRESS NAME" per JIT frame.
	type key struct {
		t    int64
		addr string
	}
	want := map[key]string{}
	wantNames := map[string]int{} // JIT frames per name
	f, err := os.Open("../jitdump/testdata/" + name + ".oracle.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, _ := gzip.NewReader(f)
	sc := bufio.NewScanner(zr)
	for sc.Scan() {
		p := strings.SplitN(sc.Text(), " ", 4)
		count, _ := strconv.Atoi(p[0])
		ts, _ := strconv.ParseInt(p[1], 10, 64)
		want[key{ts / 1000, p[2]}] = p[3] // the reader's times are in µs, as perf script's
		wantNames[p[3]] += count
	}

	empty := t.TempDir()
	sy := symbols.NewResolver(symbols.Options{JITDumpDir: dir, PerfMapDir: empty, Proc: filepath.Join(empty, "noproc")})
	r, err := Open(capture, Options{Symbolizer: sy, AllowForeign: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	equal, differ := 0, 0
	gotNames := map[string]int{}
	check := func(s *sample.Sample) {
		for _, fr := range s.Frames {
			name, ok := want[key{int64(s.Time) / 1000, string(fr.Addr)}]
			if !ok {
				continue
			}
			got := string(fr.Symbol)
			gotNames[got[:max(0, strings.LastIndex(got, "+0x"))]]++
			if strings.HasPrefix(got, name+"+0x") {
				equal++
				continue
			}
			if differ++; differ <= 5 {
				t.Errorf("%s at %v: %q, perf inject --jit: %q", fr.Addr, s.Time, fr.Symbol, name)
			}
		}
	}
	if deferred {
		r.DeferFrames()
	}
	var b Samples
	fc := r.NewFrameCache()
	for r.Next() {
		if !deferred {
			check(r.Sample())
			continue
		}
		r.Keep(&b)
		s := r.Sample()
		s.Frames = s.Frames[:0]
		for _, n := range fc.Chain(&b, b.Len()-1) {
			s.Frames = append(s.Frames, *fc.Frame(n))
		}
		check(s)
		if b.Len() == 7 {
			b.Reset()
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	if equal < minFrames {
		t.Fatalf("only %d JIT frames compared", equal)
	}
	if name == "jitreuse" {
		for fn, n := range wantNames {
			if gotNames[fn] != n {
				t.Errorf("%d frames of %s, perf inject --jit: %d", gotNames[fn], fn, n)
			}
		}
		t.Logf("JIT frames per function: %v, perf inject --jit: %v", gotNames, wantNames)
	}
	t.Logf("%d JIT frames named as perf inject --jit did, %d otherwise", equal, differ)
}
