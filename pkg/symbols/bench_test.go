package symbols

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
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

func BenchmarkLoadKallsyms(b *testing.B) {
	data := kallsymsForBench(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseKallsyms("kallsyms", data); err != nil {
			b.Fatal(err)
		}
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

// BenchmarkCapture replays the lookups a real capture needs, from the
// file named by $FLAMEKIT_SYMBOLS_LOOKUPS (not committed: lines
// "KIND\tPATH\tBUILDID\tADDR" in hexadecimal, KIND K for the kernel, M for
// a module, D for an ELF object or the vdso, J for a perf map with the
// pid as PATH), with a new Resolver each time: the whole symbol cost of
// reading that capture, table loads included, as pkg/perfdata (which
// asks each distinct address once) pays it.
func BenchmarkCapture(b *testing.B) {
	path := os.Getenv("FLAMEKIT_SYMBOLS_LOOKUPS")
	if path == "" {
		b.Skip("set FLAMEKIT_SYMBOLS_LOOKUPS to a file of lookups")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	type lookup struct {
		kind     byte
		path, id string
		pid      int
		addr     uint64
	}
	var ls []lookup
	for n, l := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		f := strings.Split(l, "\t")
		if len(f) != 4 || len(f[0]) != 1 {
			b.Fatalf("%s:%d: bad line %q", path, n+1, l)
		}
		addr, err := strconv.ParseUint(f[3], 16, 64)
		if err != nil {
			b.Fatalf("%s:%d: %v", path, n+1, err)
		}
		pid, _ := strconv.Atoi(f[1])
		ls = append(ls, lookup{f[0][0], f[1], f[2], pid, addr})
	}
	b.ReportAllocs()
	for b.Loop() {
		r := NewResolver(Options{})
		found := 0
		for _, l := range ls {
			var ok bool
			switch l.kind {
			case 'K':
				_, ok = r.Kernel(l.id, l.addr)
			case 'M':
				_, ok = r.Module(l.id, l.path, l.addr)
			case 'D':
				_, ok = r.DSO(l.path, l.id, l.addr)
			case 'J':
				_, ok = r.PerfMap(l.pid, l.addr)
			}
			if ok {
				found++
			}
		}
		b.ReportMetric(float64(found), "found")
	}
	b.ReportMetric(float64(len(ls)), "lookups")
}
