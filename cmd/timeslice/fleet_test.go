package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"flamekit/pkg/folded"
	"flamekit/pkg/interop/pprof"
	"flamekit/pkg/tool/timeslice"
)

// TestFormatPprof: the window as pprof has the folded window's stacks and
// total, and its span.
func TestFormatPprof(t *testing.T) {
	t.Setenv("TZ", "UTC")
	code, folded, stderr := run(t, "", "--from", "13s", "--to", "16s", burstFile)
	if code != 0 {
		t.Fatal(stderr)
	}
	want := profile(t, folded)
	for _, bucket := range []string{"", "1ns", "1s"} {
		args := []string{"--from", "13s", "--to", "16s", "--format", "pprof", burstFile}
		if bucket != "" {
			args = append(args, "--bucket", bucket)
		}
		code, out, stderr := run(t, "", args...)
		if code != 0 {
			t.Fatal(stderr)
		}
		if !strings.Contains(stderr, "488 samples in the window") || !strings.Contains(stderr, "estimated") {
			t.Errorf("stderr: %s", stderr)
		}
		p, err := pprof.Parse([]byte(out), "out")
		if err != nil {
			t.Fatal(err)
		}
		// One pprof sample per stack and 100 ms (by default): its
		// samples/count says how many samples it holds.
		res := int64(timeslice.DefaultPprofBucket)
		if bucket != "" {
			d, _ := time.ParseDuration(bucket)
			res = int64(d)
		}
		var n int64
		for _, s := range p.Sample {
			n += s.Value[0]
			if ts := s.NumLabel[pprof.LabelTimestamp]; len(ts) != 1 || ts[0]%res != 0 {
				t.Fatalf("--bucket %q: timestamp_ns %v", bucket, ts)
			}
		}
		if p.DurationNanos != 3e9 || p.SampleType[1].Type != "cpu" || p.SampleType[1].Unit != "nanoseconds" || n != 488 || bucket == "1ns" && len(p.Sample) != 488 || bucket != "1ns" && len(p.Sample) >= 488 {
			t.Errorf("--bucket %q: duration %d, types %v, %d pprof samples of %d", bucket, p.DurationNanos, p.SampleType, len(p.Sample), n)
		}
		t.Logf("--bucket %q: %d pprof samples of %d samples, %d bytes", bucket, len(p.Sample), n, len(out))
	}
	_, out, _ := run(t, "", "--from", "13s", "--to", "16s", "--format", "pprof", burstFile)
	p, err := pprof.Parse([]byte(out), "out")
	if err != nil {
		t.Fatal(err)
	}
	var sb strings.Builder
	if _, err := pprof.ToFolded(&sb, p, pprof.ReadOptions{}); err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for k, v := range classicOf(t, sb.String()) {
		got[k] = v
	}
	if total(got) != total(want) || len(got) != len(want) {
		t.Errorf("pprof total %v in %d stacks, folded %v in %d", total(got), len(got), total(want), len(want))
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %v, want %v", k, got[k], v)
		}
	}
}

// classicOf sums timed or classic folded text per stack.
func classicOf(t *testing.T, s string) map[string]float64 {
	t.Helper()
	m := map[string]float64{}
	for _, line := range strings.Split(s, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		var rec folded.Record
		if err := folded.ParseLine([]byte(line), &rec); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		m[string(rec.Stack)] += rec.Count
	}
	return m
}

// pushServer is an httptest server standing in for Pyroscope's /ingest
// (it records; it is not Pyroscope): it answers status to every request.
type pushServer struct {
	mu     sync.Mutex
	status int
	bodies [][]byte
	names  []string
}

func (s *pushServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.bodies = append(s.bodies, b)
	s.names = append(s.names, r.URL.Query().Get("name"))
	status := s.status
	s.mu.Unlock()
	w.WriteHeader(status)
	if status != 200 {
		io.WriteString(w, "rpc error: profile too old")
	}
}

// received returns what the server was sent. The lock orders it after the
// handlers for the race detector, which does not see through sockets.
func (s *pushServer) received() (bodies [][]byte, names []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.bodies), slices.Clone(s.names)
}

// TestPush: --push sends the window in 1 s buckets whose totals add up to
// the window's, prints one summary line and writes nothing on stdout; a
// refusal exits 1 with the server's message.
func TestPush(t *testing.T) {
	t.Setenv("TZ", "UTC")
	_, folded, _ := run(t, "", "--from", "13s", "--to", "16s", burstFile)
	want := total(profile(t, folded))

	srv := &pushServer{status: 200}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	code, out, stderr := run(t, "", "--from", "13s", "--to", "16s", "--push", hs.URL, "--service", "burst", "--label", "host=vm", "--label", "env=test", burstFile)
	if code != 0 || out != "" {
		t.Fatalf("exit %d, stdout %q, stderr %s", code, out, stderr)
	}
	var got int64
	bodies, names := srv.received()
	for _, b := range bodies {
		p, err := pprof.Parse(b, "push")
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range p.Sample {
			got += s.Value[len(s.Value)-1]
		}
	}
	if float64(got) != want || len(bodies) < 3 || len(bodies) > 4 {
		t.Errorf("%d pushes, total %d, want %v", len(bodies), got, want)
	}
	if names[0] != "burst{host=vm,env=test}" {
		t.Errorf("name %q", names[0])
	}
	if !strings.Contains(stderr, "pushed "+strconv.Itoa(len(bodies))+" profiles") || !strings.Contains(stderr, "of 488 samples") {
		t.Errorf("stderr: %s", stderr)
	}

	srv2 := &pushServer{status: 400}
	hs2 := httptest.NewServer(srv2)
	defer hs2.Close()
	code, _, stderr = run(t, "", "--push", hs2.URL, "--service", "burst", burstFile)
	if bodies, _ := srv2.received(); code != 1 || !strings.Contains(stderr, "HTTP 400 Bad Request: rpc error: profile too old") || len(bodies) != 1 {
		t.Errorf("refused: exit %d, %d requests, stderr %s", code, len(bodies), stderr)
	}
}

func TestFleetUsage(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--push", "http://x", burstFile}, "--push needs --service"},
		{[]string{"--service", "x", burstFile}, "go with --push"},
		{[]string{"--push", "http://x", "--service", "s", "--format", "pprof", burstFile}, "cannot be combined"},
		{[]string{"--format", "pprof", "--keep-time", burstFile}, "write their own output"},
		{[]string{"--push", "http://x", "--service", "s", "--label", "a", burstFile}, "want KEY=VALUE"},
		{[]string{"--push", "ftp://x", "--service", "s", burstFile}, "want http://"},
		{[]string{"--format", "pprof", "--sample-type", "cpu", burstFile}, "want TYPE/UNIT"},
		{[]string{"--push", "http://x", "--service", "s", "--bucket", "0s", burstFile}, "positive duration"},
		{[]string{"--format", "pprof", "--bucket=-1ms", burstFile}, "positive duration"},
		{[]string{"--bucket", "1s", burstFile}, "--bucket goes with --push or --format pprof"},
	}
	for _, tc := range tests {
		code, _, stderr := run(t, "", tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
}
