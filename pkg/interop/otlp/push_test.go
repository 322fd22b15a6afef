package otlp

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"flamekit/internal/testkit/otlprecv"
	"flamekit/pkg/interop/pyroscope"
)

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
			rcv := &otlprecv.Receiver{Path: Path, ContentType: ContentType, Gzip: true, Faults: tc.faults}
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
			if res.Attempts != tc.attempts || len(rcv.Accepted()) != tc.accepted {
				t.Errorf("%d attempts, %d accepted; want %d and %d", res.Attempts, len(rcv.Accepted()), tc.attempts, tc.accepted)
			}
			for _, a := range rcv.Accepted() {
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
