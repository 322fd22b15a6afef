package debuginfod

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// Getter makes the HTTP GET requests of a Client.
type Getter interface {
	// Get asks for url and returns the answer, whose body the caller
	// closes. ctx ends the request, its body included.
	Get(ctx context.Context, url string) (*Response, error)
}

// Response is the answer to a GET.
type Response struct {
	Status int    // the HTTP status code
	Text   string // its text ("Not Found")
	Length int64  // the body's length, -1 when not known
	Body   io.ReadCloser
}

// HTTP status codes a Client tells apart.
const (
	StatusOK       = 200
	StatusNotFound = 404
)

// UserAgent is what a Getter says the client is.
const UserAgent = "flamekit"

// HelperName is the helper Exec runs.
const HelperName = "flamekit-fetch"

// WriteHead writes the head of an answer as the helper does, before its
// body: "STATUS LENGTH TEXT\n" (the length -1 when not known; the text
// on one line, valid UTF-8, at most maxText bytes, so that the line is
// always one readHead takes).
func WriteHead(w io.Writer, r *Response) error {
	_, err := fmt.Fprintf(w, "%d %d %s\n", r.Status, r.Length, headText(r.Text))
	return err
}

// headText is a status text as a head carries it: control characters
// blanked, invalid UTF-8 replaced, cut to maxText bytes on a character.
func headText(s string) string {
	s = strings.Map(func(c rune) rune {
		if c < ' ' || c == 0x7f {
			return ' '
		}
		return c
	}, s)
	if len(s) > maxText {
		i := maxText
		for i > 0 && !utf8.RuneStart(s[i]) {
			i--
		}
		s = s[:i]
	}
	return s
}

// Bounds of a head: its line, and the status text in it (a server's is a
// few words; the numbers before it take at most 26 bytes).
const (
	maxHead = 4 << 10
	maxText = 1 << 10
)

// readHead reads the head WriteHead wrote into r.
func readHead(br *bufio.Reader) (*Response, error) {
	line, err := br.ReadSlice('\n')
	if err != nil {
		if errors.Is(err, bufio.ErrBufferFull) {
			return nil, fmt.Errorf("%s: head of the answer longer than %d bytes", HelperName, maxHead)
		}
		return nil, err
	}
	f := strings.SplitN(strings.TrimSuffix(string(line), "\n"), " ", 3)
	if len(f) < 2 {
		return nil, fmt.Errorf("%s: malformed head %q", HelperName, line)
	}
	status, err1 := strconv.Atoi(f[0])
	length, err2 := strconv.ParseInt(f[1], 10, 64)
	if err1 != nil || err2 != nil || status < 100 || status > 999 || length < -1 {
		return nil, fmt.Errorf("%s: malformed head %q", HelperName, line)
	}
	r := &Response{Status: status, Length: length}
	if len(f) == 3 {
		r.Text = f[2]
	}
	return r, nil
}

// Exec is a Getter that runs the flamekit-fetch helper for each request:
// "flamekit-fetch -- URL" writes the head of the answer (WriteHead),
// then, for a 200, its body, to its standard output, and exits with 0
// once it wrote it whole. A request that ends early (its context) kills
// the helper.
type Exec struct {
	// Path is the helper. Empty: flamekit-fetch in the directory of the
	// running executable, else on $PATH.
	Path string
}

// lookPath finds the helper.
func (e Exec) lookPath() (string, error) {
	if e.Path != "" {
		return e.Path, nil
	}
	exe, err := os.Executable()
	if err == nil {
		p := filepath.Join(filepath.Dir(exe), HelperName)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p, nil
		}
	}
	if p, err := exec.LookPath(HelperName); err == nil {
		return p, nil
	}
	where := "the running program's directory"
	if exe != "" {
		where = filepath.Dir(exe)
	}
	return "", fmt.Errorf("%s, the helper that makes debuginfod's requests, is neither in %s nor on $PATH: install it with the other flamekit commands (make install, or go install flamekit/cmd/...)", HelperName, where)
}

// Get runs the helper for url.
func (e Exec) Get(ctx context.Context, url string) (*Response, error) {
	path, err := e.lookPath()
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, path, "--", url)
	stderr := &tailBuffer{max: maxHead}
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	h := &helper{cmd: cmd, stderr: stderr}
	br := bufio.NewReaderSize(out, maxHead)
	resp, err := readHead(br)
	if err != nil {
		// A helper still writing after a garbled head would wait for a
		// reader; one that ended said why on stderr.
		h.Close()
		if h.err != nil && h.stderr.b.Len() > 0 {
			return nil, h.err
		}
		return nil, err
	}
	h.r = br
	resp.Body = h
	return resp, nil
}

// helper is a running helper, the body of its answer.
type helper struct {
	cmd    *exec.Cmd
	stderr *tailBuffer
	r      io.Reader
	once   sync.Once
	err    error
}

// wait waits for the helper to end: nil when it succeeded, else an error
// with what it said.
func (h *helper) wait() error {
	h.once.Do(func() {
		if err := h.cmd.Wait(); err != nil {
			if msg := strings.TrimSpace(h.stderr.b.String()); msg != "" {
				err = errors.New(strings.TrimPrefix(msg, HelperName+": "))
			}
			h.err = err
		}
	})
	return h.err
}

// Read reads the body; its end is an error when the helper failed.
func (h *helper) Read(p []byte) (int, error) {
	n, err := h.r.Read(p)
	if err == io.EOF {
		if werr := h.wait(); werr != nil {
			return n, werr
		}
	}
	return n, err
}

// Close stops the helper if it still runs.
func (h *helper) Close() error {
	h.cmd.Process.Kill()
	h.wait()
	return nil
}

// tailBuffer keeps the last max bytes written to it: a helper's
// standard error, read once exec.Cmd.Wait has ended the copying.
type tailBuffer struct {
	max int
	b   bytes.Buffer
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.b.Write(p)
	if extra := t.b.Len() - t.max; extra > 0 {
		t.b.Next(extra)
	}
	return len(p), nil
}
