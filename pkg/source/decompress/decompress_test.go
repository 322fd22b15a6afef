package decompress

import (
	"bytes"
	"compress/gzip"
	"io"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

var text = []byte(strings.Repeat("main;work;leaf 10309278 @413.417927\n", 40000))

func gz(b []byte) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(b)
	zw.Close()
	return buf.Bytes()
}

func zst(b []byte) []byte {
	var buf bytes.Buffer
	zw, _ := zstd.NewWriter(&buf)
	zw.Write(b)
	zw.Close()
	return buf.Bytes()
}

func TestReaders(t *testing.T) {
	for _, c := range []struct {
		name string
		data []byte
		m    Method
	}{
		{"plain", text, None},
		{"gzip", gz(text), Gzip},
		{"gzip, two members", append(gz(text[:100]), gz(text[100:])...), Gzip},
		{"zstd", zst(text), Zstd},
	} {
		for _, light := range []bool{false, true} {
			newr := NewReader
			if light {
				newr = NewLightReader
			}
			// Twenty reads: a reader that fails now and then (as
			// pgzip with one block did) fails here.
			for range 20 {
				rc, m, err := newr(bytes.NewReader(c.data))
				if err != nil || m != c.m {
					t.Fatalf("%s: %v %v", c.name, m, err)
				}
				got, err := io.ReadAll(rc)
				rc.Close()
				if err != nil || !bytes.Equal(got, text) {
					t.Fatalf("%s (light %v): %d bytes, %v", c.name, light, len(got), err)
				}
			}
		}
	}
}

func TestTruncated(t *testing.T) {
	for _, data := range [][]byte{gz(text), zst(text)} {
		cut := data[:len(data)/2]
		for _, newr := range []func(io.Reader) (io.ReadCloser, Method, error){NewReader, NewLightReader} {
			rc, m, err := newr(bytes.NewReader(cut))
			if err != nil {
				t.Fatal(err)
			}
			_, err = io.ReadAll(rc)
			rc.Close()
			if err == nil || !strings.HasPrefix(err.Error(), m.String()+" ") {
				t.Errorf("%v cut: %v", m, err)
			}
		}
	}
}

func TestHead(t *testing.T) {
	for _, data := range [][]byte{text, gz(text), zst(text)} {
		for _, n := range []int{0, MagicSize, 100, 1000, len(data)} {
			raw := data[:min(n, len(data))]
			out, whole, m, err := Head(raw, 64<<10)
			if err != nil {
				t.Fatalf("%v cut at %d: %v", m, n, err)
			}
			if !bytes.HasPrefix(text, out) {
				t.Fatalf("%v cut at %d: not a prefix", m, n)
			}
			if n == len(data) && (len(out) != 64<<10 || whole) {
				t.Errorf("%v whole: %d bytes, whole %v", m, len(out), whole)
			}
		}
	}
	out, whole, m, err := Head(gz([]byte("a 1\n")), 100)
	if string(out) != "a 1\n" || !whole || m != Gzip || err != nil {
		t.Errorf("short gzip: %q %v %v %v", out, whole, m, err)
	}
}
