// Package debuginfod fetches debug files and executables by build-id
// from debuginfod servers (elfutils' protocol: GET URL/buildid/HEX/debuginfo
// and URL/buildid/HEX/executable), into elfutils' cache, so that perf,
// gdb and flamekit share one cache.
//
// The environment is elfutils' (FromEnv): DEBUGINFOD_URLS, the servers,
// space-separated (unset or empty: nothing is fetched);
// DEBUGINFOD_CACHE_PATH, else $XDG_CACHE_HOME/debuginfod_client, else
// ~/.cache/debuginfod_client, holding CACHE/HEX/debuginfo and
// CACHE/HEX/executable; DEBUGINFOD_TIMEOUT, seconds to connect and get
// an answer (default 90); DEBUGINFOD_MAXSIZE, bytes, and
// DEBUGINFOD_MAXTIME, seconds per file. A 404 on every server is kept
// as elfutils keeps it, an empty file, for CACHE/cache_miss_s seconds
// (default 600), so that neither flamekit nor gdb asks again meanwhile.
//
// A Client fetches each file at most once per run, however many ask for
// it and however often, and several at once (Prefetch). Every file,
// fetched or found in the cache, is checked to have the build-id it was
// asked for: a corrupt or wrong file is an error naming the build-id,
// never a source of symbols.
//
// The HTTP requests are a Getter's. This package makes none itself, so
// that a program built on it does not link an HTTP and TLS stack, whose
// initialisation and size cost every start of every flamekit tool 2 to
// 4 ms (10-15% of a start) for a client that most runs never use: by
// default (Exec) each request runs the flamekit-fetch helper, installed
// with the tools, as git runs git-remote-https. Package nethttp makes
// them in the process, with net/http.
package debuginfod

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Kind is what is fetched for a build-id.
type Kind string

// The kinds of files a server gives.
const (
	Debuginfo  Kind = "debuginfo"
	Executable Kind = "executable"
)

// Config says where to fetch from and how.
type Config struct {
	// URLs are the servers, tried in order.
	URLs []string
	// CacheDir is elfutils' cache directory.
	CacheDir string
	// Timeout bounds connecting and waiting for an answer (elfutils:
	// DEBUGINFOD_TIMEOUT); MaxTime a whole download (DEBUGINFOD_MAXTIME);
	// 0 is no bound.
	Timeout, MaxTime time.Duration
	// MaxSize refuses larger files (DEBUGINFOD_MAXSIZE); 0 is no bound.
	MaxSize int64
	// CacheMiss is how long a 404 is remembered (the cache's
	// cache_miss_s file, default 600 s).
	CacheMiss time.Duration
	// BuildID reads the build-id of an ELF file, to check what was
	// fetched (required).
	BuildID func(path string) (string, error)
	// Progress, when not nil, gets a line of progress as files come (the
	// caller passes stderr when it is a terminal).
	Progress io.Writer
	// Parallel is how many files are fetched at once (default 4).
	Parallel int
	// Getter makes the requests (default: Exec{}, the flamekit-fetch
	// helper).
	Getter Getter
}

// FromEnv returns the Config elfutils' client would use, reading the
// environment with getenv (nil: os.Getenv).
func FromEnv(getenv func(string) string) Config {
	if getenv == nil {
		getenv = os.Getenv
	}
	c := Config{
		URLs:      strings.Fields(getenv("DEBUGINFOD_URLS")),
		CacheDir:  getenv("DEBUGINFOD_CACHE_PATH"),
		Timeout:   90 * time.Second,
		CacheMiss: 600 * time.Second,
	}
	if c.CacheDir == "" {
		base := getenv("XDG_CACHE_HOME")
		if base == "" {
			if home := getenv("HOME"); home != "" {
				base = filepath.Join(home, ".cache")
			}
		}
		if base != "" {
			c.CacheDir = filepath.Join(base, "debuginfod_client")
		}
	}
	if s, ok := seconds(getenv("DEBUGINFOD_TIMEOUT")); ok {
		c.Timeout = s
	}
	if s, ok := seconds(getenv("DEBUGINFOD_MAXTIME")); ok {
		c.MaxTime = s
	}
	if n, err := strconv.ParseInt(getenv("DEBUGINFOD_MAXSIZE"), 10, 64); err == nil && n > 0 {
		c.MaxSize = n
	}
	return c
}

func seconds(v string) (time.Duration, bool) {
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil || n < 0 {
		return 0, false
	}
	return time.Duration(n) * time.Second, true
}

// Errors wrapped by an *Error.
var (
	// ErrNotFound: no server has the file (or a recent 404 is cached).
	ErrNotFound = errors.New("not found")
	// ErrMismatch: the file has another build-id, or none (corrupt).
	ErrMismatch = errors.New("build-id differs: corrupt or wrong file")
	// ErrTooLarge: over DEBUGINFOD_MAXSIZE.
	ErrTooLarge = errors.New("larger than DEBUGINFOD_MAXSIZE")
	// ErrDisabled: no servers configured.
	ErrDisabled = errors.New("no DEBUGINFOD_URLS")
)

// Error is a file that could not be had, naming its build-id.
type Error struct {
	BuildID string
	Kind    Kind
	// Server is the last server asked, "" when none was.
	Server string
	Err    error
}

func (e *Error) Error() string {
	s := fmt.Sprintf("debuginfod: %s of build-id %s: %v", e.Kind, e.BuildID, e.Err)
	if e.Server != "" {
		s += " (" + e.Server + ")"
	}
	return s
}

func (e *Error) Unwrap() error { return e.Err }

// Unasked returns the *Error in err when the servers could not be asked
// or their answer did not arrive whole (down, too slow, a cut body, the
// flamekit-fetch helper missing): not an answer about the file (not
// found, a wrong or too large one), nor ErrDisabled. What to fix is then
// the client's side, not the server's content.
func Unasked(err error) (*Error, bool) {
	var e *Error
	if !errors.As(err, &e) {
		return nil, false
	}
	for _, answer := range []error{ErrDisabled, ErrNotFound, ErrMismatch, ErrTooLarge} {
		if errors.Is(e, answer) {
			return nil, false
		}
	}
	return e, true
}

// Client fetches files by build-id, each at most once.
type Client struct {
	cfg Config
	sem chan struct{}

	mu    sync.Mutex
	files map[key]*fetch
	done  int // fetches finished, for progress
	bytes int64
}

type key struct {
	id   string
	kind Kind
}

type fetch struct {
	done chan struct{}
	path string
	err  error
}

// New returns a Client for cfg.
func New(cfg Config) *Client {
	if cfg.Parallel <= 0 {
		cfg.Parallel = 4
	}
	if cfg.Getter == nil {
		cfg.Getter = Exec{}
	}
	if cfg.CacheMiss == 0 {
		cfg.CacheMiss = 600 * time.Second
	}
	var urls []string
	for _, u := range cfg.URLs {
		if strings.HasPrefix(u, "http://") || strings.HasPrefix(u, "https://") {
			urls = append(urls, strings.TrimRight(u, "/"))
		}
	}
	cfg.URLs = urls
	return &Client{cfg: cfg, sem: make(chan struct{}, cfg.Parallel), files: map[key]*fetch{}}
}

// Enabled says whether there is a server to ask.
func (c *Client) Enabled() bool { return c != nil && len(c.cfg.URLs) > 0 && c.cfg.CacheDir != "" }

// Servers returns the servers asked.
func (c *Client) Servers() []string { return c.cfg.URLs }

// Prefetch starts fetching the files of ids in the background, several
// at once; Fetch then waits for them.
func (c *Client) Prefetch(ctx context.Context, kind Kind, ids ...string) {
	for _, id := range ids {
		if f, mine := c.start(id, kind); mine {
			go c.run(ctx, id, kind, f)
		}
	}
}

// Fetch returns the path in the cache of the file kind of build-id id,
// fetching it unless it is there, or fetched or being fetched already.
func (c *Client) Fetch(ctx context.Context, id string, kind Kind) (string, error) {
	f, mine := c.start(id, kind)
	if mine {
		c.run(ctx, id, kind, f)
	}
	select {
	case <-f.done:
	case <-ctx.Done():
		return "", &Error{BuildID: id, Kind: kind, Err: ctx.Err()}
	}
	return f.path, f.err
}

func (c *Client) start(id string, kind Kind) (*fetch, bool) {
	id = strings.ToLower(id)
	c.mu.Lock()
	defer c.mu.Unlock()
	k := key{id, kind}
	if f := c.files[k]; f != nil {
		return f, false
	}
	f := &fetch{done: make(chan struct{})}
	c.files[k] = f
	return f, true
}

func (c *Client) run(ctx context.Context, id string, kind Kind, f *fetch) {
	defer close(f.done)
	id = strings.ToLower(id)
	f.path, f.err = c.get(ctx, id, kind)
	// One line at a time, rewritten in place: under the lock.
	c.mu.Lock()
	defer c.mu.Unlock()
	c.done++
	if c.cfg.Progress != nil {
		end := "\r"
		if c.done == len(c.files) {
			end = "\n"
		}
		fmt.Fprintf(c.cfg.Progress, "debuginfod: %d of %d files, %.1f MB%s", c.done, len(c.files), float64(c.bytes)/1e6, end)
	}
}

// validID: hex, an even number of digits, as elfutils requires.
func validID(id string) bool {
	if len(id) < 2 || len(id)%2 != 0 || len(id) > 128 {
		return false
	}
	for _, c := range id {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

func (c *Client) get(ctx context.Context, id string, kind Kind) (string, error) {
	fail := func(server string, err error) (string, error) {
		return "", &Error{BuildID: id, Kind: kind, Server: server, Err: err}
	}
	if !validID(id) {
		return fail("", errors.New("not a build-id"))
	}
	if c.cfg.CacheDir == "" {
		return fail("", errors.New("no cache directory: set DEBUGINFOD_CACHE_PATH"))
	}
	dir := filepath.Join(c.cfg.CacheDir, id)
	path := filepath.Join(dir, string(kind))
	// In the cache already (ours, perf's, gdb's): check it as a fetched one.
	if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() {
		if fi.Size() == 0 {
			if time.Since(fi.ModTime()) < c.cacheMiss() {
				return fail("", fmt.Errorf("%w (a 404 cached at %s)", ErrNotFound, fi.ModTime().UTC().Format(time.RFC3339)))
			}
			os.Remove(path)
		} else if err := c.verify(path, id); err != nil {
			return fail("", fmt.Errorf("%w, in the cache: remove %s", err, path))
		} else {
			return path, nil
		}
	}
	if len(c.cfg.URLs) == 0 {
		return fail("", ErrDisabled)
	}
	c.sem <- struct{}{}
	defer func() { <-c.sem }()
	var last error = ErrNotFound
	server := ""
	notFound := true
	for _, u := range c.cfg.URLs {
		server = u
		err := c.download(ctx, u+"/buildid/"+id+"/"+string(kind), dir, path, id)
		if err == nil {
			return path, nil
		}
		last = err
		if !errors.Is(err, ErrNotFound) {
			notFound = false
		}
	}
	if notFound {
		// Remember the miss as elfutils does: an empty file.
		if os.MkdirAll(dir, 0o755) == nil {
			if f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0); err == nil {
				f.Close()
			}
		}
	}
	return fail(server, last)
}

func (c *Client) cacheMiss() time.Duration {
	data, err := os.ReadFile(filepath.Join(c.cfg.CacheDir, "cache_miss_s"))
	if err == nil {
		if n, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64); err == nil && n >= 0 {
			return time.Duration(n) * time.Second
		}
	}
	return c.cfg.CacheMiss
}

func (c *Client) verify(path, id string) error {
	got, err := c.cfg.BuildID(path)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrMismatch, err)
	}
	if !strings.EqualFold(got, id) {
		if got == "" {
			got = "none"
		}
		return fmt.Errorf("%w: the file has %s", ErrMismatch, got)
	}
	return nil
}

// download fetches url into path through a temporary file in dir, and
// renames it into place only once its build-id is checked.
func (c *Client) download(ctx context.Context, url, dir, path, id string) error {
	if c.cfg.MaxTime > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.cfg.MaxTime)
		defer cancel()
	}
	// Timeout bounds the wait for the answer's header; the body is bound
	// by MaxTime and by a stall of Timeout between reads.
	hctx, hcancel := context.WithCancel(ctx)
	defer hcancel()
	var timer *time.Timer
	if c.cfg.Timeout > 0 {
		timer = time.AfterFunc(c.cfg.Timeout, hcancel)
		defer timer.Stop()
	}
	resp, err := c.cfg.Getter.Get(hctx, url)
	if err != nil {
		if hctx.Err() != nil && ctx.Err() == nil {
			return fmt.Errorf("no answer within DEBUGINFOD_TIMEOUT=%s", c.cfg.Timeout)
		}
		return err
	}
	defer resp.Body.Close()
	switch {
	case resp.Status == StatusNotFound:
		return ErrNotFound
	case resp.Status != StatusOK:
		return fmt.Errorf("HTTP %d %s", resp.Status, resp.Text)
	}
	if c.cfg.MaxSize > 0 && resp.Length > c.cfg.MaxSize {
		return fmt.Errorf("%w: %d bytes", ErrTooLarge, resp.Length)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // after the rename, a no-op
	body := io.Reader(resp.Body)
	if timer != nil {
		body = &stallReader{r: body, t: timer, d: c.cfg.Timeout}
	}
	limit := c.cfg.MaxSize
	if limit <= 0 {
		limit = 1 << 62
	}
	n, err := io.Copy(tmp, io.LimitReader(body, limit+1))
	c.mu.Lock()
	c.bytes += n
	c.mu.Unlock()
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		if hctx.Err() != nil && ctx.Err() == nil {
			return fmt.Errorf("stalled for DEBUGINFOD_TIMEOUT=%s after %d bytes", c.cfg.Timeout, n)
		}
		return fmt.Errorf("after %d bytes: %w", n, err)
	}
	if n > limit {
		return fmt.Errorf("%w: more than %d bytes", ErrTooLarge, limit)
	}
	if resp.Length >= 0 && n != resp.Length {
		return fmt.Errorf("cut: %d of %d bytes", n, resp.Length)
	}
	if err := c.verify(tmp.Name(), id); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o444); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// stallReader pushes the timer back on each read that gets bytes.
type stallReader struct {
	r io.Reader
	t *time.Timer
	d time.Duration
}

func (s *stallReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if n > 0 {
		s.t.Reset(s.d)
	}
	return n, err
}
