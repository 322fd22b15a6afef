// Package pyroscope pushes profiles to Grafana Pyroscope's ingest API
// (POST /ingest?name=APP{k=v,...}&from=&until=&format=pprof).
//
// A [Client] sends one pprof profile per request over one keep-alive
// connection pool, with bounded retries and exponential backoff on
// network errors, 5xx and 429, and none on other 4xx (the server's message
// is returned in a [*RefusedError]). A [Pusher] cuts timed folded records
// into wall-clock buckets (1 s by default) and pushes each bucket as its own
// profile with its own from/until, so that Pyroscope and Grafana can show
// any second of a capture: Pyroscope keeps one time per profile (pprof's
// TimeNanos) and ignores per-sample timestamps.
//
// Authentication and tenancy come from the caller, usually from the
// environment through [AuthFromEnv]:
//
//	PYROSCOPE_BASIC_AUTH_USER, PYROSCOPE_BASIC_AUTH_PASSWORD   basic auth (Grafana Cloud: user id and token)
//	PYROSCOPE_AUTH_TOKEN                                       bearer token
//	PYROSCOPE_TENANT_ID                                        X-Scope-OrgID (multi-tenant servers)
package pyroscope

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Environment variables read by AuthFromEnv.
const (
	EnvBasicUser     = "PYROSCOPE_BASIC_AUTH_USER"
	EnvBasicPassword = "PYROSCOPE_BASIC_AUTH_PASSWORD"
	EnvToken         = "PYROSCOPE_AUTH_TOKEN"
	EnvTenant        = "PYROSCOPE_TENANT_ID"
)

// Auth is how requests authenticate: basic auth, a bearer token, or
// nothing; TenantID, when set, is sent as X-Scope-OrgID.
type Auth struct {
	User, Password string
	Token          string
	TenantID       string
}

// AuthFromEnv reads Auth from the environment variables above, through
// getenv (os.Getenv). Basic auth and a token together are an error.
func AuthFromEnv(getenv func(string) string) (Auth, error) {
	a := Auth{
		User:     getenv(EnvBasicUser),
		Password: getenv(EnvBasicPassword),
		Token:    getenv(EnvToken),
		TenantID: getenv(EnvTenant),
	}
	if a.Token != "" && (a.User != "" || a.Password != "") {
		return a, fmt.Errorf("both %s and %s/%s are set: use basic auth or a bearer token, not both", EnvToken, EnvBasicUser, EnvBasicPassword)
	}
	if a.User == "" && a.Password != "" {
		return a, fmt.Errorf("%s is set without %s", EnvBasicPassword, EnvBasicUser)
	}
	return a, nil
}

// Client pushes profiles to one Pyroscope server. Its zero value is not
// usable: call NewClient. A Client is safe for use by one goroutine at a
// time.
type Client struct {
	base *url.URL
	auth Auth
	http *http.Client
	// Retries is how many times a failed request is sent again (network
	// error, 5xx, 429); 0 after NewClient means DefaultRetries, a negative
	// value none.
	Retries int
	// Backoff is the wait before the first retry, doubled before each
	// next one up to MaxBackoff. A 429's Retry-After, when longer, wins
	// (up to MaxBackoff).
	Backoff, MaxBackoff time.Duration
	// Sleep waits between attempts; nil means a timer that ends early
	// when ctx is done. Tests replace it.
	Sleep func(ctx context.Context, d time.Duration) error
	// UserAgent is sent with every request.
	UserAgent string
	// Total bounds the time of one Ingest, every attempt and wait
	// included (a server that accepts connections and never answers
	// would otherwise hold a push for (Retries+1) × the request timeout);
	// 0 after NewClient means DefaultTotal, a negative value no bound.
	Total time.Duration
}

// ErrTotal is the cause of an Ingest stopped by Client.Total.
var ErrTotal = errors.New("the push's time limit passed")

// Defaults of NewClient.
const (
	DefaultRetries    = 4
	DefaultBackoff    = 250 * time.Millisecond
	DefaultMaxBackoff = 8 * time.Second
	DefaultTimeout    = 30 * time.Second // one request
	DefaultTotal      = 60 * time.Second // one Ingest, retries included
)

// NewClient returns a Client for the server at rawURL (for example
// http://localhost:4040; a path prefix is kept, /ingest is appended).
// User info in the URL is used as basic auth when auth has none. hc may be
// nil: the Client then makes its own, with keep-alive connections.
func NewClient(rawURL string, auth Auth, hc *http.Client) (*Client, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("push URL %q: %w", rawURL, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, fmt.Errorf("push URL %q: want http://HOST[:PORT] or https://HOST[:PORT]", rawURL)
	}
	if u.User != nil {
		if auth.User == "" && auth.Token == "" {
			auth.User = u.User.Username()
			auth.Password, _ = u.User.Password()
		}
		u.User = nil
	}
	u.RawQuery, u.Fragment = "", ""
	if hc == nil {
		hc = &http.Client{
			Timeout: DefaultTimeout,
			Transport: &http.Transport{
				Proxy:               http.ProxyFromEnvironment,
				DialContext:         (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
				MaxIdleConns:        4,
				MaxIdleConnsPerHost: 4,
				IdleConnTimeout:     90 * time.Second,
				TLSHandshakeTimeout: 10 * time.Second,
				ForceAttemptHTTP2:   true,
			},
		}
	}
	return &Client{base: u, auth: auth, http: hc, Backoff: DefaultBackoff, MaxBackoff: DefaultMaxBackoff, UserAgent: "flamekit"}, nil
}

// URL returns the server's URL without credentials, for messages.
func (c *Client) URL() string { return c.base.String() }

// Request is one profile to push.
type Request struct {
	// Name is the application name with its labels, "svc{k=v,...}" (see
	// AppName).
	Name string
	// From and Until are the time range the profile covers.
	From, Until time.Time
	// Profile is a pprof profile.proto, gzipped or not.
	Profile []byte
}

// Result says how a push went.
type Result struct {
	Status   int // the final HTTP status (0 if none was received)
	Attempts int // requests sent
}

// RefusedError is a push the server refused (4xx other than 429), or one
// still failing when the retries ran out.
type RefusedError struct {
	Status   int    // HTTP status; 0 for a network error
	Message  string // the server's message (start of its response body) or the network error
	Attempts int
}

func (e *RefusedError) Error() string {
	if e.Status == 0 {
		return fmt.Sprintf("push failed after %d attempts: %s", e.Attempts, e.Message)
	}
	what := "refused"
	if retryable(e.Status) {
		what = fmt.Sprintf("failed after %d attempts", e.Attempts)
	}
	msg := e.Message
	if msg == "" {
		msg = "(no message)"
	}
	return fmt.Sprintf("push %s: HTTP %d %s: %s", what, e.Status, http.StatusText(e.Status), msg)
}

// retryable reports whether a status is worth another attempt.
func retryable(status int) bool {
	return status >= 500 || status == http.StatusTooManyRequests
}

// Ingest pushes one profile.
func (c *Client) Ingest(ctx context.Context, r Request) (Result, error) {
	q := url.Values{}
	q.Set("name", r.Name)
	q.Set("format", "pprof")
	q.Set("from", strconv.FormatInt(r.From.UnixNano(), 10))
	q.Set("until", strconv.FormatInt(r.Until.UnixNano(), 10))
	res, _, err := c.Post(ctx, "/ingest", q, http.Header{"Content-Type": {"application/octet-stream"}}, r.Profile)
	return res, err
}

// Post sends body to path (under the URL's path) with the query and the
// headers given (Content-Type, Content-Encoding), with the Client's
// retries and backoff, within Total, and returns the start (at most 64
// KiB) of a 2xx answer's body.
func (c *Client) Post(ctx context.Context, path string, query url.Values, header http.Header, body []byte) (Result, []byte, error) {
	u := *c.base
	u.Path = strings.TrimSuffix(u.Path, "/") + path
	u.RawQuery = query.Encode()
	target := u.String()

	retries := c.Retries
	if retries == 0 {
		retries = DefaultRetries
	}
	if retries < 0 {
		retries = 0
	}
	total := c.Total
	if total == 0 {
		total = DefaultTotal
	}
	if total > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, total, ErrTotal)
		defer cancel()
	}
	wait := c.Backoff
	var res Result
	for {
		res.Attempts++
		status, msg, after, answer, err := c.send(ctx, target, header, body)
		res.Status = status
		switch {
		case err == nil && status/100 == 2:
			return res, answer, nil
		case ctx.Err() != nil:
			return res, nil, c.stopped(ctx, total, res.Attempts)
		case err == nil && !retryable(status):
			return res, nil, &RefusedError{Status: status, Message: msg, Attempts: res.Attempts}
		}
		if err != nil {
			msg = err.Error()
		}
		if res.Attempts > retries {
			return res, nil, &RefusedError{Status: status, Message: msg, Attempts: res.Attempts}
		}
		d := wait
		if after > d {
			d = after
		}
		if c.MaxBackoff > 0 && d > c.MaxBackoff {
			d = c.MaxBackoff
		}
		if err := c.sleep(ctx, d); err != nil {
			if ctx.Err() != nil {
				return res, nil, c.stopped(ctx, total, res.Attempts)
			}
			return res, nil, err
		}
		wait *= 2
		if c.MaxBackoff > 0 && wait > c.MaxBackoff {
			wait = c.MaxBackoff
		}
	}
}

// stopped is the error of an Ingest whose ctx is done: the time limit,
// said with its figures, or the caller's cancellation.
func (c *Client) stopped(ctx context.Context, total time.Duration, attempts int) error {
	if errors.Is(context.Cause(ctx), ErrTotal) {
		return fmt.Errorf("%w: no answer from %s within %v (%d attempts); the push gives up on this profile", ErrTotal, c.base.Host, total, attempts)
	}
	return ctx.Err()
}

// send makes one request; it returns the status, the server's message for
// a non-2xx status, a 429's Retry-After, a 2xx answer's body, and a
// network error.
func (c *Client) send(ctx context.Context, target string, header http.Header, body []byte) (int, string, time.Duration, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(body))
	if err != nil {
		return 0, "", 0, nil, err
	}
	for k, v := range header {
		req.Header[k] = v
	}
	if c.UserAgent != "" {
		req.Header.Set("User-Agent", c.UserAgent)
	}
	switch {
	case c.auth.Token != "":
		req.Header.Set("Authorization", "Bearer "+c.auth.Token)
	case c.auth.User != "":
		req.SetBasicAuth(c.auth.User, c.auth.Password)
	}
	if c.auth.TenantID != "" {
		req.Header.Set("X-Scope-OrgID", c.auth.TenantID)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // the URL is known to the caller
		}
		return 0, "", 0, nil, err
	}
	defer resp.Body.Close()
	const keep = 64 << 10
	b, _ := io.ReadAll(io.LimitReader(resp.Body, keep))
	io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20)) // let the connection be reused
	var after time.Duration
	if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s > 0 {
		after = time.Duration(s) * time.Second
	}
	if resp.StatusCode/100 == 2 {
		return resp.StatusCode, "", 0, b, nil
	}
	return resp.StatusCode, message(b), after, nil, nil
}

// message tidies a response body for an error message: one line, valid
// UTF-8, at most 300 bytes.
func message(b []byte) string {
	s := strings.Join(strings.Fields(strings.ToValidUTF8(string(b), "?")), " ")
	if len(s) > 300 {
		s = s[:300]
		for !utf8.ValidString(s) {
			s = s[:len(s)-1]
		}
		s += "..."
	}
	return s
}

func (c *Client) sleep(ctx context.Context, d time.Duration) error {
	if c.Sleep != nil {
		return c.Sleep(ctx, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Label is one series label of the pushed profiles.
type Label struct{ Key, Value string }

// ParseLabel reads "key=value".
func ParseLabel(s string) (Label, error) {
	k, v, ok := strings.Cut(s, "=")
	if !ok {
		return Label{}, fmt.Errorf("label %q: want KEY=VALUE", s)
	}
	l := Label{strings.TrimSpace(k), strings.TrimSpace(v)}
	return l, l.check()
}

func (l Label) check() error {
	if l.Key == "" {
		return fmt.Errorf("label %q: empty name", l.Key+"="+l.Value)
	}
	for _, r := range l.Key {
		if !labelNameRune(r) {
			return fmt.Errorf("label name %q: Pyroscope allows only letters, digits, '_' and '.'", l.Key)
		}
	}
	if l.Key == "__name__" || l.Key == "service_name" {
		return fmt.Errorf("label name %q is reserved: give the service name with --service", l.Key)
	}
	if l.Value == "" {
		return fmt.Errorf("label %q: empty value", l.Key)
	}
	if strings.ContainsAny(l.Value, "{},=") {
		return fmt.Errorf("label %s=%q: the value may not contain '{', '}', ',' or '=' (Pyroscope's /ingest name syntax has no escapes)", l.Key, l.Value)
	}
	return nil
}

func labelNameRune(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '.'
}

// AppName returns the /ingest name of a service with labels,
// "service{k=v,...}", after checking both against what Pyroscope accepts.
// (A pprof push keeps the name as it is; the ".cpu" suffix rule of
// Pyroscope's folded ingestion does not apply.)
func AppName(service string, labels []Label) (string, error) {
	if service == "" {
		return "", errors.New("empty service name")
	}
	for _, r := range service {
		if !labelNameRune(r) && r != '-' && r != '/' {
			return "", fmt.Errorf("service name %q: Pyroscope allows only letters, digits, '_', '.', '-' and '/'", service)
		}
	}
	var b strings.Builder
	b.WriteString(service)
	b.WriteByte('{')
	seen := map[string]bool{}
	for i, l := range labels {
		if err := l.check(); err != nil {
			return "", err
		}
		if seen[l.Key] {
			return "", fmt.Errorf("label %q given twice", l.Key)
		}
		seen[l.Key] = true
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(l.Key + "=" + l.Value)
	}
	b.WriteByte('}')
	return b.String(), nil
}
