package debuginfod

import (
	"bufio"
	"bytes"
	"strings"
	"testing"
)

// FuzzReadHead: any head line is read or refused, never a panic; a head
// WriteHead wrote reads back as it was (the text without control
// characters, cut to maxText bytes), whatever its text.
func FuzzReadHead(f *testing.F) {
	f.Add("200 1234 OK\n", 200, int64(1234), "OK")
	f.Add("404 19 Not Found\n", 404, int64(-1), "Not Found")
	f.Add("200 -1 \n", 500, int64(0), "Internal\nServer Error")
	f.Add("hello\n", 999, int64(1<<40), "")
	f.Add("200 99999999999999999999 OK\n", 100, int64(-1), "\x7f\r")
	f.Add("", 502, int64(-1), strings.Repeat("é", 600)) // cut inside a character
	f.Fuzz(func(t *testing.T, line string, status int, length int64, text string) {
		if r, err := readHead(bufio.NewReaderSize(strings.NewReader(line), maxHead)); err == nil {
			if r.Status < 100 || r.Status > 999 || r.Length < -1 {
				t.Errorf("%q read as %+v", line, r)
			}
		}
		if status < 100 || status > 999 || length < -1 {
			return
		}
		var b bytes.Buffer
		if err := WriteHead(&b, &Response{Status: status, Length: length, Text: text}); err != nil {
			t.Fatal(err)
		}
		r, err := readHead(bufio.NewReaderSize(&b, maxHead))
		if err != nil {
			t.Fatalf("%q: %v", b.String(), err)
		}
		clean := []rune(strings.Map(func(c rune) rune {
			if c < ' ' || c == 0x7f {
				return ' '
			}
			return c
		}, text))
		for len(string(clean)) > maxText {
			clean = clean[:len(clean)-1]
		}
		if r.Status != status || r.Length != length || r.Text != string(clean) {
			t.Errorf("wrote %d %d %q, read %+v", status, length, text, r)
		}
	})
}
