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
	"flamekit/pkg/perf/symbols"
)

// TestJitdump reads a real node capture (scripts/capture-jit: node
// --perf-prof recorded with perf record -k mono) with its jit-PID.dump,
// without perf inject, and names its JIT frames as perf inject --jit and
// perf script did.
func TestJitdump(t *testing.T) {
	dir := t.TempDir()
	data, err := golden.Read("../jitdump/testdata/node.data.gz")
	if err != nil {
		t.Fatal(err)
	}
	capture := filepath.Join(dir, "node.data")
	os.WriteFile(capture, data, 0o644)
	dump, err := golden.Read("../jitdump/testdata/node.dump.gz")
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
	f, err := os.Open("../jitdump/testdata/node.oracle.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, _ := gzip.NewReader(f)
	sc := bufio.NewScanner(zr)
	for sc.Scan() {
		p := strings.SplitN(sc.Text(), " ", 4)
		ts, _ := strconv.ParseInt(p[1], 10, 64)
		want[key{ts / 1000, p[2]}] = p[3] // the reader's times are in µs, as perf script's

	}

	empty := t.TempDir()
	sy := symbols.NewResolver(symbols.Options{JITDumpDir: dir, PerfMapDir: empty, Proc: filepath.Join(empty, "noproc")})
	r, err := Open(capture, Options{Symbolizer: sy, AllowForeign: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	equal, differ := 0, 0
	for r.Next() {
		s := r.Sample()
		for _, fr := range s.Frames {
			name, ok := want[key{int64(s.Time) / 1000, string(fr.Addr)}]
			if !ok {
				continue
			}
			if got := string(fr.Symbol); strings.HasPrefix(got, name+"+0x") {
				equal++
				continue
			}
			if differ++; differ <= 5 {
				t.Errorf("%s at %v: %q, perf inject --jit: %q", fr.Addr, s.Time, fr.Symbol, name)
			}
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	if equal < 1000 {
		t.Fatalf("only %d JIT frames compared", equal)
	}
	t.Logf("%d JIT frames named as perf inject --jit did, %d otherwise", equal, differ)
}
