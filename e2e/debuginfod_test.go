package e2e

import (
	"debug/elf"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"flamekit/internal/testkit/debugfiles"
)

// TestDebuginfodHelper: stackcollapse names the frames of a program that
// is not on this host (a container's, gone with it) from a debuginfod
// server, DEBUGINFOD_URLS, through the flamekit-fetch helper it finds next
// to itself, and keeps the file in elfutils' cache for the next run.
func TestDebuginfodHelper(t *testing.T) {
	need(t, "stackcollapse", "flamekit-fetch")
	ct := filepath.Join(root, "pkg", "perf", "symbols", "testdata", "container")
	exe, err := os.ReadFile(filepath.Join(ct, "ct.bin"))
	if err != nil {
		t.Fatal(err)
	}
	id, err := debugfiles.BuildID(filepath.Join(ct, "ct.bin"))
	if err != nil {
		t.Fatal(err)
	}
	var asked atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		if r.URL.Path != "/buildid/"+id+"/executable" {
			http.NotFound(w, r)
			return
		}
		w.Write(exe)
	}))
	defer srv.Close()
	dir := t.TempDir()
	home, cache := filepath.Join(dir, "home"), filepath.Join(dir, "debuginfod")
	os.Mkdir(home, 0o755)
	// Not on PATH: the helper is found next to stackcollapse.
	run := func(urls string) result {
		return sh(t, dir, filepath.Join(binDir, "stackcollapse")+" --no-time "+filepath.Join(ct, "ct.data.gz"),
			"PATH=/usr/bin:/bin", "HOME="+home, "DEBUGINFOD_URLS="+urls, "DEBUGINFOD_CACHE_PATH="+cache,
			"FLAMEKIT_CACHE=off")
	}
	const named = "main;ct_outer;ct_leaf"
	r := run("")
	if r.code != 0 || strings.Contains(string(r.stdout), named) || !strings.Contains(string(r.stderr), "serve its debug file with debuginfod") {
		t.Fatalf("without debuginfod: exit %d, %s named, stderr %s", r.code, named, r.stderr)
	}
	var first int64
	for i := range 2 { // the second run finds it in elfutils' cache
		r = run(srv.URL)
		if r.code != 0 || !strings.Contains(string(r.stdout), named) {
			t.Fatalf("run %d with debuginfod: exit %d, stderr %s", i+1, r.code, r.stderr)
		}
		if i == 0 {
			first = asked.Load()
		} else if n := asked.Load(); n != first {
			t.Errorf("the second run asked the server %d times, for files in the cache", n-first)
		}
	}
	if _, err := os.Stat(filepath.Join(cache, id, "executable")); err != nil {
		t.Errorf("not in elfutils' cache: %v", err)
	}
	// Without the helper, the diagnosis says so, and how to install it.
	alone := filepath.Join(dir, "alone")
	os.Mkdir(alone, 0o755)
	if b, err := os.ReadFile(filepath.Join(binDir, "stackcollapse")); err != nil || os.WriteFile(filepath.Join(alone, "stackcollapse"), b, 0o755) != nil {
		t.Fatal("copying stackcollapse: ", err)
	}
	r = sh(t, dir, filepath.Join(alone, "stackcollapse")+" --no-time "+filepath.Join(ct, "ct.data.gz"),
		"PATH=/usr/bin:/bin", "HOME="+home, "DEBUGINFOD_URLS="+srv.URL, "DEBUGINFOD_CACHE_PATH="+t.TempDir(), "FLAMEKIT_CACHE=off")
	if r.code != 0 || !strings.Contains(string(r.stderr), "flamekit-fetch, the helper that makes debuginfod's requests, is neither in "+alone) {
		t.Errorf("without the helper: exit %d, stderr %s", r.code, r.stderr)
	}
}

// TestToolsLinkNoHTTP: the tools that only read link no HTTP or TLS stack
// (their start would take 2 to 4 ms more); flamekit-fetch does. No tool
// links the testing package.
func TestToolsLinkNoHTTP(t *testing.T) {
	for _, tool := range []string{"stackcollapse", "flamegraph", "difffolded", "stackfilter", "stacktop", "flamekit-fetch", "timeslice"} {
		need(t, tool)
		f, err := elf.Open(filepath.Join(binDir, tool))
		if err != nil {
			t.Fatal(err)
		}
		syms, err := f.Symbols()
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		tls := false
		for _, s := range syms {
			if strings.HasPrefix(s.Name, "crypto/tls.") || strings.HasPrefix(s.Name, "net/http.") {
				tls = true
			}
			if strings.HasPrefix(s.Name, "testing.") {
				t.Errorf("%s links the testing package (%s)", tool, s.Name)
				break
			}
		}
		if tool == "timeslice" {
			continue // --push and the explorer serve HTTP
		}
		if want := tool == "flamekit-fetch"; tls != want {
			t.Errorf("%s links net/http or crypto/tls: %v, want %v", tool, tls, want)
		}
	}
}
