package svg

import "testing"

// TestPaletteName: --colors names match without regard to case; names
// flamegraph.pl does not know are refused (it drew every frame black).
func TestPaletteName(t *testing.T) {
	tests := []struct{ in, want string }{
		{"java", "java"}, {"Java", "java"}, {"JAVA", "java"}, {"hot", "hot"}, {"Mem", "mem"},
		{"IO", "io"}, {"Chain", "chain"}, {"oRaNgE", "orange"},
		{"", ""}, {"javascript", ""}, {"java ", ""}, {"rainbow", ""}, {"hotx", ""},
	}
	for _, tc := range tests {
		got, ok := PaletteName(tc.in)
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("PaletteName(%q) = %q, %v; want %q", tc.in, got, ok, tc.want)
		}
	}
	// Every known palette colours a frame; none of them black, which is
	// the colour of an unknown palette.
	for _, p := range Palettes {
		c := &Colorer{Palette: p}
		for _, name := range []string{"main", "java/lang/String:.equals_[j]", "do_syscall_64_[k]", "Perl_pp_entersub", "x.js:3"} {
			if c.Color(name) == black {
				t.Errorf("palette %s: %q is black", p, name)
			}
		}
	}
}
