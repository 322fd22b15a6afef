package symbols

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// chooseAlike reports whether choose_best_symbol, by name, keeps the
// first of a and b whichever comes first: what ctorVariants claims of
// its pairs, checked here against Demangle itself.
func chooseAlike(a, b string) bool {
	da, db := Demangle(a), Demangle(b)
	return chooseBestByName(da, db) && chooseBestByName(db, da)
}

// ctorVariants recognises the variants of one constructor or destructor
// only where the variant digit is one, and each pair it accepts is one
// Demangle prints alike; the pairs it must refuse are ones Demangle
// tells apart, so that a looser test fails here.
func TestCtorVariants(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"_ZN3FooC1Ev", "_ZN3FooC2Ev", true},
		{"_ZN3FooD0Ev", "_ZN3FooD1Ev", true},
		{"_ZN3FooD2Ev", "_ZN3FooD1Ev", true},
		{"_ZNK3FooC1Ev", "_ZNK3FooC2Ev", true},
		{"_ZN3Foo3BarC1ERKS0_", "_ZN3Foo3BarC2ERKS0_", true},
		{"_ZN3FooC1B5cxx11Ev", "_ZN3FooC2B5cxx11Ev", true},
		{"_ZN3FooC1IiEEv", "_ZN3FooC2IiEEv", true},
		{"_ZN2aa1bC1Ev.cold", "_ZN2aa1bC2Ev.cold", true},
		{"_ZN4node12_GLOBAL__N_14PipeC2Ev", "_ZN4node12_GLOBAL__N_14PipeC1Ev", true},
		// The digit is a source-name's length, not a variant: the
		// second does not demangle.
		{"_ZN4ABCC1xEv", "_ZN4ABCC2xEv", false},
		{"_ZN1C1C1Ev", "_ZN1C1C2Ev", false},
		// Inside an identifier.
		{"_ZN5ABC1D3FooEv", "_ZN5ABC2D3FooEv", false},
		// Variants the demangler refuses, or not a variant at all.
		{"_ZN1aD1Ev", "_ZN1aD3Ev", false},
		{"_ZN1aC1Ev", "_ZN1aC0Ev", false},
		{"_ZN3FooC1Ev", "_ZN3FooC1Ex", false},
		{"_ZN3FooC1Ev", "_ZN3FooD1Ev", false},
		{"_ZN3FooC1Ev", "_ZN3BarC1Ev", false},
		{"_ZN3FooC1Ev", "_ZN3FooC1Evv", false},
		{"_ZN3Foo1aEv", "_ZN3Foo1bEv", false},
		{"_ZNSt3FooC1Ev", "_ZNSt3FooC2Ev", false}, // St: not read here
		{"_Z3FooC1Ev", "_Z3FooC2Ev", false},
	}
	for _, tc := range tests {
		if got := ctorVariants(tc.a, tc.b); got != tc.want {
			t.Errorf("ctorVariants(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
		if tc.want && !chooseAlike(tc.a, tc.b) {
			t.Errorf("%q and %q: Demangle tells them apart (%q, %q)", tc.a, tc.b, Demangle(tc.a), Demangle(tc.b))
		}
	}
	// Refusals that matter: Demangle tells these apart.
	for _, p := range [][2]string{{"_ZN4ABCC1xEv", "_ZN4ABCC2xEv"}, {"_ZN1aD1Ev", "_ZN1aD3Ev"}, {"_ZN1aC1Ev", "_ZN1aC0Ev"}} {
		if chooseAlike(p[0], p[1]) {
			t.Errorf("%q and %q: meant as a pair Demangle tells apart", p[0], p[1])
		}
	}
}

// Over random names of nested components whose identifiers hold C, D and
// digits, and every change of one digit, whatever ctorVariants accepts
// Demangle prints alike (as choose_best_symbol sees it), and it accepts
// every change of a variant digit of a plain name.
func TestCtorVariantsRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const alphabet = "CDEIKSv_abx0123456789"
	accepted := 0
	for round := 0; round < 5000; round++ {
		var sb strings.Builder
		sb.WriteString("_ZN")
		if rng.IntN(4) == 0 {
			sb.WriteByte('K')
		}
		plain := true
		for range 1 + rng.IntN(3) {
			n := 1 + rng.IntN(5)
			if rng.IntN(10) == 0 {
				n += 10 // a length of two digits
			}
			sb.WriteString(strings.Repeat("0", rng.IntN(2))) // a leading zero
			sb.WriteString(strconv.Itoa(n))
			for k := range n {
				c := alphabet[rng.IntN(len(alphabet))]
				if k == 0 && isDigitByte(c) {
					c = 'x' // an identifier starts with no digit
				}
				sb.WriteByte(c)
			}
		}
		if rng.IntN(8) == 0 {
			// Something that is no source-name.
			sb.WriteString("St")
			plain = false
		}
		variant := -1
		switch rng.IntN(3) {
		case 0:
			variant = sb.Len() + 1
			sb.WriteString("C1")
		case 1:
			variant = sb.Len() + 1
			sb.WriteString("D2")
		}
		tails := []string{"Ev", "E", "ERKS_", "B5cxx11Ev", "IiEEv", "Ev.cold", "1xEv", ""}
		sb.WriteString(tails[rng.IntN(len(tails))])
		a := []byte(sb.String())
		for i, c := range a {
			if !isDigitByte(c) {
				continue
			}
			for d := byte('0'); d <= '9'; d++ {
				b := append([]byte(nil), a...)
				b[i] = d
				ok := ctorVariants(string(a), string(b))
				if ok {
					accepted++
					if !chooseAlike(string(a), string(b)) {
						t.Fatalf("ctorVariants(%q, %q), but Demangle gives %q and %q", a, b, Demangle(string(a)), Demangle(string(b)))
					}
				}
				want := false
				if plain && i == variant {
					variants := "12"
					if a[i-1] == 'D' {
						variants = "012"
					}
					want = strings.IndexByte(variants, a[i]) >= 0 && strings.IndexByte(variants, d) >= 0
				}
				if want && !ok {
					t.Fatalf("ctorVariants(%q, %q) = false", a, b)
				}
			}
		}
	}
	if accepted == 0 {
		t.Fatal("no pair accepted")
	}
}
