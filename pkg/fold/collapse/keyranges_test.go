package collapse

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
)

// testKeys interns keys given as texts (a root, then pieces) in p.
func testKeys(p *pieceTable, texts [][]string) [][]uint32 {
	keys := make([][]uint32, len(texts))
	for i, t := range texts {
		for _, s := range t {
			keys[i] = append(keys[i], p.intern([]byte(s)))
		}
	}
	return keys
}

// treeKeys returns every key of one of roots and up to depth of pieces.
func treeKeys(roots, pieces []string, depth int) [][]string {
	var out [][]string
	var gen func(key []string)
	gen = func(key []string) {
		out = append(out, slices.Clone(key))
		if len(key) > depth {
			return
		}
		for _, s := range pieces {
			gen(append(key, s))
		}
	}
	for _, r := range roots {
		gen([]string{r})
	}
	return out
}

// TestRangeOf: a key's range is the number of splitters whose text is
// not after its own, with 1 to 4 ranges and with 16 (a deeper search,
// where what a key shares with the splitters it was compared with lets
// comparisons start late), with splitters of one text (empty ranges),
// keys of a splitter's text, and pieces that hold ';' (texts that keys of
// other numbers have).
func TestRangeOf(t *testing.T) {
	roots := []string{"a", "a;b", "ab", ""}
	pieces := []string{";b", ";b;c", ";c", ";bc", ";b!"}
	all := treeKeys(roots, pieces, 3)
	p := newPieceTable()
	keys := testKeys(p, all)
	p.rank()
	text := func(key []uint32) string { return string(p.appendText(nil, key)) }
	sorted := slices.Clone(keys)
	slices.SortStableFunc(sorted, func(a, b []uint32) int { return strings.Compare(text(a), text(b)) })
	// pick returns the splitters at the given places of sorted.
	pick := func(at ...int) [][]uint32 {
		var s [][]uint32
		for _, i := range at {
			s = append(s, sorted[i])
		}
		return s
	}
	n := len(sorted)
	tests := []struct {
		name  string
		split [][]uint32
	}{
		{"1 range", nil},
		{"2 ranges", pick(n / 2)},
		{"3 ranges", pick(n/3, 2*n/3)},
		{"4 ranges", pick(1, n/2, n-1)},
		{"empty ranges", pick(n/2, n/2, n/2)},
		{"first and last", pick(0, n-1)},
		{"16 ranges", pick(n/16, 2*n/16, 3*n/16, 4*n/16, 5*n/16, 6*n/16, 7*n/16, 8*n/16, 9*n/16, 10*n/16, 11*n/16, 12*n/16, 13*n/16, 14*n/16, 15*n/16)},
		{"16 ranges, close", pick(n/8, n/8+1, n/8+2, n/8+3, n/8+5, n/8+8, n/8+13, n/8+21, n/8+34, n/8+55, n/8+89, n/8+144, n/8+233, n/8+377, n/8+500)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newSplitters(tc.split)
			for _, key := range keys {
				k := text(key)
				want := sort.Search(len(tc.split), func(j int) bool { return k < text(tc.split[j]) })
				if got := p.rangeOf(s, key); got != want {
					t.Fatalf("rangeOf(%q) = %d, want %d", k, got, want)
				}
			}
		})
	}
}

// TestSortKeys: keys sorted by sortKeys are in the order of their texts,
// among pieces that are simple (ranked) and pieces and roots that hold
// ';' (sorted by compareFrom from there), with keys that are the start of
// others and keys of one text.
func TestSortKeys(t *testing.T) {
	tests := []struct {
		name          string
		roots, pieces []string
	}{
		{"simple", []string{"a", "ab", "b"}, []string{";f", ";f.isra", ";f!", ";g", ";fa"}},
		{"not simple", []string{"a", "a;f"}, []string{";f", ";f;g", ";g", ";fg", ";f;"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := newPieceTable()
			keys := testKeys(p, treeKeys(tc.roots, tc.pieces, 3))
			p.rank()
			var arena []uint32
			refs := make([]sortRef, len(keys))
			for i, k := range keys {
				refs[i] = sortRef{uint32(len(arena)), uint32(len(k)), 0}
				arena = append(arena, k...)
			}
			// From an order other than the one they were made in.
			slices.Reverse(refs[len(refs)/3:])
			p.sortKeys(refs, arena, make([]uint32, len(refs)))
			texts := make([]string, len(refs))
			for i, r := range refs {
				texts[i] = string(p.appendText(nil, r.ids(arena)))
			}
			if !slices.IsSorted(texts) {
				for i := 1; i < len(texts); i++ {
					if texts[i-1] > texts[i] {
						t.Fatalf("%q before %q", texts[i-1], texts[i])
					}
				}
			}
		})
	}
}

// TestKeyRanges: the classic lines of keys cut into ranges are those of
// the keys' texts, sorted, the sums of one text added, whether written
// on every core (writeTo) or read as one sorted list among others
// (writeLists' merge): with 1 to 4 ranges asked, one key, keys that all
// differ only by their last piece, and keys of one text (which must fall
// in one range). Each range's texts all come before the next range's.
func TestKeyRanges(t *testing.T) {
	var sameEnd [][]string
	for i := range 300 {
		sameEnd = append(sameEnd, []string{"java", ";main", ";run", ";loop", fmt.Sprintf(";f%d", i)})
	}
	var oneText [][]string // 3 keys of each text
	for i := range 200 {
		f := fmt.Sprintf("f%d", i%50)
		oneText = append(oneText, []string{"a", ";b;" + f}, []string{"a", ";b", ";" + f}, []string{"a;b", ";" + f})
	}
	tree := treeKeys([]string{"a", "a;b", "b", ""}, []string{";b", ";b;c", ";c", ";bc"}, 3)
	tests := []struct {
		name string
		keys [][]string
	}{
		{"one key", [][]string{{"a", ";b"}}},
		{"same but the last piece", sameEnd},
		{"one text", oneText},
		{"tree", tree},
	}
	for _, tc := range tests {
		want := map[string]int64{}
		var texts []string
		for i, key := range tc.keys {
			text := strings.Join(key, "")
			if _, ok := want[text]; !ok {
				texts = append(texts, text)
			}
			want[text] += int64(i + 1)
		}
		slices.Sort(texts)
		lines := func(extra int64) string {
			var b strings.Builder
			for i, text := range texts {
				if i == 0 {
					fmt.Fprintf(&b, "%s %d\n", text, want[text]+extra)
				} else {
					fmt.Fprintf(&b, "%s %d\n", text, want[text])
				}
			}
			return b.String()
		}
		for n := 1; n <= 4; n++ {
			t.Run(fmt.Sprintf("%s/%d", tc.name, n), func(t *testing.T) {
				kr := testRanges(tc.keys, n)
				if kr.n > n {
					t.Errorf("%d ranges, want at most %d", kr.n, n)
				}
				last := "" // the greatest text of the ranges before
				var s sortScratch
				for r := range kr.n {
					l := kr.sorted(r, &s)
					if len(l.refs) == 0 {
						continue
					}
					first := string(kr.p.appendText(nil, l.refs[0].ids(l.arena)))
					if last != "" && first <= last {
						t.Errorf("range %d of %d starts with %q, not after %q", r, kr.n, first, last)
					}
					last = string(kr.p.appendText(nil, l.refs[len(l.refs)-1].ids(l.arena)))
				}

				var out strings.Builder
				if err := testRanges(tc.keys, n).writeTo(&out, 1); err != nil {
					t.Fatal(err)
				}
				if got := out.String(); got != lines(0) {
					t.Errorf("written on every core:\n%s\nwant:\n%s", got, lines(0))
				}

				// Merged with the sums of a text of the keys, summed by text.
				a := newAggregator()
				a.add([]byte(texts[0]), hashStack([]byte(texts[0])), 1000)
				a.sort()
				out.Reset()
				if err := writeLists(&out, []sumList{testRanges(tc.keys, n), &aggList{a: a}}, 1); err != nil {
					t.Fatal(err)
				}
				if got := out.String(); got != lines(1000) {
					t.Errorf("merged:\n%s\nwant:\n%s", got, lines(1000))
				}
			})
		}
	}
}

// testRanges returns the keys given as texts (a root, then pieces), the
// sum of the i-th i+1, cut into up to n ranges.
func testRanges(texts [][]string, n int) *keyRanges {
	p := newPieceTable()
	k := newKeySums(p, false)
	for i, key := range testKeys(p, texts) {
		k.add(key, hashKey(key), int64(i+1))
	}
	p.rank()
	return k.ranges(n)
}

// hashKey returns the hash of key, as the workers make it (keyHash).
func hashKey(key []uint32) uint64 {
	h := keySeed
	for _, id := range key {
		h = keyHash(h, id)
	}
	return h
}

// TestKeyRangesWriteError: a write error ends writeTo, which returns it,
// with ranges still being made.
func TestKeyRangesWriteError(t *testing.T) {
	var keys [][]string
	for i := range 20000 {
		keys = append(keys, []string{"r", fmt.Sprintf(";f%d", i%100), fmt.Sprintf(";g%d", i)})
	}
	kr := testRanges(keys, 16)
	if kr.n < 8 {
		t.Fatalf("%d ranges, want 16", kr.n)
	}
	if err := kr.writeTo(&errWriter{ok: 1}, 1); !errors.Is(err, errWrite) {
		t.Errorf("writeTo = %v, want %v", err, errWrite)
	}
}

// errWriter fails its writes after ok of them.
type errWriter struct{ ok int }

var errWrite = errors.New("write failed")

func (w *errWriter) Write(b []byte) (int, error) {
	if w.ok == 0 {
		return 0, errWrite
	}
	w.ok--
	return len(b), nil
}
