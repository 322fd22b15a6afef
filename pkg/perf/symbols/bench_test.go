package symbols

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// kallsymsForBench returns /proc/kallsyms when it is readable with
// addresses, else a generated file of the same size (122k entries).
func kallsymsForBench(b *testing.B) []byte {
	if data, err := os.ReadFile("/proc/kallsyms"); err == nil && !strings.HasPrefix(string(data), "0000000000000000") {
		return data
	}
	var sb strings.Builder
	for i := 0; i < 122000; i++ {
		fmt.Fprintf(&sb, "%016x %c sym_%d\n", 0xffffffff81000000+uint64(i)*0x40, "TtWDdb"[i%6], i)
	}
	return []byte(sb.String())
}

// BenchmarkLoadKallsyms reads kallsyms as the Resolver does (flat, the
// builder being the fallback) and, for comparison, with the builder,
// which replays perf's tree.
func BenchmarkLoadKallsyms(b *testing.B) {
	text := string(kallsymsForBench(b))
	for _, c := range []struct {
		name  string
		parse func(path, text string, m *mapping) (*Kernel, error)
	}{{"flat", func(path, text string, m *mapping) (*Kernel, error) {
		return parseKallsyms(path, text, m, kallsymsParts(len(text), runtime.GOMAXPROCS(0)))
	}}, {"builder", parseKallsymsTree}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.parse("kallsyms", text, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkLoadELF(b *testing.B) {
	fixture, _ := filepath.Abs("testdata/elf/fixture")
	for _, p := range []string{fixture, "/usr/lib/x86_64-linux-gnu/libc.so.6", "/usr/bin/node", "/usr/lib/jvm/java-17-openjdk-amd64/lib/server/libjvm.so"} {
		if _, err := os.Stat(p); err != nil {
			continue
		}
		b.Run(p[strings.LastIndexByte(p, '/')+1:], func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				r := NewResolver(Options{})
				if r.DSOTable(p, "") == nil {
					b.Fatal("no symbols")
				}
			}
		})
	}
}

// BenchmarkLoadTables loads the tables of the objects named in
// $FLAMEKIT_TABLES_BENCH (paths separated by ':', not committed: a large
// C++ program such as /usr/bin/node, or every object of a system-wide
// capture, as perf buildid-list -i perf.data lists them), each from a
// fresh Resolver, one after the other in every iteration.
func BenchmarkLoadTables(b *testing.B) {
	list := os.Getenv("FLAMEKIT_TABLES_BENCH")
	if list == "" {
		b.Skip("set FLAMEKIT_TABLES_BENCH to object paths separated by ':' (large objects of this machine, not committed)")
	}
	paths := strings.Split(list, ":")
	for _, p := range paths {
		// A mistyped path or a stripped object would be timed as
		// nothing.
		if NewResolver(Options{}).DSOTable(p, "") == nil {
			b.Fatalf("%s: no symbol table (missing, or no symbols); name objects that have one", p)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, p := range paths {
			NewResolver(Options{}).DSOTable(p, "")
		}
	}
}

// lookupAddrs returns n addresses spread over a table's range.
func lookupAddrs(t *Table, n int) []uint64 {
	lo := t.segStart[0]
	hi := t.segStart[len(t.segStart)-1]
	addrs := make([]uint64, n)
	for i := range addrs {
		addrs[i] = lo + (hi-lo)/uint64(n)*uint64(i)
	}
	return addrs
}

func benchLookup(b *testing.B, t *Table) {
	addrs := lookupAddrs(t, 4096)
	b.ReportAllocs()
	b.ResetTimer()
	i := 0
	for b.Loop() {
		t.Lookup(addrs[i&4095])
		i++
	}
}

func BenchmarkLookup(b *testing.B) {
	k, err := ParseKallsyms("kallsyms", kallsymsForBench(b))
	if err != nil {
		b.Fatal(err)
	}
	b.Run("kernel", func(b *testing.B) { benchLookup(b, k.Table) })
	r := NewResolver(Options{})
	if tb := r.DSOTable("/usr/lib/x86_64-linux-gnu/libc.so.6", ""); tb != nil {
		b.Run("libc", func(b *testing.B) { benchLookup(b, tb) })
	}
	b.Run("resolver.DSO", func(b *testing.B) {
		path, _ := filepath.Abs("testdata/elf/fixture")
		tb := r.DSOTable(path, "")
		addrs := lookupAddrs(tb, 4096)
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			r.DSO(path, "", addrs[i&4095])
			i++
		}
	})
}
