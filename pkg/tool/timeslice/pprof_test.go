package timeslice

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"flamekit/pkg/filter/selection"
	"flamekit/pkg/filter/window"
	"flamekit/pkg/tool"
)

// Real captures in several formats: timed folded (an estimated clock, and
// an exact one), perf script text, perf.data (gzipped, read from a
// decompressed copy).
var pprofCaptures = []string{
	"../../filter/window/testdata/burst.folded.gz",
	"../../../cmd/timeslice/testdata/clock-mono.folded.gz",
	"../../perf/perfdata/testdata/syswide.script.gz",
	"../../perf/perfdata/testdata/mono.data.gz",
}

// capturedOn is perf's "captured on" of a perf.data file: the date the
// file was last written (perf prints the file's mtime). A stream has none,
// so its copy's date is the day's, and only a capture with an exact clock
// (perf record -k mono) maps its times to the wall clock without it.
var capturedOn = regexp.MustCompile(`captured-on="[^"]*"`)

// pprofRun runs timeslice --format pprof with cfg on file, named or given
// as standard input, and returns the profile (decompressed) and what the
// Builder held.
func pprofRun(t *testing.T, cfg Config, file string, stdin bool) ([]byte, *run) {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Format, cfg.Rows, cfg.Top, cfg.Threshold, cfg.Quiet = "pprof", 50, 10, 3.5, true
	cfg.Files = []string{file}
	env := &tool.Env{Stdout: &bytes.Buffer{}, Warn: func(string) {}}
	if stdin {
		cfg.Files = []string{"-"}
		env.Stdin = bytes.NewReader(raw)
	}
	c := &run{Config: cfg}
	if err := c.run(env); err != nil {
		t.Fatalf("%s (stdin %v): %v", file, stdin, err)
	}
	if stdin && env.Stdin.(*bytes.Reader).Len() != 0 {
		t.Errorf("%s: standard input not read to its end", file)
	}
	zr, err := gzip.NewReader(env.Stdout.(*bytes.Buffer))
	if err != nil {
		t.Fatal(err)
	}
	pb, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return pb, c
}

// TestPprofStdinIsFile: a capture on standard input gives the profile the
// same capture gives as a file, byte for byte, whatever the options: it is
// copied first and cut on the timeline as a file is. Memory is bounded by
// the distinct keys (interval, stack, thread, CPU): no record is held one
// by one, except under pprof.MinCut (see TestPprofFineBucket).
func TestPprofStdinIsFile(t *testing.T) {
	d := func(s string) *time.Duration { v, _ := time.ParseDuration(s); return &v }
	window := func(from, to string) (window.Spec, bool) {
		sp, has, err := ParseWindow("", from, to)
		if err != nil {
			t.Fatal(err)
		}
		return sp, has
	}
	cpu0, _ := selection.ParseList("0")
	rel, _ := window("0.2s", "0.9s")
	tests := []struct {
		name string
		cfg  Config
	}{
		{"default", Config{}},
		{"bucket 1s", Config{Bucket: d("1s")}},
		{"bucket 1ms", Config{Bucket: d("1ms")}},
		{"relative window", Config{Window: rel, HasWindow: true}},
		{"no idle, cpu 0", Config{NoIdle: true, Select: &selection.Selection{CPU: cpu0}}},
		{"sample type", Config{SampleType: "cpu/nanoseconds", Bucket: d("250ms")}},
	}
	for _, file := range pprofCaptures {
		for _, tc := range tests {
			want, fc := pprofRun(t, tc.cfg, file, false)
			got, sc := pprofRun(t, tc.cfg, file, true)
			if strings.HasSuffix(file, ".data.gz") {
				// The copy's date, not the file's: the same length.
				want, got = capturedOn.ReplaceAll(want, []byte(`captured-on="-"`)), capturedOn.ReplaceAll(got, []byte(`captured-on="-"`))
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s, %s: standard input gives %d bytes, the file %d", file, tc.name, len(got), len(want))
			}
			st := sc.profile
			if st.Timed == 0 || st.Held != 0 || fc.profile.Held != 0 {
				t.Errorf("%s, %s: %d timed records, %d held one by one (the file: %d)", file, tc.name, st.Timed, st.Held, fc.profile.Held)
			}
			if tc.cfg.Bucket == nil && st.Samples >= st.Timed && st.Timed > 100 {
				t.Errorf("%s, %s: %d pprof samples of %d records: nothing summed", file, tc.name, st.Samples, st.Timed)
			}
			t.Logf("%s, %s: %d records in %d keys (pprof samples), %d bytes", file, tc.name, st.Timed, st.Samples, len(got))
		}
	}
}

// TestPprofFineBucket: --bucket under pprof.MinCut holds one record per
// timed sample until the clock is known (the documented exception), from
// a file and from standard input alike, with the same profile.
func TestPprofFineBucket(t *testing.T) {
	fine := 100 * time.Microsecond
	file := pprofCaptures[0]
	want, fc := pprofRun(t, Config{Bucket: &fine}, file, false)
	got, sc := pprofRun(t, Config{Bucket: &fine}, file, true)
	if !bytes.Equal(got, want) {
		t.Errorf("standard input gives %d bytes, the file %d", len(got), len(want))
	}
	for _, st := range []int64{fc.profile.Held, sc.profile.Held} {
		if st != sc.profile.Timed {
			t.Errorf("held %d records, want one per timed sample (%d)", st, sc.profile.Timed)
		}
	}
	t.Logf("%d records, %d pprof samples at %v", sc.profile.Timed, sc.profile.Samples, fine)
}
