package dwarfline

import (
	"testing"
)

// FuzzModule reads an ELF image (the seeds: the test binaries, whole,
// and cut or damaged) and looks up the addresses its sections and units
// name: a corrupt file never panics nor hangs, and every answer has the
// shape addr2line prints.
func FuzzModule(f *testing.F) {
	for _, name := range []string{"cwork", "cwork.stripped"} {
		data := readGz(f, name)
		f.Add(data)
		f.Add(data[:len(data)/2])
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m := &Module{path: "fuzz", image: data}
		m.opts.defaults()
		m.opts.MaxDebug = 64 << 20
		_ = m.Err()
		var pcs []uint64
		for _, s := range m.secs {
			pcs = append(pcs, s.start, s.start+(s.end-s.start)/2, s.end-1)
		}
		for _, u := range m.units {
			for _, r := range u.ranges {
				pcs = append(pcs, r[0], r[0]+(r[1]-r[0])/3, r[1]-1)
			}
		}
		if len(pcs) > 64 {
			pcs = pcs[:64]
		}
		for _, pc := range pcs {
			for _, fr := range m.Lookup(pc) {
				if fr.Func == "" || fr.Loc == "" {
					t.Fatalf("0x%x: empty frame %+v", pc, fr)
				}
			}
		}
		m.SymbolAddr("main")
	})
}
