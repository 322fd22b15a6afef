package flamegraph

import (
	"fmt"
	"slices"
	"testing"

	"flamekit/pkg/folded"
)

// TestChainRewrite checks the --colors chain rewrite against what
// flamegraph.pl (commit 41fee1f) draws for the same stacks: one "--"
// frame for a stack whose waker part is empty (bcc offwaketime -f prints
// "target;--; N" when it saw no waker), an empty frame for a stack with a
// trailing ';', and waker frames marked _[w].
func TestChainRewrite(t *testing.T) {
	tests := []struct {
		in      string
		reverse bool
		want    string // after trimStack, as the layout reads it
	}{
		{in: "a;--;", want: "a;--"},
		{in: "a;--;;", want: "a;--;_[w];_[w]"}, // Perl: split keeps the ";" part
		{in: "a;b;", want: "a;b;;--"},
		{in: "a;b", want: "a;b;--"},
		{in: "", want: ";--"},
		{in: "c;--;w1;w2", want: "c;--;w1_[w];w2_[w]"},
		{in: "t;--;k1;--;k2", want: "t;--;k1_[w];--;k2_[w]"},
		{in: "a;--;--;", want: "a;--;--_[w];_[w]"},
		{in: "w2;w1;--;c", reverse: true, want: "c;--;w1_[w];w2_[w]"},
	}
	for _, tt := range tests {
		got := folded.TrimStack(Rewrite{Chain: true, Reverse: tt.reverse}.Apply(tt.in))
		if got != tt.want {
			t.Errorf("Apply(%q, reverse %v) = %q, want %q", tt.in, tt.reverse, got, tt.want)
		}
	}
}

// TestChainSortsBeforeRewrite checks that stacks are ordered as
// flamegraph.pl orders them, by the stack before the chain rewrite: "_[w]"
// sorts after the letters 'A'-'Z' that ';' sorts before, so sorting the
// rewritten stacks would swap runtime.gcDrain and
// runtime.gcDrainMarkWorkerIdle (as it did on the real offwaketime
// capture).
func TestChainSortsBeforeRewrite(t *testing.T) {
	entries := []folded.Entry{
		{Stack: "t;--;wM", Count: 2},
		{Stack: "t;--;w", Count: 1},
	}
	l := LayoutEntries(entries, Rewrite{Chain: true}, 0, false)
	var got []string
	for _, n := range l.Nodes {
		if n.Depth == 3 {
			got = append(got, fmt.Sprintf("%s@%v", n.Name, n.Start))
		}
	}
	want := []string{"w_[w]@0", "wM_[w]@1"}
	if !slices.Equal(got, want) {
		t.Errorf("depth-3 frames %v, want %v", got, want)
	}
}
