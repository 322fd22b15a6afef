package stackfilter

import (
	"bufio"
	"bytes"
	"io"
	"testing"

	"flamekit/internal/testkit/testcapture"
	"flamekit/pkg/folded"
)

// benchInput is the burst capture's timed folded lines, repeated to about
// 10 MB.
func benchInput(b *testing.B) []byte {
	b.Helper()
	one := testcapture.Fold(b, "burst")
	return bytes.Repeat(one, 10<<20/len(one)+1)
}

// BenchmarkFilter measures Copy (read, filter, write) on real timed
// lines; MB/s is input bytes.
func BenchmarkFilter(b *testing.B) {
	in := benchInput(b)
	for _, bc := range []struct {
		name string
		opts Options
	}{
		{"none", Options{}},
		{"focus", Options{Focus: []string{"burst_spin"}}},
		{"ignore-idle", Options{Ignore: []string{"idle"}}},
		{"hide-merge", Options{Hide: []string{"^do_syscall_64$", "^entry_SYSCALL"}, Merge: []string{"^__x64_sys=syscall"}, CollapseRecursion: true}},
		{"all-cuts", Options{ShowFrom: []string{"^start_kernel$|^start_thread$"}, PruneFrom: []string{"^do_idle$"}, RootAt: []string{"."}}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			for b.Loop() {
				f, err := New(bc.opts)
				if err != nil {
					b.Fatal(err)
				}
				w := bufio.NewWriterSize(io.Discard, 256<<10)
				rd := folded.NewReader(bytes.NewReader(in), "bench")
				if _, err := f.Copy(w, rd); err != nil {
					b.Fatal(err)
				}
				w.Flush()
			}
		})
	}
}
