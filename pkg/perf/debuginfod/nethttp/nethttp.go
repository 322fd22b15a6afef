// Package nethttp makes debuginfod's requests with net/http: the Getter
// of programs that link an HTTP stack anyway, and the body of the
// flamekit-fetch helper that the tools run instead (see package
// debuginfod).
package nethttp

import (
	"context"
	"io"
	"net/http"

	"flamekit/pkg/perf/debuginfod"
)

// Getter is a debuginfod.Getter that asks with Client (nil: a plain
// http.Client).
type Getter struct {
	Client *http.Client
}

// Get makes a GET of url.
func (g Getter) Get(ctx context.Context, url string) (*debuginfod.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", debuginfod.UserAgent)
	c := g.Client
	if c == nil {
		c = http.DefaultClient
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	text := resp.Status
	if len(text) > 4 && text[3] == ' ' {
		text = text[4:] // "404 Not Found": the code is Status
	}
	return &debuginfod.Response{Status: resp.StatusCode, Text: text, Length: resp.ContentLength, Body: resp.Body}, nil
}

// Serve is the flamekit-fetch helper: it asks for url and writes the
// answer to w: its head (debuginfod.WriteHead), then, for a 200, its
// body, each part flushed as it comes when w has a Flush method (the
// parent times the gaps between reads). The error says why the body
// could not be written whole (net/http's reader says when it is shorter
// than its Content-Length): the parent then refuses what it got.
func Serve(ctx context.Context, url string, w io.Writer) error {
	resp, err := Getter{}.Get(ctx, url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	fw := flushWriter{w: w}
	if f, ok := w.(interface{ Flush() error }); ok {
		fw.flush = f.Flush
	}
	if err := debuginfod.WriteHead(fw, resp); err != nil || resp.Status != debuginfod.StatusOK {
		return err // the head of an answer without a file says it all
	}
	_, err = io.CopyBuffer(fw, resp.Body, make([]byte, 64<<10))
	return err
}

// flushWriter flushes w after each write, when it can.
type flushWriter struct {
	w     io.Writer
	flush func() error
}

func (f flushWriter) Write(p []byte) (int, error) {
	n, err := f.w.Write(p)
	if err == nil && f.flush != nil {
		err = f.flush()
	}
	return n, err
}
