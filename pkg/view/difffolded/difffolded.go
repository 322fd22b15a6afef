// Package difffolded compares two folded profiles, as difffolded.pl does,
// into the differential folded lines "stack before after" that flamegraph
// colours red (grew) and blue (shrank).
package difffolded

import (
	"fmt"
	"iter"
	"math"
	"strings"

	"flamekit/pkg/folded"
)

// Options are difffolded.pl's options.
type Options struct {
	// Normalize scales the first profile's counts to the second's total
	// (difffolded.pl -n): before := int(before * total2 / total1).
	Normalize bool
	// StripHex replaces every hex address 0x… in a stack with "0x..." so
	// that the same code at other addresses merges (difffolded.pl -s).
	StripHex bool
}

// Line is one output line: a stack and its counts in both profiles.
type Line struct {
	Stack         string
	Before, After float64
}

// Diff pairs the stacks of before and after: every stack of either profile,
// sorted bytewise, with 0 where a profile lacks it.
func Diff(before, after *folded.Profile, opt Options) ([]Line, error) {
	var pair folded.Profile // "before" counts in Before, "after" in Count
	add := func(p *folded.Profile, second bool) {
		for _, e := range p.Entries() {
			rec := folded.Record{Stack: []byte(e.Stack), Kind: folded.Diff}
			if opt.StripHex {
				rec.Stack = []byte(stripHex(e.Stack))
			}
			if second {
				rec.Count = e.Count
			} else {
				rec.Before = e.Count
			}
			pair.Add(&rec)
		}
	}
	add(before, false)
	add(after, true)
	t1, t2 := before.Total(), after.Total()
	normalize := opt.Normalize && t1 != t2
	if normalize && t1 == 0 {
		return nil, fmt.Errorf("cannot normalise (-n): the first profile has no samples")
	}
	entries := pair.Sorted()
	lines := make([]Line, len(entries))
	for i, e := range entries {
		lines[i] = Line{Stack: e.Stack, Before: e.Before, After: e.Count}
		if normalize {
			// As difffolded.pl: int(count1 * total2 / total1).
			lines[i].Before = math.Trunc(e.Before * t2 / t1)
		}
	}
	return lines, nil
}

// stripHex replaces each "0x" followed by hex digits with "0x...".
func stripHex(stack string) string {
	if !strings.Contains(stack, "0x") {
		return stack
	}
	var b strings.Builder
	for {
		i := strings.Index(stack, "0x")
		if i < 0 {
			b.WriteString(stack)
			return b.String()
		}
		j := i + 2
		for j < len(stack) && isHex(stack[j]) {
			j++
		}
		b.WriteString(stack[:i])
		if j > i+2 {
			b.WriteString("0x...")
		} else {
			b.WriteString("0x")
		}
		stack = stack[j:]
	}
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// Read sums the folded records recs (read by capture.Reader, which counts
// the malformed lines) into a profile. Differential lines count with their
// second ("after") count, and are counted in the int returned.
func Read(recs iter.Seq[*folded.Record]) (*folded.Profile, int) {
	var p folded.Profile
	diffs := 0
	for rec := range recs {
		if rec.Kind == folded.Diff {
			diffs++
			rec.Kind = folded.Classic
		}
		p.Add(rec)
	}
	return &p, diffs
}
