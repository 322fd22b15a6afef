package otlp

import (
	"compress/gzip"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	collectorpb "go.opentelemetry.io/proto/slim/otlp/collector/profiles/v1development"

	"flamekit/pkg/interop/pyroscope"
)

// receiver is an OTLP/HTTP receiver that fails on purpose: each request
// takes the next fault of its script (then answers 200), and it keeps
// the requests it accepted.
type receiver struct {
	mu       sync.Mutex
	faults   []string // "drop" (close the connection unanswered), "503", "429", "partial", "400"
	accepted [][]byte
	seen     int
}

func (r *receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	var body []byte
	zr, err := gzip.NewReader(req.Body)
	if err == nil && req.Header.Get("Content-Encoding") == "gzip" {
		body, err = io.ReadAll(zr)
	} else if err == nil {
		err = errors.New("not gzipped")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seen++
	if req.URL.Path != Path || req.Header.Get("Content-Type") != ContentType || err != nil {
		http.Error(w, "wrong path or type", http.StatusNotFound)
		return
	}
	fault := ""
	if len(r.faults) > 0 {
		fault, r.faults = r.faults[0], r.faults[1:]
	}
	switch fault {
	case "drop": // a network that drops the connection, or a server killed mid-request
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
		return
	case "503": // a server restarting
		http.Error(w, "starting up", http.StatusServiceUnavailable)
		return
	case "429":
		w.Header().Set("Retry-After", "1")
		http.Error(w, "slow down", http.StatusTooManyRequests)
		return
	case "400":
		http.Error(w, "bad profile", http.StatusBadRequest)
		return
	}
	r.accepted = append(r.accepted, body)
	resp := &collectorpb.ExportProfilesServiceResponse{}
	if fault == "partial" {
		resp.PartialSuccess = &collectorpb.ExportProfilesPartialSuccess{RejectedProfiles: 2, ErrorMessage: "too old"}
	}
	b, _ := proto.Marshal(resp)
	w.Header().Set("Content-Type", ContentType)
	w.Write(b)
}

// TestPushFaults: a push goes through a server that restarts (503, then
// its port closed), a dropped connection and 429, is accepted once, and
// what was accepted is the request sent; refusals and partial successes
// are errors, never sent again.
func TestPushFaults(t *testing.T) {
	body := []byte("\x0a\x00") // any bytes: the receiver does not decode them
	for _, tc := range []struct {
		name     string
		faults   []string
		down     int // requests answered by a closed port first (server restarting)
		attempts int
		accepted int
		err      string
	}{
		{name: "clean", attempts: 1, accepted: 1},
		{name: "restart", faults: []string{"503", "503"}, down: 2, attempts: 5, accepted: 1},
		{name: "dropped connection", faults: []string{"drop", "drop"}, attempts: 3, accepted: 1},
		{name: "429", faults: []string{"429"}, attempts: 2, accepted: 1},
		{name: "refused", faults: []string{"400"}, attempts: 1, err: "HTTP 400"},
		{name: "partial", faults: []string{"partial"}, attempts: 1, accepted: 1, err: "rejected 2 profiles"},
		{name: "down for good", faults: []string{"503", "503", "503", "503", "503"}, attempts: 5, err: "failed after 5 attempts"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rcv := &receiver{faults: tc.faults}
			srv := httptest.NewUnstartedServer(rcv)
			// A port that refuses connections stands for the server's
			// restart: the client is pointed at it until it has been
			// tried tc.down times, then at the server.
			dead := httptest.NewServer(http.NotFoundHandler())
			deadURL := dead.URL
			dead.Close()
			srv.Start()
			defer srv.Close()
			c, err := pyroscope.NewClient(srv.URL, pyroscope.Auth{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			var waits []time.Duration
			c.Sleep = func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }
			c.Retries = 4
			down := tc.down
			if down > 0 {
				c, _ = pyroscope.NewClient(deadURL, pyroscope.Auth{}, &http.Client{Transport: &redirect{to: srv.URL, after: &down}})
				c.Sleep = func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }
				c.Retries = 4
			}
			res, _, err := Push(context.Background(), c, body)
			if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
				t.Fatalf("error %v, want %q", err, tc.err)
			}
			if res.Attempts != tc.attempts || len(rcv.accepted) != tc.accepted {
				t.Errorf("%d attempts, %d accepted; want %d and %d", res.Attempts, len(rcv.accepted), tc.attempts, tc.accepted)
			}
			for _, a := range rcv.accepted {
				if string(a) != string(body) {
					t.Errorf("the receiver got %q, not the request", a)
				}
			}
			for i := 1; i < len(waits); i++ {
				if waits[i] < waits[i-1] {
					t.Errorf("backoff shrank: %v", waits)
				}
			}
			var pe *PartialError
			if tc.name == "partial" && !errors.As(err, &pe) {
				t.Errorf("a partial success is not a *PartialError: %v", err)
			}
		})
	}
}

// redirect sends the first *after requests to a closed port (they fail
// to connect), then to the live server.
type redirect struct {
	to    string
	after *int
}

func (r *redirect) RoundTrip(req *http.Request) (*http.Response, error) {
	if *r.after > 0 {
		*r.after--
		return http.DefaultTransport.RoundTrip(req)
	}
	u := *req.URL
	live, _ := http.NewRequest(req.Method, r.to+u.Path, req.Body)
	live.Header = req.Header
	return http.DefaultTransport.RoundTrip(live.WithContext(req.Context()))
}

// TestPushBounded: a push to a server that never answers in time gives
// up when Total has passed, retries included.
func TestPushBounded(t *testing.T) {
	block := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-block }))
	defer srv.Close()
	defer close(block)
	c, _ := pyroscope.NewClient(srv.URL, pyroscope.Auth{}, nil)
	c.Total = 50 * time.Millisecond
	_, _, err := Push(context.Background(), c, []byte("x"))
	if !errors.Is(err, pyroscope.ErrTotal) {
		t.Errorf("error %v, want the deadline", err)
	}
}
