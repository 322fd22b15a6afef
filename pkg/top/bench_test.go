package top

import (
	"bytes"
	"io"
	"path/filepath"
	"regexp"
	"testing"

	"flamekit/pkg/folded"
	"flamekit/pkg/perfscript"
)

// BenchmarkTop measures reading real timed lines (the burst capture,
// repeated to about 10 MB) into a Counter and ranking them; MB/s is
// input bytes.
func BenchmarkTop(b *testing.B) {
	path := filepath.Join(perfDir, "burst.txt.gz")
	var one bytes.Buffer
	col := perfscript.Collapser{Workers: 1}
	if _, err := col.Run(&one, []perfscript.Input{{Name: path, Open: func() (io.ReadCloser, error) { return folded.Open(path) }}}); err != nil {
		b.Fatal(err)
	}
	in := bytes.Repeat(one.Bytes(), 10<<20/one.Len()+1)
	for _, by := range []By{ByFunction, ByModule, ByComm} {
		b.Run(by.String(), func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			for b.Loop() {
				var c Counter
				rd := folded.NewReader(bytes.NewReader(in), "bench")
				for rd.Next() {
					c.Add(rd.Record())
				}
				if err := WriteText(io.Discard, c.Table(by, false), 10); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("peek", func(b *testing.B) {
		var c Counter
		rd := folded.NewReader(bytes.NewReader(one.Bytes()), "bench")
		for rd.Next() {
			c.Add(rd.Record())
		}
		re := regexp.MustCompile(`^do_syscall_64$`)
		b.ReportAllocs()
		for b.Loop() {
			c.Peek(ByFunction, re)
		}
	})
}
