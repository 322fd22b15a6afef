package perfdata_test

import (
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"flamekit/pkg/perf/perfdata"
	"flamekit/pkg/perf/sample"
)

// gunzip writes a gzipped testdata capture to a temporary file.
func gunzip(name string) (string, func()) {
	f, err := os.Open(filepath.Join("testdata", name+".data.gz"))
	if err != nil {
		panic(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		panic(err)
	}
	dir, err := os.MkdirTemp("", "perfdata-example")
	if err != nil {
		panic(err)
	}
	path := filepath.Join(dir, name+".data")
	out, err := os.Create(path)
	if err != nil {
		panic(err)
	}
	if _, err := io.Copy(out, zr); err != nil {
		panic(err)
	}
	out.Close()
	return path, func() { os.RemoveAll(dir) }
}

// Read the samples of a capture and print the first one as perf script
// does. Without a Symbolizer every symbol is [unknown]; pass
// symbols.NewResolver(symbols.Options{}) to resolve them as perf does.
func Example() {
	path, cleanup := gunzip("cpp")
	defer cleanup()

	r, err := perfdata.Open(path, perfdata.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer r.Close()
	n := 0
	for r.Next() {
		if n == 0 {
			fmt.Print(string(sample.AppendScript(nil, r.Sample())))
		}
		n++
	}
	if err := r.Err(); err != nil {
		fmt.Println(err)
	}
	c := r.Capture()
	fmt.Println(n, "samples of", c.Events, "on", c.Host, "from", c.First, "to", c.Last)
	// Output:
	// templates 24265 800.786093: 1003009 cpu-clock:ppp:
	// 	ffffffff8225f2d9 [unknown] ([kernel.kallsyms])
	// 	ffffffff8225f201 [unknown] ([kernel.kallsyms])
	// 	ffffffff8225f7a6 [unknown] ([kernel.kallsyms])
	// 	ffffffff81000c82 [unknown] ([kernel.kallsyms])
	// 	7085 [unknown] (/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2)
	// 	80c5 [unknown] (/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2)
	// 	7fb4fda108a8 [unknown] ([unknown])
	// 	0 [unknown] ([unknown])
	//
	// 896 samples of [cpu-clock:ppp] on vm from 800.786093 to 801.822198
}

// Open says when a file needs perf script: here a capture perf record
// wrote to a pipe.
func ExampleUnsupportedError() {
	path, cleanup := gunzip("pipe")
	defer cleanup()

	_, err := perfdata.Open(path, perfdata.Options{})
	if ue, ok := err.(*perfdata.UnsupportedError); ok {
		fmt.Println(ue.Reason)
	}
	// Output: pipe-mode perf.data (perf record -o -)
}
