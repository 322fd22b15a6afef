package source

import (
	"bytes"
	"testing"

	"flamekit/pkg/source/decompress"
)

// FuzzSniff checks that Sniff never panics, that Check's error is set
// exactly for Unknown, and that compression is looked through: an input
// opened gzipped is recognised as what it holds.
func FuzzSniff(f *testing.F) {
	f.Add([]byte("main;a;b 12\nmain;c 3\n"), true)
	f.Add([]byte("Attaching 1 probe...\n\n\n@[\n    f+1\n, comm]: 3\n"), true)
	f.Add([]byte("perf 1234 [000]  10.000001:     250000 cpu-clock:pppH: \n\tffffffff8100 do_syscall_64+0x71 ([kernel.kallsyms])\n\n"), true)
	f.Add([]byte("PERFILE2\x68\x00"), false)
	f.Add([]byte("PERFILE2\x10\x00\x00\x00\x00\x00\x00\x00"), false)
	f.Add([]byte("\x48\xe2\xea\xeb\xff\xb4\x9f\x9e\xf5\x18\x0a\x04\x08\x01\x10\x02\x0a\x04\x08\x03\x10\x04"), false)
	f.Add([]byte("# flamekit v1 timed source=\"x\"\nmain;a 1003009 @696.885404\n"), true)
	f.Fuzz(func(t *testing.T, in []byte, complete bool) {
		if len(in) > PeekSize {
			in = in[:PeekSize]
		}
		k := Sniff(in, complete)
		if k == Unknown && len(in) < PeekSize && complete {
			s, err := OpenReader("fuzz", bytes.NewReader(in), Options{})
			if err != nil {
				return // a compressed header that does not decompress
			}
			if s.Method == decompress.None && (s.Check() == nil) != (s.Kind != Unknown) {
				t.Fatalf("kind %v but Check %v", s.Kind, s.Check())
			}
		}
		if !complete || len(in) >= PeekSize || bytes.HasPrefix(in, []byte{0x1f, 0x8b}) || bytes.HasPrefix(in, []byte{0x28, 0xb5, 0x2f, 0xfd}) {
			return
		}
		// The whole input, gzipped: recognised as the plain one.
		s, err := OpenReader("fuzz.gz", bytes.NewReader(gz(in)), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if s.Kind != k || s.Method != decompress.Gzip || !s.Complete {
			t.Fatalf("gzipped: %v (complete %v), plain: %v", s.Kind, s.Complete, k)
		}
		if (s.Check() == nil) != (k != Unknown) {
			t.Fatalf("kind %v but Check %v", k, s.Check())
		}
	})
}
