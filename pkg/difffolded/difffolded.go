// Package difffolded compares two folded profiles, as difffolded.pl does,
// into the differential folded lines "stack before after" that flamegraph
// colours red (grew) and blue (shrank).
package difffolded

import (
	"fmt"
	"io"
	"math"
	"slices"
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
	index := make(map[string]int, before.Len()+after.Len())
	var lines []Line
	add := func(p *folded.Profile, second bool) {
		for _, e := range p.Entries() {
			stack := e.Stack
			if opt.StripHex {
				stack = StripHex(stack)
			}
			i, ok := index[stack]
			if !ok {
				i = len(lines)
				index[stack] = i
				lines = append(lines, Line{Stack: stack})
			}
			if second {
				lines[i].After += e.Count
			} else {
				lines[i].Before += e.Count
			}
		}
	}
	add(before, false)
	add(after, true)
	if opt.Normalize {
		t1, t2 := before.Total(), after.Total()
		if t1 != t2 {
			if t1 == 0 {
				return nil, fmt.Errorf("cannot normalise (-n): the first profile has no samples")
			}
			for i := range lines {
				lines[i].Before = math.Trunc(lines[i].Before * t2 / t1)
			}
		}
	}
	slices.SortFunc(lines, func(a, b Line) int { return strings.Compare(a.Stack, b.Stack) })
	return lines, nil
}

// StripHex replaces each "0x" followed by hex digits with "0x...".
func StripHex(stack string) string {
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

// Read reads one input (classic, timed or gzipped; "-" for standard input)
// into a profile. Malformed and blank lines are skipped and returned in
// Skips; differential lines count with their second ("after") count.
func Read(name string, stdin io.Reader) (*folded.Profile, folded.Skips, int, error) {
	fs := folded.NewFiles([]string{name}, true)
	fs.Stdin = stdin
	var p folded.Profile
	diffs := 0
	for fs.Next() {
		rec := fs.Record()
		if rec.Kind == folded.Diff {
			diffs++
			rec.Kind = folded.Classic
		}
		p.Add(rec)
	}
	return &p, fs.Skips(), diffs, fs.Err()
}
