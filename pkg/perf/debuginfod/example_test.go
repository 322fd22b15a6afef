package debuginfod_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"

	"flamekit/pkg/perf/debuginfod"
	"flamekit/pkg/perf/debuginfod/nethttp"
)

// A Client asks the servers for a file by build-id, once, and keeps it
// in elfutils' cache; here the requests are made in the process
// (nethttp) rather than by the flamekit-fetch helper.
func ExampleClient_Fetch() {
	srv := httptest.NewServer(http.HandlerFunc(http.NotFound)) // has nothing
	defer srv.Close()
	cache, _ := os.MkdirTemp("", "debuginfod")
	defer os.RemoveAll(cache)
	c := debuginfod.New(debuginfod.Config{
		URLs:     []string{srv.URL},
		CacheDir: cache,
		BuildID:  func(string) (string, error) { return "", errors.New("not used here") },
		Getter:   nethttp.Getter{},
	})
	id := strings.Repeat("ab", 20)
	_, err := c.Fetch(context.Background(), id, debuginfod.Debuginfo)
	fmt.Println(errors.Is(err, debuginfod.ErrNotFound))
	// The miss is remembered as elfutils remembers it: an empty file.
	fi, _ := os.Stat(filepath.Join(cache, id, "debuginfo"))
	fmt.Println(fi.Size())
	// Output:
	// true
	// 0
}
