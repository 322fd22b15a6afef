package debuginfod_test

import (
	"bufio"
	"bytes"
	"context"
	"debug/elf"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"flamekit/internal/testkit/debugfiles"
	"flamekit/pkg/perf/debuginfod"
	"flamekit/pkg/perf/debuginfod/nethttp"
)

// TestMain makes the test binary the flamekit-fetch helper when
// helperEnv says so: the tests run the requests through the helper as the
// tools do (debuginfod.Exec), as well as in the process (nethttp).
func TestMain(m *testing.M) {
	switch os.Getenv(helperEnv) {
	case "":
	case "cut": // a head, part of the body, then a failure
		fmt.Print("200 100 OK\n0123456789")
		fmt.Fprintln(os.Stderr, "flamekit-fetch: unexpected EOF")
		os.Exit(1)
	case "cut-quietly": // the body ends early, exit status 0
		fmt.Print("200 100 OK\n0123456789")
		os.Exit(0)
	case "malformed":
		fmt.Print("hello\n")
		os.Exit(0)
	case "malformed-chatty": // a garbled head, then more than a pipe holds
		fmt.Print("hello\n" + strings.Repeat("x", 1<<20))
		os.Exit(0)
	case "unreachable":
		fmt.Fprintln(os.Stderr, "flamekit-fetch: dial tcp: connection refused")
		os.Exit(1)
	}
	if os.Getenv(helperEnv) == "1" {
		url := os.Args[len(os.Args)-1]
		w := bufio.NewWriter(os.Stdout)
		err := nethttp.Serve(context.Background(), url, w)
		if ferr := w.Flush(); err == nil {
			err = ferr
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "flamekit-fetch: %v\n", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

const helperEnv = "FLAMEKIT_TEST_FETCH_HELPER"

// forGetters runs test with each way of making the requests: the helper
// (this binary, see TestMain) and net/http in the process.
func forGetters(t *testing.T, test func(t *testing.T, g debuginfod.Getter)) {
	t.Run("helper", func(t *testing.T) { test(t, helperGetter(t, "1")) })
	t.Run("nethttp", func(t *testing.T) { test(t, nethttp.Getter{}) })
}

// helperGetter runs this test binary as the helper in mode (see
// TestMain): the environment says so to the helper, the test process
// read it at its start.
func helperGetter(t *testing.T, mode string) debuginfod.Getter {
	t.Setenv(helperEnv, mode)
	return debuginfod.Exec{Path: os.Args[0]}
}

// fakeServer serves files by build-id and counts requests.
type fakeServer struct {
	files    map[string][]byte // "HEX/kind" → body
	requests atomic.Int64
	delay    time.Duration
}

func (s *fakeServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.requests.Add(1)
	if s.delay > 0 {
		select {
		case <-time.After(s.delay):
		case <-r.Context().Done():
			return
		}
	}
	body, ok := s.files[strings.TrimPrefix(r.URL.Path, "/buildid/")]
	if !ok {
		http.NotFound(w, r)
		return
	}
	w.Write(body)
}

func config(t *testing.T, g debuginfod.Getter, urls ...string) debuginfod.Config {
	return debuginfod.Config{
		Getter:   g,
		URLs:     urls,
		CacheDir: filepath.Join(t.TempDir(), "cache"),
		Timeout:  time.Minute,
		BuildID:  debugfiles.BuildID,
	}
}

func TestFromEnv(t *testing.T) {
	t.Setenv("DEBUGINFOD_URLS", "http://a:8002 https://b/ ")
	t.Setenv("DEBUGINFOD_CACHE_PATH", "")
	t.Setenv("XDG_CACHE_HOME", "/x")
	t.Setenv("DEBUGINFOD_TIMEOUT", "7")
	t.Setenv("DEBUGINFOD_MAXSIZE", "1000")
	t.Setenv("DEBUGINFOD_MAXTIME", "9")
	c := debuginfod.FromEnv(nil)
	if len(c.URLs) != 2 || c.CacheDir != "/x/debuginfod_client" || c.Timeout != 7*time.Second || c.MaxSize != 1000 || c.MaxTime != 9*time.Second {
		t.Errorf("debuginfod.FromEnv = %+v", c)
	}
	t.Setenv("DEBUGINFOD_CACHE_PATH", "/c")
	if c := debuginfod.FromEnv(nil); c.CacheDir != "/c" {
		t.Errorf("DEBUGINFOD_CACHE_PATH: %q", c.CacheDir)
	}
	t.Setenv("DEBUGINFOD_CACHE_PATH", "")
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("HOME", "/h")
	if c := debuginfod.FromEnv(nil); c.CacheDir != "/h/.cache/debuginfod_client" {
		t.Errorf("HOME: %q", c.CacheDir)
	}
	t.Setenv("DEBUGINFOD_URLS", "")
	if debuginfod.New(debuginfod.FromEnv(nil)).Enabled() {
		t.Error("enabled without URLs")
	}
}

// TestFetch: with a fake server, each file is asked for once however
// many ask, several at once; wrong and corrupt files are refused naming
// the build-id, 404s are remembered as elfutils does.
func TestFetch(t *testing.T) {
	forGetters(t, func(t *testing.T, g debuginfod.Getter) {
		dir := t.TempDir()
		a := debugfiles.Build(t, dir, "a", "")
		b := debugfiles.Build(t, dir, "b", "int flamekit_b = 1;\n")
		debugA, _ := os.ReadFile(a.Debug)
		debugB, _ := os.ReadFile(b.Debug)
		srv := &fakeServer{files: map[string][]byte{
			a.BuildID + "/debuginfo":  debugA,
			a.BuildID + "/executable": debugB, // the wrong file
			b.BuildID + "/debuginfo":  debugB[:len(debugB)/3],
		}}
		hs := httptest.NewServer(srv)
		defer hs.Close()
		cfg := config(t, g, hs.URL+"/")
		c := debuginfod.New(cfg)
		ctx := context.Background()

		var wg sync.WaitGroup
		for i := 0; i < 8; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				p, err := c.Fetch(ctx, a.BuildID, debuginfod.Debuginfo)
				if err != nil || p != filepath.Join(cfg.CacheDir, a.BuildID, "debuginfo") {
					t.Errorf("Fetch: %q %v", p, err)
				}
			}()
		}
		wg.Wait()
		if got, _ := os.ReadFile(filepath.Join(cfg.CacheDir, a.BuildID, "debuginfo")); !bytes.Equal(got, debugA) {
			t.Error("cached file differs from the served one")
		}
		if n := srv.requests.Load(); n != 1 {
			t.Errorf("%d requests for one file", n)
		}

		_, err := c.Fetch(ctx, a.BuildID, debuginfod.Executable)
		if !errors.Is(err, debuginfod.ErrMismatch) || !strings.Contains(err.Error(), a.BuildID) || !strings.Contains(err.Error(), b.BuildID) {
			t.Errorf("wrong file: %v", err)
		}
		if _, err := os.Stat(filepath.Join(cfg.CacheDir, a.BuildID, "executable")); err == nil {
			t.Error("a wrong file was put in the cache")
		}
		_, err = c.Fetch(ctx, b.BuildID, debuginfod.Debuginfo)
		if !errors.Is(err, debuginfod.ErrMismatch) || !strings.Contains(err.Error(), b.BuildID) {
			t.Errorf("corrupt file: %v", err)
		}
		missing := strings.Repeat("ab", 20)
		if _, err := c.Fetch(ctx, missing, debuginfod.Debuginfo); !errors.Is(err, debuginfod.ErrNotFound) || !strings.Contains(err.Error(), missing) {
			t.Errorf("404: %v", err)
		}
		before := srv.requests.Load()
		// A new client (a new run) finds the 404 remembered in the cache, and
		// the good file there.
		c2 := debuginfod.New(cfg)
		if _, err := c2.Fetch(ctx, missing, debuginfod.Debuginfo); !errors.Is(err, debuginfod.ErrNotFound) || !strings.Contains(err.Error(), "cached") {
			t.Errorf("cached 404: %v", err)
		}
		if _, err := c2.Fetch(ctx, a.BuildID, debuginfod.Debuginfo); err != nil {
			t.Errorf("cached file: %v", err)
		}
		if n := srv.requests.Load(); n != before {
			t.Errorf("%d requests for files in the cache", n-before)
		}
		// A corrupt file in the cache (written by someone else) is refused.
		bad := filepath.Join(cfg.CacheDir, strings.Repeat("cd", 20), "debuginfo")
		os.MkdirAll(filepath.Dir(bad), 0o755)
		os.WriteFile(bad, []byte("\x7fELF garbage"), 0o644)
		if _, err := c2.Fetch(ctx, strings.Repeat("cd", 20), debuginfod.Debuginfo); !errors.Is(err, debuginfod.ErrMismatch) || !strings.Contains(err.Error(), "remove "+bad) {
			t.Errorf("corrupt cache entry: %v", err)
		}
		if _, err := c2.Fetch(ctx, "../../etc", debuginfod.Debuginfo); err == nil {
			t.Error("a path as a build-id")
		}
	})
}

// TestDown: a server that is down, or too slow, is an error naming the
// build-id, within the timeout.
func TestDown(t *testing.T) {
	forGetters(t, func(t *testing.T, g debuginfod.Getter) {
		srv := &fakeServer{delay: 3 * time.Second}
		hs := httptest.NewServer(srv)
		defer hs.Close()
		id := strings.Repeat("ef", 20)
		cfg := config(t, g, hs.URL)
		cfg.Timeout = 100 * time.Millisecond
		if _, err := debuginfod.New(cfg).Fetch(context.Background(), id, debuginfod.Debuginfo); err == nil || !strings.Contains(err.Error(), "DEBUGINFOD_TIMEOUT") || !strings.Contains(err.Error(), id) {
			t.Errorf("slow server: %v", err)
		}
		cfg = config(t, g, "http://127.0.0.1:1")
		if _, err := debuginfod.New(cfg).Fetch(context.Background(), id, debuginfod.Debuginfo); err == nil || errors.Is(err, debuginfod.ErrNotFound) || !strings.Contains(err.Error(), id) {
			t.Errorf("server down: %v", err)
		}
		if _, err := os.Stat(filepath.Join(cfg.CacheDir, id, "debuginfo")); err == nil {
			t.Error("a server down was cached as a 404")
		}
	})
}

// TestRealServer runs elfutils' debuginfod over debug files made here,
// fetches them with this client and with debuginfod-find, and checks that
// both get the same file and that its symbols are what eu-addr2line says.
// The requests go through the helper, as the tools make them (its body is
// nethttp's Getter: both are exercised).
func TestRealServer(t *testing.T) {
	g := helperGetter(t, "1")
	dir := t.TempDir()
	serve := filepath.Join(dir, "serve")
	os.Mkdir(serve, 0o755)
	var progs []debugfiles.Program
	var ids []string
	for i := 0; i < 3; i++ {
		p := debugfiles.Build(t, dir, "p"+strconv.Itoa(i), "int flamekit_v"+strconv.Itoa(i)+" = 1;\n")
		os.Rename(p.Debug, filepath.Join(serve, filepath.Base(p.Debug)))
		p.Debug = filepath.Join(serve, filepath.Base(p.Debug))
		progs = append(progs, p)
		ids = append(ids, p.BuildID)
	}
	url := debugfiles.Server(t, serve, ids...)
	cfg := config(t, g, url)
	var progress bytes.Buffer
	cfg.Progress = &progress
	c := debuginfod.New(cfg)
	c.Prefetch(context.Background(), debuginfod.Debuginfo, ids...)
	for _, p := range progs {
		path, err := c.Fetch(context.Background(), p.BuildID, debuginfod.Debuginfo)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := os.ReadFile(path)
		want, _ := os.ReadFile(p.Debug)
		if !bytes.Equal(got, want) {
			t.Errorf("%s: fetched file differs from the served one", p.BuildID)
		}
		if find, err := exec.LookPath("debuginfod-find"); err == nil {
			cmd := exec.Command(find, "debuginfo", p.BuildID)
			cmd.Env = append(os.Environ(), "DEBUGINFOD_URLS="+url, "DEBUGINFOD_CACHE_PATH="+filepath.Join(dir, "elfutils-cache"))
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("debuginfod-find: %v", err)
			}
			theirs, _ := os.ReadFile(strings.TrimSpace(string(out)))
			if !bytes.Equal(got, theirs) {
				t.Errorf("%s: debuginfod-find got another file", p.BuildID)
			}
			if filepath.Base(filepath.Dir(strings.TrimSpace(string(out)))) != p.BuildID {
				t.Errorf("elfutils' cache layout is not CACHE/HEX/debuginfo: %s", out)
			}
		}
		compareAddr2line(t, path)
	}
	if !strings.Contains(progress.String(), "3 of 3 files") {
		t.Errorf("progress: %q", progress.String())
	}
}

// compareAddr2line checks the function symbols of a debug file against
// eu-addr2line -f.
func compareAddr2line(t *testing.T, path string) {
	bin, err := exec.LookPath("eu-addr2line")
	if err != nil {
		t.Log("eu-addr2line not installed (apt-get install elfutils): not compared")
		return
	}
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	syms, _ := f.Symbols()
	f.Close()
	n := 0
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) != elf.STT_FUNC || !strings.HasPrefix(s.Name, "flamekit_") {
			continue
		}
		out, err := exec.Command(bin, "-f", "-e", path, "0x"+strconv.FormatUint(s.Value+1, 16)).Output()
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.SplitN(string(out), "\n", 2)[0]; got != s.Name {
			t.Errorf("eu-addr2line at %s+1: %q", s.Name, got)
		}
		n++
	}
	if n != 3 {
		t.Errorf("%d flamekit_ functions in %s, want 3", n, path)
	}
}

// TestHelper: what the helper says goes into the error; an answer it cut,
// or a head it garbled, is an error, never a file in the cache.
func TestHelper(t *testing.T) {
	id := strings.Repeat("ab", 20)
	for _, tc := range []struct {
		mode string
		want string
	}{
		{"cut", "unexpected EOF"},
		{"cut-quietly", "cut: 10 of 100 bytes"},
		{"malformed", `malformed head "hello\n"`},
		{"malformed-chatty", `malformed head "hello\n"`},
		{"unreachable", "dial tcp: connection refused"},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			g := helperGetter(t, tc.mode)
			cfg := config(t, g, "http://debuginfod.invalid")
			_, err := debuginfod.New(cfg).Fetch(context.Background(), id, debuginfod.Debuginfo)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), id) {
				t.Errorf("error %v, want one naming %s and saying %q", err, id, tc.want)
			}
			if ents, _ := os.ReadDir(filepath.Join(cfg.CacheDir, id)); len(ents) > 0 {
				t.Errorf("left in the cache: %v", ents)
			}
		})
	}
	t.Run("not installed", func(t *testing.T) {
		t.Setenv("PATH", t.TempDir())
		_, err := debuginfod.Exec{}.Get(context.Background(), "http://debuginfod.invalid/x")
		if err == nil || !strings.Contains(err.Error(), debuginfod.HelperName) || !strings.Contains(err.Error(), "make install") {
			t.Errorf("no helper: %v", err)
		}
	})
}

// TestUnasked: an answer about the file is not a failure to ask.
func TestUnasked(t *testing.T) {
	wrap := func(err error) error {
		return fmt.Errorf("no file: %w", &debuginfod.Error{BuildID: "ab", Kind: debuginfod.Debuginfo, Err: err})
	}
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{wrap(errors.New("dial tcp: connection refused")), true},
		{wrap(fmt.Errorf("cut: 10 of 100 bytes")), true},
		{wrap(debuginfod.ErrNotFound), false},
		{wrap(fmt.Errorf("%w: the file has cd", debuginfod.ErrMismatch)), false},
		{wrap(debuginfod.ErrTooLarge), false},
		{wrap(debuginfod.ErrDisabled), false},
		{errors.New("not from debuginfod"), false},
	} {
		de, got := debuginfod.Unasked(tc.err)
		if got != tc.want || (got && de.BuildID != "ab") {
			t.Errorf("Unasked(%v) = %v, %v; want %v", tc.err, de, got, tc.want)
		}
	}
}
