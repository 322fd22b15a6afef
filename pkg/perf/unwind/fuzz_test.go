package unwind

import (
	"encoding/binary"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"flamekit/internal/testkit/golden"
)

// cfiSeeds are the FuzzCFI seeds: the sections of sampleTable, a CIE with
// every augmentation, and damaged copies.
func cfiSeeds(t testing.TB) map[string][2][]byte {
	tb := sampleTable(t, true)
	e := &ehBuilder{at: 0x2000}
	e.cie("zPLR", nil)
	off := e.fde(0x1000, 0x40, []byte{cfaAdvanceLoc | 1, cfaDefCFAOffset, 16, cfaRememberState, cfaValExpression, 6, 2, opBreg0 + 7, 0, cfaRestoreState})
	e.cie("zRS", nil)
	off2 := e.fde(0x1100, 0x40, []byte{cfaDefCFAExpression, 3, opBreg0 + 7, 0xa0, 1, cfaExpression, 16, 2, opBreg0 + 7, 0x28})
	hdr := e.hdr(0x3000, []uint64{0x1000, 0x1100}, []int{off, off2})
	cut := func(b []byte, n int) []byte { return b[:max(0, len(b)-n)] }
	return map[string][2][]byte{
		"sample":     {tb.eh, tb.hdrBytes},
		"augmented":  {e.b, hdr},
		"cut":        {cut(tb.eh, 7), cut(tb.hdrBytes, 3)},
		"nohdr":      {tb.eh, nil},
		"badversion": {append([]byte{12, 0, 0, 0, 0, 0, 0, 0, 9}, tb.eh[9:]...), nil},
	}
}

// FuzzCFI reads arbitrary bytes as .eh_frame, .eh_frame_hdr and
// .debug_frame and looks up rows: it must never panic.
func FuzzCFI(f *testing.F) {
	for _, s := range sortedSeeds(cfiSeeds(f)) {
		f.Add(s[0], s[1], uint64(0x1005))
	}
	f.Fuzz(func(t *testing.T, eh, hdr []byte, pc uint64) {
		for _, debug := range []bool{false, true} {
			tb := NewTable(Sections{EHFrame: eh, EHFrameAddr: 0x2000, EHFrameHdr: hdr, EHFrameHdrAddr: 0x3000, DebugFrame: eh}, Options{DebugFrame: debug})
			for _, a := range []uint64{pc, pc + 1, 0x1000, 0x1001, 0x1100, 0x1105} {
				r := tb.rowFor(a)
				if r == nil {
					t.Fatalf("no row for %#x", a)
				}
			}
		}
	})
}

// FuzzUnwind unwinds arbitrary stacks and registers with sampleTable: it
// must never panic nor return more frames than MaxDepth.
func FuzzUnwind(f *testing.F) {
	for _, s := range unwindSeeds() {
		f.Add(s.stack, s.ip, s.sp, s.bp)
	}
	tb := sampleTable(f, true)
	f.Fuzz(func(t *testing.T, stack []byte, ip, sp, bp uint64) {
		r := Regs{Valid: 1<<16 | 1<<7 | 1<<6}
		r.V[16], r.V[7], r.V[6] = ip, sp, bp
		u := Unwinder{MaxDepth: 64}
		pcs, stop := u.Unwind(&r, stack, testSpace{tb}, nil)
		if len(pcs) > 64 || stop == 0 {
			t.Fatalf("%d frames, stop %v", len(pcs), stop)
		}
	})
}

type unwindSeed struct {
	stack      []byte
	ip, sp, bp uint64
}

func unwindSeeds() map[string]unwindSeed {
	r, st := testStack(base + 0x1021)
	loop := make([]byte, 64)
	binary.LittleEndian.PutUint64(loop[40:], base+0x1111) // g returns into g
	return map[string]unwindSeed{
		"three":  {st, r.V[16], r.V[7], r.V[6]},
		"short":  {st[:50], r.V[16], r.V[7], r.V[6]},
		"loop":   {loop, base + 0x1110, sp0, 0},
		"nofde":  {st, base + 0x1500, sp0 + 64, sp0 + 64},
		"empty":  {nil, base + 0x1110, sp0, 0},
		"wrapsp": {st, base + 0x1110, ^uint64(0) - 20, 0},
	}
}

func sortedSeeds[T any](m map[string]T) []T {
	var out []T
	for _, k := range sortedKeys(m) {
		out = append(out, m[k])
	}
	return out
}

func sortedKeys[T any](m map[string]T) []string { return slices.Sorted(maps.Keys(m)) }

// TestFuzzSeeds checks that the committed seed corpora are there, and with
// -update writes them.
func TestFuzzSeeds(t *testing.T) {
	write := func(target, name string, vals ...any) {
		path := filepath.Join("testdata", "fuzz", target, name)
		s := "go test fuzz v1\n"
		for _, v := range vals {
			switch v := v.(type) {
			case []byte:
				s += fmt.Sprintf("[]byte(%s)\n", strconv.Quote(string(v)))
			case uint64:
				s += fmt.Sprintf("uint64(%d)\n", v)
			}
		}
		if golden.Updating() {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != s {
			t.Errorf("%s: missing or stale seed (go test -run TestFuzzSeeds -update writes it)", path)
		}
	}
	cfi := cfiSeeds(t)
	for _, k := range sortedKeys(cfi) {
		write("FuzzCFI", k, cfi[k][0], cfi[k][1], uint64(0x1005))
	}
	uw := unwindSeeds()
	for _, k := range sortedKeys(uw) {
		s := uw[k]
		write("FuzzUnwind", k, s.stack, s.ip, s.sp, s.bp)
	}
}
