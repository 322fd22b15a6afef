package folded

import (
	"bytes"
	"fmt"
	"io"
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
