package detect

import (
	"testing"
)

// FuzzDetect checks that Detect never panics, that Check's error is set
// exactly for Unknown, and that gzip is looked through: a gzipped input is
// detected as what it holds.
func FuzzDetect(f *testing.F) {
	f.Add([]byte("main;a;b 12\nmain;c 3\n"), true)
	f.Add([]byte("Attaching 1 probe...\n\n\n@[\n    f+1\n, comm]: 3\n"), true)
	f.Add([]byte("perf 1234 [000]  10.000001:     250000 cpu-clock:pppH: \n\tffffffff8100 do_syscall_64+0x71 ([kernel.kallsyms])\n\n"), true)
	f.Add([]byte("PERFILE2\x68\x00"), false)
	f.Add([]byte("\x48\xe2\xea\xeb\xff\xb4\x9f\x9e\xf5\x18\x0a\x04\x08\x01\x10\x02\x0a\x04\x08\x03\x10\x04"), false)
	f.Add([]byte("# flamekit v1 timed source=\"x\"\nmain;a 1003009 @696.885404\n"), true)
	f.Fuzz(func(t *testing.T, in []byte, complete bool) {
		if len(in) > PeekSize {
			in = in[:PeekSize]
		}
		k := Detect(in, complete)
		_, err := Check(in, complete, "fuzz")
		if (err != nil) != (k == Unknown) {
			t.Fatalf("Detect %v but Check error %v", k, err)
		}
		if isGzip(in) {
			return
		}
		if gk := Detect(gz(in), complete); gk != k {
			t.Fatalf("gzipped: %v, plain: %v", gk, k)
		}
	})
}
