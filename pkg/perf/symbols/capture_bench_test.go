package symbols_test

import (
	"os"
	"testing"

	"flamekit/pkg/perf/perfdata"
	"flamekit/pkg/perf/symbols"
)

// lookup is one call a perf.data reader makes to its Symbolizer.
type lookup struct {
	kind     byte // 'K' kernel, 'M' module, 'D' ELF object or vdso, 'J' perf map
	path, id string
	pid      int
	addr     uint64
}

// recorder is a perfdata.Symbolizer that records the lookups of a reader.
type recorder struct {
	*symbols.Resolver
	lookups []lookup
}

func (r *recorder) Kernel(id string, addr uint64) (symbols.Symbol, bool) {
	r.lookups = append(r.lookups, lookup{kind: 'K', id: id, addr: addr})
	return r.Resolver.Kernel(id, addr)
}

func (r *recorder) Module(id, module string, addr uint64) (symbols.Symbol, bool) {
	r.lookups = append(r.lookups, lookup{kind: 'M', path: module, id: id, addr: addr})
	return r.Resolver.Module(id, module, addr)
}

func (r *recorder) DSO(path, id string, addr uint64) (symbols.Symbol, bool) {
	r.lookups = append(r.lookups, lookup{kind: 'D', path: path, id: id, addr: addr})
	return r.Resolver.DSO(path, id, addr)
}

func (r *recorder) PerfMap(pid int, addr, t uint64) (symbols.Symbol, bool) {
	r.lookups = append(r.lookups, lookup{kind: 'J', pid: pid, addr: addr})
	return r.Resolver.PerfMap(pid, addr, t)
}

var _ perfdata.Symbolizer = (*recorder)(nil)

// captureLookups reads the perf.data file named by
// $FLAMEKIT_PERFDATA_BENCH once and returns the lookups its reader makes
// (each distinct address of each object once: the reader caches them).
func captureLookups(b *testing.B) []lookup {
	path := os.Getenv("FLAMEKIT_PERFDATA_BENCH")
	if path == "" {
		b.Skip("set FLAMEKIT_PERFDATA_BENCH to a perf.data file (a large system-wide capture, not committed)")
	}
	rec := &recorder{Resolver: symbols.NewResolver(symbols.Options{})}
	r, err := perfdata.Open(path, perfdata.Options{Symbolizer: rec})
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	for r.Next() {
		r.Sample() // its frames are named when asked for
	}
	if err := r.Err(); err != nil {
		b.Fatal(err)
	}
	return rec.lookups
}

// BenchmarkCapture is the symbol cost of reading a real capture: the
// lookups its reader makes, replayed on a new Resolver each time, table
// loads included; "preload" first preloads every object the lookups
// name, in the order they are first asked for, as a reader would from
// the capture's build-id table, so that tables load on a second core
// while the lookups go on. (Figures are noisy on a shared machine.)
func BenchmarkCapture(b *testing.B) {
	ls := captureLookups(b)
	run := func(b *testing.B, preload bool) {
		b.ReportAllocs()
		for b.Loop() {
			r := symbols.NewResolver(symbols.Options{})
			if preload {
				for _, l := range ls {
					switch l.kind {
					case 'K', 'M':
						r.PreloadKernel(l.id)
					case 'D':
						r.Preload(l.path, l.id)
					}
				}
			}
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
					_, ok = r.PerfMap(l.pid, l.addr, ^uint64(0))
				}
				if ok {
					found++
				}
			}
			b.ReportMetric(float64(found), "found")
		}
		b.ReportMetric(float64(len(ls)), "lookups")
	}
	b.Run("lookups", func(b *testing.B) { run(b, false) })
	b.Run("preload", func(b *testing.B) { run(b, true) })
}
