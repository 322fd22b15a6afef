package folded

import (
	"bytes"
	"testing"
)

// TestCommonPrefix checks the word-at-a-time prefix and the comparison
// built on it against the bytes package, on pairs that differ at every
// position of a word and around its ends.
func TestCommonPrefix(t *testing.T) {
	words := []string{"", "a", "ab", "a;b", "a;b;c", "abcdefg", "abcdefgh", "abcdefghi", "abcdefgh;", "abcdefgi",
		"swapper;secondary_startup_64;cpu_idle", "swapper;secondary_startup_64;cpu_idle;x", "swapper;secondary_startup_64;cpu_idlf", "\xff", "\x00"}
	for _, a := range words {
		for _, b := range words {
			want := 0
			for want < min(len(a), len(b)) && a[want] == b[want] {
				want++
			}
			if got := commonPrefix([]byte(a), []byte(b)); got != want {
				t.Errorf("commonPrefix(%q, %q) = %d, want %d", a, b, got, want)
			}
			if got, want := compareAfter([]byte(a), []byte(b), want), bytes.Compare([]byte(a), []byte(b)); got != want {
				t.Errorf("compareAfter(%q, %q) = %d, want %d", a, b, got, want)
			}
		}
	}
}
