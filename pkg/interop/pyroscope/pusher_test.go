package pyroscope

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"flamekit/internal/testkit/testcapture"
	"flamekit/pkg/folded"
	"flamekit/pkg/interop/pprof"
)

// The tests below run against httptest servers that record what they get
// and answer as told: they check this client's HTTP behaviour (retries,
// refusals, auth, buckets), not Pyroscope's. The test against a real
// Pyroscope server is in e2e (FLAMEKIT_PYROSCOPE_BIN).

// recorder is an httptest handler that keeps every request and answers
// with the statuses queued in replies (then 200).
type recorder struct {
	mu      sync.Mutex
	reqs    []recorded
	replies []int
	message string
	conns   int
}

type recorded struct {
	query  map[string]string
	header http.Header
	body   []byte
}

func (r *recorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	q := map[string]string{}
	for k, v := range req.URL.Query() {
		q[k] = v[0]
	}
	q["path"] = req.URL.Path
	r.reqs = append(r.reqs, recorded{q, req.Header.Clone(), body})
	status := http.StatusOK
	if len(r.replies) > 0 {
		status, r.replies = r.replies[0], r.replies[1:]
	}
	r.mu.Unlock()
	if status == http.StatusTooManyRequests {
		w.Header().Set("Retry-After", "3")
	}
	w.WriteHeader(status)
	if status != http.StatusOK {
		io.WriteString(w, r.message)
	}
}

// seen returns a copy of the requests and the connections so far, under
// the lock: the race detector does not see the order that the socket
// gives between a handler and the client that read its answer.
func (r *recorder) seen() ([]recorded, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.reqs), r.conns
}

func newServer(t *testing.T, r *recorder) *httptest.Server {
	t.Helper()
	srv := httptest.NewUnstartedServer(r)
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			r.mu.Lock()
			r.conns++
			r.mu.Unlock()
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv
}

// sleeps records the waits of a client instead of sleeping.
type sleeps []time.Duration

func (s *sleeps) sleep(_ context.Context, d time.Duration) error {
	*s = append(*s, d)
	return nil
}

func client(t *testing.T, url string, auth Auth, s *sleeps) *Client {
	t.Helper()
	c, err := NewClient(url, auth, nil)
	if err != nil {
		t.Fatal(err)
	}
	c.Sleep = s.sleep
	return c
}

func TestIngestRetries(t *testing.T) {
	tests := []struct {
		name      string
		replies   []int
		retries   int
		wantErr   string
		attempts  int
		wantSleep []time.Duration
	}{
		{"ok", nil, 0, "", 1, nil},
		{"503 then ok", []int{503, 503}, 0, "", 3, []time.Duration{250 * time.Millisecond, 500 * time.Millisecond}},
		{"429 waits Retry-After", []int{429}, 0, "", 2, []time.Duration{3 * time.Second}},
		{"400 is not retried", []int{400}, 0, "refused: HTTP 400 Bad Request: server says no", 1, nil},
		{"422 is not retried", []int{422}, 0, "refused: HTTP 422", 1, nil},
		{"500 until retries run out", []int{500, 500, 500, 500, 500, 500}, 0, "failed after 5 attempts: HTTP 500 Internal Server Error: server says no", 5,
			[]time.Duration{250 * time.Millisecond, 500 * time.Millisecond, time.Second, 2 * time.Second}},
		{"no retries", []int{502}, -1, "failed after 1 attempts: HTTP 502", 1, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := &recorder{replies: tc.replies, message: "server says\nno"}
			srv := newServer(t, rec)
			var s sleeps
			c := client(t, srv.URL, Auth{}, &s)
			c.Retries = tc.retries
			res, err := c.Ingest(context.Background(), Request{Name: "svc{}", From: time.Unix(10, 0), Until: time.Unix(11, 0), Profile: []byte("x")})
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Fatalf("err %v, want %q", err, tc.wantErr)
			}
			var re *RefusedError
			if tc.wantErr != "" && !errors.As(err, &re) {
				t.Errorf("error %T is not a *RefusedError", err)
			}
			reqs, _ := rec.seen()
			if res.Attempts != tc.attempts || len(reqs) != tc.attempts {
				t.Errorf("attempts %d, server saw %d, want %d", res.Attempts, len(reqs), tc.attempts)
			}
			if !equalDurations(s, tc.wantSleep) {
				t.Errorf("waits %v, want %v", s, tc.wantSleep)
			}
			for _, r := range reqs {
				if string(r.body) != "x" {
					t.Errorf("a retry sent %q", r.body)
				}
			}
		})
	}
}

func equalDurations(a, b []time.Duration) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestIngestNetworkError: a server that is gone is retried, then reported.
func TestIngestNetworkError(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	var s sleeps
	c := client(t, url, Auth{}, &s)
	c.Retries = 2
	res, err := c.Ingest(context.Background(), Request{Name: "svc{}", Profile: []byte("x")})
	var re *RefusedError
	if !errors.As(err, &re) || re.Status != 0 || res.Attempts != 3 || len(s) != 2 {
		t.Fatalf("err %v, result %+v, waits %v", err, res, s)
	}
	if !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("error does not say why: %v", err)
	}
}

// TestIngestRequest: the query, headers and auth of a push.
func TestIngestRequest(t *testing.T) {
	tests := []struct {
		name       string
		url        string
		auth       Auth
		wantAuth   string
		wantTenant string
	}{
		{"none", "", Auth{}, "", ""},
		{"basic", "", Auth{User: "123", Password: "glc_x"}, "Basic MTIzOmdsY194", ""},
		{"bearer and tenant", "", Auth{Token: "tok", TenantID: "team-a"}, "Bearer tok", "team-a"},
		{"user in URL", "u:p@", Auth{}, "Basic dTpw", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := &recorder{}
			srv := newServer(t, rec)
			var s sleeps
			c := client(t, strings.Replace(srv.URL, "http://", "http://"+tc.url, 1)+"/prefix/", tc.auth, &s)
			from := time.Unix(1795314277, 0)
			if _, err := c.Ingest(context.Background(), Request{Name: "web{host=vm,dc=eu}", From: from, Until: from.Add(time.Second), Profile: []byte("p")}); err != nil {
				t.Fatal(err)
			}
			reqs, _ := rec.seen()
			r := reqs[0]
			want := map[string]string{"path": "/prefix/ingest", "name": "web{host=vm,dc=eu}", "format": "pprof", "from": "1795314277000000000", "until": "1795314278000000000"}
			for k, v := range want {
				if r.query[k] != v {
					t.Errorf("%s = %q, want %q", k, r.query[k], v)
				}
			}
			if got := r.header.Get("Authorization"); got != tc.wantAuth {
				t.Errorf("Authorization %q, want %q", got, tc.wantAuth)
			}
			if got := r.header.Get("X-Scope-OrgID"); got != tc.wantTenant {
				t.Errorf("X-Scope-OrgID %q, want %q", got, tc.wantTenant)
			}
			if strings.Contains(c.URL(), "@") {
				t.Errorf("URL() shows credentials: %s", c.URL())
			}
		})
	}
}

func TestAuthFromEnv(t *testing.T) {
	tests := []struct {
		env  map[string]string
		want Auth
		err  bool
	}{
		{nil, Auth{}, false},
		{map[string]string{EnvBasicUser: "u", EnvBasicPassword: "p", EnvTenant: "t"}, Auth{User: "u", Password: "p", TenantID: "t"}, false},
		{map[string]string{EnvToken: "tok"}, Auth{Token: "tok"}, false},
		{map[string]string{EnvToken: "tok", EnvBasicUser: "u"}, Auth{}, true},
		{map[string]string{EnvBasicPassword: "p"}, Auth{}, true},
	}
	for _, tc := range tests {
		got, err := AuthFromEnv(func(k string) string { return tc.env[k] })
		if (err != nil) != tc.err || err == nil && got != tc.want {
			t.Errorf("%v: got %+v, %v", tc.env, got, err)
		}
	}
}

func TestAppName(t *testing.T) {
	tests := []struct {
		service string
		labels  []string
		want    string
		err     string
	}{
		{"web", nil, "web{}", ""},
		{"web-api/v2", []string{"host=vm01", "dc = eu"}, "web-api/v2{host=vm01,dc=eu}", ""},
		{"", nil, "", "empty service name"},
		{"web api", nil, "", "service name"},
		{"web", []string{"host"}, "", "want KEY=VALUE"},
		{"web", []string{"ho-st=a"}, "", "label name"},
		{"web", []string{"host=a,b"}, "", "may not contain"},
		{"web", []string{"service_name=x"}, "", "reserved"},
		{"web", []string{"a=1", "a=2"}, "", "twice"},
	}
	for _, tc := range tests {
		var labels []Label
		var err error
		for _, s := range tc.labels {
			var l Label
			if l, err = ParseLabel(s); err != nil {
				break
			}
			labels = append(labels, l)
		}
		got := ""
		if err == nil {
			got, err = AppName(tc.service, labels)
		}
		if got != tc.want || tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%q %v: got %q, %v; want %q, %q", tc.service, tc.labels, got, err, tc.want, tc.err)
		}
	}
}

// burst returns the real burst capture as timed folded records and
// metadata (stackcollapse's library on testdata/perf/burst.txt.gz).
func burst(t *testing.T) ([]folded.Record, []folded.Meta) {
	t.Helper()
	s := testcapture.ReadStream(t, testcapture.Fold(t, "burst"))
	return s.Recs, s.Metas
}

// TestPusherBuckets pushes the real burst capture in 1 s and 250 ms
// buckets to a recording server: one profile per wall-clock bucket, each
// with its own from/until and TimeNanos, whose values add up to the folded
// total per bucket and overall, over one connection.
func TestPusherBuckets(t *testing.T) {
	recs, metas := burst(t)
	m := folded.Meta{}
	for _, x := range metas {
		for _, f := range x.Fields {
			m.Set(f.Key, f.Value)
		}
	}
	ref, ok := folded.RefFromMeta(&m, recs[0].Time, recs[len(recs)-1].Time, true, time.UTC)
	if !ok {
		t.Fatal("no clock reference")
	}
	var total float64
	for _, r := range recs {
		total += r.Count
	}
	for _, bucket := range []time.Duration{time.Second, 250 * time.Millisecond} {
		t.Run(bucket.String(), func(t *testing.T) {
			// Expected per-bucket totals, from the records directly.
			want := map[int64]float64{}
			for _, r := range recs {
				w := ref.ToWall(r.Time).UnixNano()
				want[w/int64(bucket)*int64(bucket)] += r.Count
			}
			rec := &recorder{}
			srv := newServer(t, rec)
			var s sleeps
			c := client(t, srv.URL, Auth{TenantID: "t1"}, &s)
			p := NewPusher(context.Background(), c, "burst{host=vm}", Fixed(ref), PushOptions{Bucket: bucket})
			for _, x := range metas {
				p.AddMeta(x)
			}
			for i := range recs {
				if err := p.Add(&recs[i]); err != nil {
					t.Fatal(err)
				}
			}
			sum, err := p.Close()
			if err != nil {
				t.Fatal(err)
			}
			reqs, conns := rec.seen()
			if sum.Buckets != len(want) || len(reqs) != len(want) || sum.Samples != int64(len(recs)) || sum.Total != total || sum.Late != 0 || sum.Retries != 0 {
				t.Errorf("summary %+v; want %d buckets, %d samples, total %v; server got %d", sum, len(want), len(recs), total, len(reqs))
			}
			if conns != 1 {
				t.Errorf("%d connections for %d pushes, want 1 (keep-alive)", conns, len(reqs))
			}
			var got float64
			var bytesSent int64
			for _, r := range reqs {
				from, _ := strconv.ParseInt(r.query["from"], 10, 64)
				until, _ := strconv.ParseInt(r.query["until"], 10, 64)
				if until-from != int64(bucket) || from%int64(bucket) != 0 {
					t.Errorf("from %d until %d: not one aligned bucket", from, until)
				}
				prof, err := pprof.Parse(r.body, "push")
				if err != nil {
					t.Fatal(err)
				}
				if prof.TimeNanos != from || prof.DurationNanos != int64(bucket) {
					t.Errorf("profile TimeNanos %d DurationNanos %d, want %d %d", prof.TimeNanos, prof.DurationNanos, from, bucket)
				}
				var v int64
				for _, smp := range prof.Sample {
					v += smp.Value[len(smp.Value)-1]
				}
				if float64(v) != want[from] {
					t.Errorf("bucket %d: %d, want %v", from, v, want[from])
				}
				got += float64(v)
				bytesSent += int64(len(r.body))
				if r.header.Get("X-Scope-OrgID") != "t1" || r.query["name"] != "burst{host=vm}" {
					t.Errorf("request %v %v", r.query, r.header)
				}
			}
			if got != total || bytesSent != sum.Bytes {
				t.Errorf("pushed total %v (want %v), bytes %d (summary %d)", got, total, bytesSent, sum.Bytes)
			}
			t.Logf("%v buckets: %s", bucket, sum)
		})
	}
}

// TestPusherRefused: the first refused bucket stops the push with the
// server's message; nothing after it is sent.
func TestPusherRefused(t *testing.T) {
	recs, metas := burst(t)
	rec := &recorder{replies: []int{200, 200, 422}, message: "profile too old: older than 1h"}
	srv := newServer(t, rec)
	var s sleeps
	c := client(t, srv.URL, Auth{}, &s)
	ref := folded.WallRef{Wall: time.Unix(1795314277, 0), Perf: recs[0].Time, Exact: true}
	p := NewPusher(context.Background(), c, "burst{}", Fixed(ref), PushOptions{})
	for _, x := range metas {
		p.AddMeta(x)
	}
	var err error
	for i := range recs {
		if err = p.Add(&recs[i]); err != nil {
			break
		}
	}
	if err == nil {
		_, err = p.Close()
	}
	var re *RefusedError
	if !errors.As(err, &re) || re.Status != 422 || !strings.Contains(err.Error(), "profile too old: older than 1h") {
		t.Fatalf("err %v", err)
	}
	_, err2 := p.Close()
	reqs, _ := rec.seen()
	if err2 != err || len(reqs) != 3 || p.Summary().Buckets != 2 {
		t.Errorf("after refusal: close %v, %d requests, summary %+v", err2, len(reqs), p.Summary())
	}
}

// TestPusherLate: a sample older than the pushed buckets is pushed in a
// second profile of its bucket, and counted.
func TestPusherLate(t *testing.T) {
	rec := &recorder{}
	srv := newServer(t, rec)
	var s sleeps
	c := client(t, srv.URL, Auth{}, &s)
	ref := folded.WallRef{Wall: time.Unix(1000, 0), Perf: 0, Exact: true}
	p := NewPusher(context.Background(), c, "x{}", Fixed(ref), PushOptions{})
	add := func(stack string, at float64) {
		t.Helper()
		r := folded.Record{Stack: []byte(stack), Count: 1, Time: folded.Time(at * 1e9), Kind: folded.Timed}
		if err := p.Add(&r); err != nil {
			t.Fatal(err)
		}
	}
	add("a", 0.5)
	add("b", 3.5) // pushes [0,1)
	add("c", 0.7) // late: [0,1) again
	sum, err := p.Close()
	if err != nil {
		t.Fatal(err)
	}
	if sum.Late != 1 || sum.Buckets != 3 || sum.Samples != 3 {
		t.Errorf("summary %+v", sum)
	}
	if err := p.Add(&folded.Record{Stack: []byte("a"), Count: 1, Kind: folded.Classic}); err != ErrUntimed {
		t.Errorf("classic record: %v", err)
	}
}

// TestIngestSilentServer: a server that accepts the connection and never
// answers holds one Ingest no longer than Client.Total, every attempt
// included, and the error says so.
func TestIngestSilentServer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Skip(err)
	}
	defer ln.Close()
	go func() { // accept, read, never answer
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go io.Copy(io.Discard, conn)
		}
	}()
	var s sleeps
	c := client(t, "http://"+ln.Addr().String(), Auth{}, &s)
	c.Total = 300 * time.Millisecond
	_, err = c.Ingest(context.Background(), Request{Name: "svc{}", Profile: []byte("x")})
	if !errors.Is(err, ErrTotal) || !strings.Contains(err.Error(), "within 300ms") {
		t.Fatalf("err %v, want the time limit", err)
	}
}
