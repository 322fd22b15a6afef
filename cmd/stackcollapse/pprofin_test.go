package main

import (
	"os"
	"strings"
	"testing"

	"flamekit/pkg/folded"
)

const goCPU = "../../pkg/interop/pprof/testdata/go/cpu.pprof"
const goMem = "../../pkg/interop/pprof/testdata/go/mem.pprof"

// sum adds the counts of folded text.
func sum(t *testing.T, s string) (float64, int) {
	t.Helper()
	rd := folded.NewReader(strings.NewReader(s), "out")
	var n float64
	lines := 0
	for rd.Next() {
		n += rd.Record().Count
		lines++
	}
	if err := rd.Err(); err != nil {
		t.Fatal(err)
	}
	return n, lines
}

// TestPprofInput: real Go profiles are recognised by content (file or
// stdin), folded with go tool pprof's sample type or the one asked for,
// with the profile's totals (2.01 s of CPU; 624098016 bytes allocated,
// the figures go tool pprof -top prints).
func TestPprofInput(t *testing.T) {
	mem, err := os.ReadFile(goMem)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		stdin  []byte
		args   []string
		total  float64
		stderr string
	}{
		{"cpu file", nil, []string{goCPU}, 2010000000, "folding sample type cpu/nanoseconds of samples, cpu"},
		{"cpu samples", nil, []string{"--sample-type", "samples", goCPU}, 201, ""},
		{"mem on stdin", mem, nil, 624098016, "alloc_space/bytes of alloc_objects, alloc_space, inuse_objects, inuse_space"},
		{"mem by index", nil, []string{"--sample-type=2", goMem}, 76, "skipped 52 samples whose inuse_objects is 0"},
		{"forced format", nil, []string{"--format", "pprof", "--no-time", goCPU}, 2010000000, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, stderr := run(t, tc.stdin, tc.args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if got, _ := sum(t, out); got != tc.total {
				t.Errorf("total %v, want %v", got, tc.total)
			}
			if !strings.Contains(stderr, tc.stderr) {
				t.Errorf("stderr %q lacks %q", stderr, tc.stderr)
			}
		})
	}
}

func TestPprofInputErrors(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"perf flag", []string{"--pid", goCPU}, 2, "--pid: only for perf script input"},
		{"mixed", []string{goCPU, "../../testdata/perf/go.txt.gz"}, 2, "some inputs are pprof and some perf script text"},
		{"no such type", []string{"--sample-type", "wall", goCPU}, 1, `no sample type "wall" in the profile (it has 0=samples/count, 1=cpu/nanoseconds)`},
		{"perf text forced as pprof", []string{"--format", "pprof", "../../testdata/perf/go.txt.gz"}, 1, "not a valid profile.proto"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := run(t, nil, tc.args...)
			if code != tc.code || !strings.Contains(stderr, tc.stderr) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr, tc.code, tc.stderr)
			}
		})
	}
}
