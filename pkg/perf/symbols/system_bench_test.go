package symbols

import (
	"os"
	"path/filepath"
	"testing"
)

// systemObjects are objects of a system-wide capture on this project's
// machines (Debian 12), of the sizes whose tables cost most: libc read
// from its debug file, two large Go programs, a C library of many
// symbols, a C++ library with a large PLT, and two small ones.
var systemObjects = []string{
	"/usr/lib/x86_64-linux-gnu/libc.so.6",
	"/usr/local/go/pkg/tool/linux_amd64/compile",
	"/usr/local/go/bin/go",
	"/usr/lib/x86_64-linux-gnu/libpython3.11.so.1.0",
	"/usr/lib/x86_64-linux-gnu/libstdc++.so.6",
	"/usr/bin/bash",
	"/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2",
}

// BenchmarkLoadSystem loads, as a Resolver's background goroutine does
// (loadDSO on one core, build-id known), the tables of the system objects
// this machine has, and the kernel's kallsyms from the build-id cache
// (mapped, as readKallsyms reads it). Objects this machine lacks are
// skipped; "all" loads every table in turn, as a capture's preload would.
func BenchmarkLoadSystem(b *testing.B) {
	type obj struct{ path, id string }
	var objs []obj
	for _, p := range systemObjects {
		ef, err := openELF(p)
		if err != nil {
			continue
		}
		objs = append(objs, obj{p, ef.buildID()})
		ef.Close()
	}
	kallsyms, _ := filepath.Glob(filepath.Join(os.Getenv("HOME"), ".debug", "[[]kernel.kallsyms]", "*", "kallsyms"))
	if len(objs) == 0 && len(kallsyms) == 0 {
		b.Skip("none of the system objects nor a kallsyms copy in ~/.debug is here")
	}
	r := NewResolver(Options{})
	load := func(b *testing.B, o obj) {
		var miss []Missing
		if r.loadDSO(o.path, o.id, 1, &miss) == nil {
			b.Fatalf("%s: no table (%v)", o.path, miss)
		}
	}
	for _, o := range objs {
		b.Run(filepath.Base(o.path), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				load(b, o)
			}
		})
	}
	if len(kallsyms) > 0 {
		b.Run("kallsyms", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := readKallsyms(kallsyms[0], nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("all", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, o := range objs {
				load(b, o)
			}
			if len(kallsyms) > 0 {
				readKallsyms(kallsyms[0], nil)
			}
		}
	})
}
