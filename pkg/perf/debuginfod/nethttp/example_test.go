package nethttp_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"

	"flamekit/pkg/perf/debuginfod/nethttp"
)

// Serve writes what the flamekit-fetch helper writes: the head line of
// the answer, then its body.
func ExampleServe() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasSuffix(r.URL.Path, "/debuginfo") {
			http.NotFound(w, r)
			return
		}
		fmt.Fprint(w, "ELF...")
	}))
	defer srv.Close()
	id := strings.Repeat("ab", 20)
	nethttp.Serve(context.Background(), srv.URL+"/buildid/"+id+"/debuginfo", os.Stdout)
	fmt.Println()
	nethttp.Serve(context.Background(), srv.URL+"/buildid/"+id+"/executable", os.Stdout)
	// Output:
	// 200 6 OK
	// ELF...
	// 404 19 Not Found
}
