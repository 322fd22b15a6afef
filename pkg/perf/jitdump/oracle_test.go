package jitdump

import (
	"bufio"
	"compress/gzip"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestOracle reads the jit-PID.dump of a real node capture
// (scripts/capture-jit) and names every JIT frame of its samples as perf
// inject --jit and perf script did.
func TestOracle(t *testing.T) {
	f, err := os.Open("testdata/node.dump.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	d, err := Read(zr)
	if err != nil {
		t.Fatal(err)
	}
	if d.Truncated || d.Malformed != 0 || d.Loads < 1000 {
		t.Fatalf("dump: %d loads, truncated %v, malformed %d", d.Loads, d.Truncated, d.Malformed)
	}
	if d.Flags&FlagArchTimestamp != 0 {
		t.Fatal("V8 wrote TSC timestamps; the capture needs CLOCK_MONOTONIC (perf record -k mono)")
	}
	o, err := os.Open("testdata/node.oracle.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	oz, err := gzip.NewReader(o)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(oz)
	frames, bad := 0, 0
	for line := 1; sc.Scan(); line++ {
		// COUNT TIME_NS ADDRESS NAME
		parts := strings.SplitN(sc.Text(), " ", 4)
		if len(parts) != 4 {
			t.Fatalf("node.oracle.gz:%d: %q", line, sc.Text())
		}
		count, err1 := strconv.Atoi(parts[0])
		ts, err2 := strconv.ParseUint(parts[1], 10, 64)
		addr, err3 := strconv.ParseUint(parts[2], 16, 64)
		if err1 != nil || err2 != nil || err3 != nil {
			t.Fatalf("node.oracle.gz:%d: %q", line, sc.Text())
		}
		frames += count
		r, ok := d.Lookup(addr, ts)
		if !ok || r.Name != parts[3] {
			bad += count
			if bad < 10 {
				t.Errorf("node.oracle.gz:%d: %#x at %d: %q, perf: %q", line, addr, ts, r.Name, parts[3])
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if frames < 1000 {
		t.Fatalf("only %d JIT frames in the oracle", frames)
	}
	if bad > 0 {
		t.Errorf("%d of %d JIT frames named otherwise than perf", bad, frames)
	}
	t.Logf("%d JIT frames named as perf inject --jit did; dump: %d loads, %d moves, %d debug infos",
		frames, d.Loads, d.Moves, d.DebugInfos)
}
