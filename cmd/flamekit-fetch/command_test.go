package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"flamekit/internal/testkit/clitest"
)

// TestFetch: the answer's head line, then its body, whatever the status;
// a server that cannot be reached is exit status 1, said on stderr.
func TestFetch(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/buildid/ab/debuginfo":
			if r.UserAgent() != "flamekit" {
				http.Error(w, "who are you", http.StatusForbidden)
				return
			}
			w.Write([]byte("\x7fELF..."))
		case "/slow":
			w.Header().Set("Content-Length", "100")
			w.Write([]byte("cut"))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	for _, tc := range []struct {
		path, out, stderr string
		code              int
	}{
		{"/buildid/ab/debuginfo", "200 7 OK\n\x7fELF...", "", 0},
		{"/buildid/ab/executable", "404 19 Not Found\n", "", 0},
		{"/slow", "200 100 OK\ncut", "flamekit-fetch: unexpected EOF\n", 1},
	} {
		code, out, stderr := clitest.Run(t, "flamekit-fetch", description, &command{}, "", srv.URL+tc.path)
		if code != tc.code || out != tc.out || stderr != tc.stderr {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want %d, %q, %q", tc.path, code, out, stderr, tc.code, tc.out, tc.stderr)
		}
	}
	code, _, stderr := clitest.Run(t, "flamekit-fetch", description, &command{}, "", "http://127.0.0.1:1/x")
	if code != 1 || !strings.Contains(stderr, "connection refused") {
		t.Errorf("unreachable: exit %d, stderr %q", code, stderr)
	}
}
