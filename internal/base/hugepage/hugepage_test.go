package hugepage

import (
	"slices"
	"testing"
	"unsafe"
)

func TestGrow(t *testing.T) {
	for _, tc := range []struct {
		len, cap, n int
		wantCap     int // at least
	}{
		{0, 0, 1, 1},
		{3, 4, 1, 4},           // room enough: the same slice
		{4, 4, 1, 8},           // doubles
		{4, 4, 100, 104},       // more than double when asked
		{0, 0, Min, Min},       // a huge-page-sized slice
		{Min, Min, 1, 2 * Min}, // grown into one
	} {
		s := make([]byte, tc.len, tc.cap)
		for i := range s {
			s[i] = byte(i)
		}
		g := Grow(s, tc.n)
		if len(g) != tc.len || cap(g) < tc.wantCap || cap(g)-len(g) < tc.n || !slices.Equal(g, s) {
			t.Errorf("Grow(len %d cap %d, %d): len %d cap %d, contents kept %v", tc.len, tc.cap, tc.n, len(g), cap(g), slices.Equal(g, s))
		}
		if tc.len+tc.n <= tc.cap && &g[:1][0] != &s[:1][0] {
			t.Errorf("Grow(len %d cap %d, %d) reallocated a slice with room", tc.len, tc.cap, tc.n)
		}
	}
}

func TestSlice(t *testing.T) {
	type pair [2]int64
	for _, n := range []int{0, 1, Min / 16, Min} {
		s := Slice[pair](n)
		if len(s) != 0 || cap(s) != n {
			t.Errorf("Slice(%d): len %d cap %d", n, len(s), cap(s))
		}
		if s = append(s, make([]pair, n)...); len(s) != n && n > 0 {
			t.Errorf("Slice(%d): append gave len %d", n, len(s))
		}
	}
}

func TestTable(t *testing.T) {
	type entry struct {
		addr uint64
		tag  uint32
		loc  uint32
	}
	for _, n := range []int{0, 1, 1000, size2M/16 - 1, size2M / 16, 3 * size2M / 16} {
		s := Table[entry](n)
		if len(s) != n || cap(s) != n {
			t.Fatalf("Table(%d): len %d cap %d", n, len(s), cap(s))
		}
		for i := range s {
			if s[i] != (entry{}) {
				t.Fatalf("Table(%d): entry %d not zero", n, i)
			}
			s[i] = entry{addr: uint64(i), loc: uint32(i)}
		}
		if n*16 >= size2M {
			if at := uintptr(unsafe.Pointer(&s[0])); at%size2M != 0 {
				t.Errorf("Table(%d) starts at %#x, not on a 2 MB boundary", n, at)
			}
		}
	}
}
