package flamegraph

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"flamekit/pkg/folded"
)

// TestLayoutOrder: layoutOrder turns bytewise-sorted stacks into the
// layout's order (CompareStacks), on random stacks whose frames are often
// prefixes of each other followed by bytes below and above ';'.
func TestLayoutOrder(t *testing.T) {
	frames := []string{"f", "f.part", "f2", "f;g", "f-x", "g", "f g", "", "a", "f:1", "f~"}
	rng := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 2000; round++ {
		seen := map[string]bool{}
		var stacks []string
		for range 1 + rng.IntN(30) {
			var parts []string
			for range 1 + rng.IntN(4) {
				parts = append(parts, frames[rng.IntN(len(frames))])
			}
			s := strings.Join(parts, ";")
			if strings.HasSuffix(s, ";") || seen[s] {
				continue
			}
			seen[s] = true
			stacks = append(stacks, s)
		}
		var p folded.Profile
		slices.Sort(stacks)
		for _, s := range stacks {
			p.Add(&folded.Record{Stack: []byte(s), Count: 1, Kind: folded.Classic})
		}
		var got []string
		if !layoutOrder(p.All(), func(stack []byte, _ *folded.Entry) { got = append(got, string(stack)) }) {
			t.Fatal("layoutOrder refused stacks without trailing ';'")
		}
		want := slices.Clone(stacks)
		slices.SortFunc(want, CompareStacks)
		if !slices.Equal(got, want) {
			t.Fatalf("layoutOrder gives\n%q\nwant\n%q", got, want)
		}
	}
}
