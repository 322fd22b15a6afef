package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"flamekit/pkg/folded"
	"flamekit/pkg/interop/pprof"
)

// ingestRecorder is an httptest server that records /ingest requests and
// answers status: a stand-in for the HTTP side of a push, not Pyroscope.
type ingestRecorder struct {
	mu     sync.Mutex
	status int
	names  []string
	totals []int64
}

func (r *ingestRecorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	b, _ := io.ReadAll(req.Body)
	var total int64
	if p, err := pprof.Parse(b, "push"); err == nil {
		for _, s := range p.Sample {
			total += s.Value[len(s.Value)-1]
		}
	}
	r.mu.Lock()
	r.names = append(r.names, req.URL.Query().Get("name"))
	r.totals = append(r.totals, total)
	status := r.status
	r.mu.Unlock()
	w.WriteHeader(status)
	if status != http.StatusOK {
		io.WriteString(w, "the server says no")
	}
}

// received returns what the server was sent so far. The pushes come from
// other processes: the lock is the only order the race detector sees.
func (r *ingestRecorder) received() (names []string, totals []int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.names), slices.Clone(r.totals)
}

// refuse makes the server answer later pushes with status.
func (r *ingestRecorder) refuse(status int) {
	r.mu.Lock()
	r.status = status
	r.mu.Unlock()
}

// TestPerfTimetravelPush: the recorder (perf stand-in) converts each window
// and pushes it with timeslice --push; what arrives at a recording httptest
// server adds up to the converted windows; a refusal makes the exit
// status 1 with the server's message, and the windows are kept.
func TestPerfTimetravelPush(t *testing.T) {
	need(t, "stackcollapse", "timeslice")
	rec := script("perf-timetravel")
	srv := &ingestRecorder{status: http.StatusOK}
	hs := httptest.NewServer(srv)
	defer hs.Close()

	dir := t.TempDir()
	r := ok(t, dir, rec+" -o tt -w 1 -n 2 --no-marker --push-format pprof --push "+hs.URL+" --service web --label dc=eu")
	_, foldedFiles := windows(t, filepath.Join(dir, "tt"))
	if len(foldedFiles) != 2 {
		t.Fatalf("--push did not convert both windows: %v\n%s", foldedFiles, r.stderr)
	}
	var want float64
	for _, f := range foldedFiles {
		want += sumCounts(t, readGzip(t, filepath.Join(dir, "tt", f)), "")
	}
	var got int64
	names, totals := srv.received()
	for i, n := range names {
		if !strings.HasPrefix(n, "web{host=") || !strings.HasSuffix(n, ",dc=eu}") {
			t.Errorf("push %d named %q", i, n)
		}
		got += totals[i]
	}
	if float64(got) != want || len(names) < 2 {
		t.Errorf("%d pushes with a total of %d, the windows hold %v", len(names), got, want)
	}
	if !strings.Contains(string(r.stderr), "pushed ") {
		t.Errorf("no push summary on stderr:\n%s", r.stderr)
	}

	srv.refuse(http.StatusBadRequest)
	dir = t.TempDir()
	r = sh(t, dir, rec+" -o tt -w 1 -n 1 --no-marker --push-format pprof --push "+hs.URL)
	if r.code != 1 || !strings.Contains(string(r.stderr), "the server says no") {
		t.Errorf("want exit status 1 and the server's message:\n%s", r)
	}
	if _, f := windows(t, filepath.Join(dir, "tt")); len(f) != 1 {
		t.Errorf("the refused window was not kept: %v", f)
	}
}

// TestPyroscope pushes the bundled burst capture to a real Grafana
// Pyroscope server, started from the binary FLAMEKIT_PYROSCOPE_BIN names,
// and checks what its query API returns against timeslice: the sum of
// every second (SelectSeries, step 1 s) and the stacks of a merged window
// (SelectMergeStacktraces).
func TestPyroscope(t *testing.T) {
	dir, url, recs, ref := pushBurst(t, "--service flamekit-e2e")

	// timeslice's own per-second totals, on the same wall clock (TZ=UTC:
	// the capture's "captured on" is read in UTC, as by the push).
	first := ref.ToWall(recs[0].Time).Truncate(time.Second)
	last := ref.ToWall(recs[len(recs)-1].Time).Truncate(time.Second)
	want := map[int64]float64{}
	for s := first; !s.After(last); s = s.Add(time.Second) {
		r := ok(t, dir, fmt.Sprintf("timeslice -q --from %s --to %s burst.folded", s.Format(time.RFC3339), s.Add(time.Second).Format(time.RFC3339)))
		want[s.Unix()] = sumCounts(t, r.stdout, "")
	}

	const profileType = "process_cpu:cpu:nanoseconds:cpu:nanoseconds"
	selector := `{service_name="flamekit-e2e",host="vm"}`
	// The ingester may take a moment to make pushed data queryable.
	var got map[int64]float64
	deadline := time.Now().Add(60 * time.Second)
	for {
		got = selectSeries(t, url, profileType, selector, first, last.Add(time.Second))
		if equalSums(got, want) || time.Now().After(deadline) {
			break
		}
		time.Sleep(2 * time.Second)
	}
	if !equalSums(got, want) {
		t.Errorf("SelectSeries per second differs from timeslice:\n%s", sumsTable(got, want))
	} else {
		t.Logf("SelectSeries, step 1 s, equals timeslice's sum for each of %d seconds:\n%s", len(want), sumsTable(got, want))
	}

	// A merged window: the burst's three seconds, end inclusive in
	// Pyroscope (the end is the last millisecond before the next second).
	from := first.Add(13 * time.Second)
	to := from.Add(3 * time.Second)
	r := ok(t, dir, fmt.Sprintf("timeslice -q --from %s --to %s burst.folded", from.Format(time.RFC3339), to.Format(time.RFC3339)))
	wantStacks := map[string]float64{}
	rd := folded.NewReader(bytes.NewReader(r.stdout), "window")
	var wantTotal float64
	for rd.Next() {
		rec := rd.Record()
		wantStacks[string(rec.Stack)] += rec.Count
		wantTotal += rec.Count
	}
	gotStacks, gotTotal := mergeStacktraces(t, url, profileType, selector, from, to.Add(-time.Millisecond))
	if gotTotal != int64(wantTotal) || len(gotStacks) != len(wantStacks) {
		t.Errorf("SelectMergeStacktraces %s to %s: total %d in %d stacks, timeslice %v in %d", from, to, gotTotal, len(gotStacks), wantTotal, len(wantStacks))
	}
	for k, v := range wantStacks {
		if float64(gotStacks[k]) != v {
			t.Errorf("stack %s: Pyroscope %d, timeslice %v", k, gotStacks[k], v)
		}
	}
	t.Logf("SelectMergeStacktraces %s to %s: %d ns in %d stacks (timeslice: %v)", from.Format(time.RFC3339), to.Format(time.RFC3339), gotTotal, len(gotStacks), wantTotal)
}

// pushBurst starts the Grafana Pyroscope FLAMEKIT_PYROSCOPE_BIN names
// (skipping the test without one), folds the bundled burst capture into
// dir/burst.folded and pushes it with timeslice args (plus --label
// host=vm); it returns dir, the server's URL, the capture's records and
// its wall-clock reference.
func pushBurst(t *testing.T, args string) (dir, url string, recs []folded.Record, ref folded.WallRef) {
	t.Helper()
	bin := os.Getenv("FLAMEKIT_PYROSCOPE_BIN")
	if bin == "" {
		t.Skip("FLAMEKIT_PYROSCOPE_BIN is not set: no Grafana Pyroscope binary to test the push against (build one with go build ./cmd/pyroscope from its source and name it in FLAMEKIT_PYROSCOPE_BIN)")
	}
	need(t, "stackcollapse", "timeslice")
	dir = t.TempDir()
	url = startPyroscope(t, bin, dir)
	ok(t, dir, "stackcollapse "+capture("burst")+" > burst.folded")
	r := ok(t, dir, "timeslice --push "+url+" "+args+" --label host=vm burst.folded")
	t.Logf("%s", r.stderr)
	recs = readTimed(t, filepath.Join(dir, "burst.folded"))
	ref = burstRef(t, filepath.Join(dir, "burst.folded"))
	return dir, url, recs, ref
}

// startPyroscope starts the Pyroscope binary on 127.0.0.1 with free ports,
// its data under dir, waits (at most 90 s) for /ready, and stops it by its
// PID when the test ends; extra are more of its flags. It returns the
// server's URL.
func startPyroscope(t *testing.T, bin, dir string, extra ...string) string {
	t.Helper()
	ports := freePorts(t, 3)
	data := filepath.Join(dir, "pyroscope")
	if err := os.MkdirAll(data, 0o755); err != nil {
		t.Fatal(err)
	}
	args := []string{
		"-server.http-listen-address=127.0.0.1", "-server.http-listen-port=" + strconv.Itoa(ports[0]),
		"-server.grpc-listen-address=127.0.0.1", "-server.grpc-listen-port=" + strconv.Itoa(ports[1]),
		"-memberlist.bind-addr=127.0.0.1", "-memberlist.bind-port=" + strconv.Itoa(ports[2]),
		"-memberlist.advertise-addr=127.0.0.1", "-memberlist.advertise-port=" + strconv.Itoa(ports[2]),
		"-ingester.lifecycler.addr=127.0.0.1", "-ingester.min-ready-duration=0s",
		"-distributor.ring.instance-addr=127.0.0.1", "-query-scheduler.ring.instance-addr=127.0.0.1",
		"-overrides-exporter.ring.instance-addr=127.0.0.1", "-compactor.ring.instance-addr=127.0.0.1",
		"-store-gateway.sharding-ring.instance-addr=127.0.0.1", "-query-frontend.instance-addr=127.0.0.1",
		// v1: the ingesters store the profiles, on this one process; the
		// default (v1-v2-dual) also wants a metastore at localhost:9095.
		"-architecture.storage=v1", "-write-path=ingester",
		"-usage-stats.enabled=false", "-self-profiling.disable-push=true", "-tracing.enabled=false",
		"-pyroscopedb.data-path=" + filepath.Join(data, "db"),
		"-storage.backend=filesystem", "-storage.filesystem.dir=" + filepath.Join(data, "store"),
		"-validation.reject-older-than=0", "-querier.max-query-lookback=0", "-querier.max-query-length=0",
	}
	cmd := exec.Command(bin, append(args, extra...)...)
	cmd.Dir = data // relative default paths (./data...) land here
	logf, err := os.Create(filepath.Join(dir, "pyroscope.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", bin, err)
	}
	pid := cmd.Process.Pid
	t.Cleanup(func() {
		syscall.Kill(pid, syscall.SIGTERM)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			syscall.Kill(pid, syscall.SIGKILL)
			<-done
		}
		logf.Close()
	})
	url := fmt.Sprintf("http://127.0.0.1:%d", ports[0])
	deadline := time.Now().Add(90 * time.Second)
	for {
		resp, err := http.Get(url + "/ready")
		if err == nil {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK && strings.Contains(string(b), "ready") {
				break
			}
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(logf.Name())
			t.Fatalf("Pyroscope (pid %d) not ready at %s/ready after 90 s; its log ends:\n%s", pid, url, tail(log, 3000))
		}
		if cmd.ProcessState != nil {
			t.Fatalf("Pyroscope exited: %v", cmd.ProcessState)
		}
		time.Sleep(500 * time.Millisecond)
	}
	t.Logf("Pyroscope %s ready at %s (pid %d)", bin, url, pid)
	return url
}

func tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}

// freePorts returns n TCP ports free on 127.0.0.1 just now.
func freePorts(t *testing.T, n int) []int {
	t.Helper()
	var ports []int
	var ls []net.Listener
	for i := 0; i < n; i++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	for _, l := range ls {
		l.Close()
	}
	return ports
}

// connect calls a Pyroscope connect-protocol method with a JSON body.
func connect(t *testing.T, url, method string, req, resp any) {
	t.Helper()
	body, _ := json.Marshal(req)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	hr, _ := http.NewRequestWithContext(ctx, http.MethodPost, url+"/"+method, bytes.NewReader(body))
	hr.Header.Set("Content-Type", "application/json")
	r, err := http.DefaultClient.Do(hr)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	b, _ := io.ReadAll(r.Body)
	if r.StatusCode != http.StatusOK {
		t.Fatalf("%s: HTTP %d: %s", method, r.StatusCode, b)
	}
	if err := json.Unmarshal(b, resp); err != nil {
		t.Fatalf("%s: %v: %s", method, err, b)
	}
}

// selectSeries returns the per-second sums of a series (unix second ->
// value).
func selectSeries(t *testing.T, url, typ, selector string, from, to time.Time) map[int64]float64 {
	t.Helper()
	var resp struct {
		Series []struct {
			Points []struct {
				Value     float64 `json:"value"`
				Timestamp json.Number
			} `json:"points"`
		} `json:"series"`
	}
	connect(t, url, "querier.v1.QuerierService/SelectSeries", map[string]any{
		"profileTypeID": typ, "labelSelector": selector,
		"start": from.UnixMilli(), "end": to.UnixMilli(), "step": 1.0,
	}, &resp)
	got := map[int64]float64{}
	for _, s := range resp.Series {
		for _, p := range s.Points {
			ms, _ := strconv.ParseInt(p.Timestamp.String(), 10, 64)
			got[ms/1000] += p.Value
		}
	}
	return got
}

// mergeStacktraces returns the stacks (root first, ';'-joined) and total of
// a merged window, from Pyroscope's flame graph levels.
func mergeStacktraces(t *testing.T, url, typ, selector string, from, to time.Time) (map[string]int64, int64) {
	t.Helper()
	var resp struct {
		Flamegraph struct {
			Names  []string `json:"names"`
			Levels []struct {
				Values []json.Number `json:"values"`
			} `json:"levels"`
			Total json.Number `json:"total"`
		} `json:"flamegraph"`
	}
	connect(t, url, "querier.v1.QuerierService/SelectMergeStacktraces", map[string]any{
		"profileTypeID": typ, "labelSelector": selector,
		"start": from.UnixMilli(), "end": to.UnixMilli(),
	}, &resp)
	fg := resp.Flamegraph
	total, _ := strconv.ParseInt(fg.Total.String(), 10, 64)
	// Each level is a list of (offset delta, total, self, name index)
	// quadruples; offsets are relative to the previous node's end on the
	// same level. A node's parent is the node of the level above whose
	// span holds it.
	type node struct {
		start, total, self int64
		path               string
	}
	stacks := map[string]int64{}
	var above []node
	for li, lvl := range fg.Levels {
		var cur []node
		var x int64
		for i := 0; i+3 < len(lvl.Values); i += 4 {
			v := func(j int) int64 { n, _ := strconv.ParseInt(lvl.Values[i+j].String(), 10, 64); return n }
			x += v(0)
			n := node{start: x, total: v(1), self: v(2)}
			name := fg.Names[v(3)]
			x += n.total
			if li == 0 {
				n.path = "" // the root node, "total"
			} else {
				for _, p := range above {
					if n.start >= p.start && n.start < p.start+p.total {
						n.path = p.path
						break
					}
				}
				if n.path != "" {
					n.path += ";"
				}
				n.path += name
			}
			if n.self > 0 && li > 0 {
				stacks[n.path] += n.self
			}
			cur = append(cur, n)
		}
		above = cur
	}
	return stacks, total
}

func equalSums(got, want map[int64]float64) bool {
	for k, v := range want {
		if got[k] != v {
			return false
		}
	}
	for k, v := range got {
		if _, ok := want[k]; !ok && v != 0 {
			return false
		}
	}
	return true
}

func sumsTable(got, want map[int64]float64) string {
	var keys []int64
	seen := map[int64]bool{}
	for k := range want {
		keys, seen[k] = append(keys, k), true
	}
	for k := range got {
		if !seen[k] {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	var b strings.Builder
	for _, k := range keys {
		mark := ""
		if got[k] != want[k] {
			mark = "  <- differs"
		}
		fmt.Fprintf(&b, "  %s  pyroscope %.0f  timeslice %.0f%s\n", time.Unix(k, 0).UTC().Format(time.RFC3339), got[k], want[k], mark)
	}
	return b.String()
}

// readTimed reads the timed records of a folded file.
func readTimed(t *testing.T, path string) []folded.Record {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rd := folded.NewReader(f, path)
	var recs []folded.Record
	for rd.Next() {
		r := *rd.Record()
		r.Stack = nil
		recs = append(recs, r)
	}
	if err := rd.Err(); err != nil {
		t.Fatal(err)
	}
	return recs
}

// burstRef is the capture's wall-clock reference as timeslice makes it
// (estimated from "captured on", read in UTC).
func burstRef(t *testing.T, path string) folded.WallRef {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rd := folded.NewReader(f, path)
	for rd.Next() {
	}
	var m folded.Meta
	for _, x := range rd.Meta() {
		for _, fl := range x.Fields {
			m.Set(fl.Key, fl.Value)
		}
	}
	first, last, _ := m.Span()
	ref, ok := folded.RefFromMeta(&m, first, last, true, time.UTC)
	if !ok {
		t.Fatal("the burst capture has no wall-clock reference")
	}
	return ref
}
