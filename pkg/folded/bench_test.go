package folded

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"testing"
)

// benchInput builds n timed lines over 500 distinct stacks of realistic
// depth, about 150 bytes a line.
func benchInput(n int) []byte {
	var b bytes.Buffer
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "java;start_thread;thread_native_entry;JavaThread::run;Interpreter;com/example/Service:::handle;com/example/Work:::step%d 10309278 @%d.%06d\n",
			i%500, 400+i/97, (i%97)*10309)
	}
	return b.Bytes()
}

func BenchmarkReaderTimed(b *testing.B) {
	data := benchInput(100000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		rd := NewReader(bytes.NewReader(data), "bench")
		for rd.Next() {
		}
		if rd.Err() != nil {
			b.Fatal(rd.Err())
		}
	}
}

func BenchmarkAggregate(b *testing.B) {
	data := benchInput(100000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		rd := NewReader(bytes.NewReader(data), "bench")
		var p Profile
		for rd.Next() {
			p.Add(rd.Record())
		}
		p.WriteTo(io.Discard)
	}
}

func BenchmarkWriter(b *testing.B) {
	rec := Record{Stack: []byte("java;start_thread;thread_native_entry;JavaThread::run;Interpreter;com/example/Work:::step"), Count: 10309278, Time: 413417927000, Kind: Timed}
	w := NewWriter(io.Discard)
	b.ReportAllocs()
	for b.Loop() {
		w.Write(&rec)
	}
	w.Flush()
}

// BenchmarkFilesPlain reads an uncompressed file through Files, as the
// commands do.
func BenchmarkFilesPlain(b *testing.B) {
	data := benchInput(100000)
	path := b.TempDir() + "/in.folded"
	if err := os.WriteFile(path, data, 0o644); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		fs := NewFiles([]string{path}, true)
		for fs.Next() {
		}
		if fs.Err() != nil {
			b.Fatal(fs.Err())
		}
	}
}
