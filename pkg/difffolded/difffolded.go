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

	"flamekit/internal/cli"
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

// Command is the difffolded command line.
type Command struct {
	Normalize bool            `short:"n" help:"Normalise the first profile's counts to the second profile's total."`
	StripHex  bool            `short:"s" name:"strip-hex" help:"Strip hex addresses (0x...) so that the same code at other addresses merges."`
	Version   cli.VersionFlag `help:"Print the version and exit."`
	Before    string          `arg:"" help:"The first (baseline) profile: folded or timed folded, gzipped or not; - for standard input."`
	After     string          `arg:"" help:"The second profile, compared against the first."`
}

// Description is difffolded's --help text.
const Description = `Compare two folded profiles into differential folded stacks for a red/blue
differential flame graph, like difffolded.pl.

Every stack of either profile is written as "stack count1 count2", sorted
bytewise; a stack missing from a profile gets 0 there. flamegraph draws the
widths of the second profile, red where a frame grew and blue where it shrank
(--negate swaps them).

Examples:
  difffolded before.folded after.folded | flamegraph > diff.svg
  difffolded -n before.folded.gz after.folded.gz | flamegraph > diff.svg
  timeslice --at 30s±5 run.folded > quiet.folded
  timeslice --at 70s±2.5 run.folded | difffolded -ns quiet.folded - | flamegraph > spike.svg
  difffolded after.folded before.folded | flamegraph --negate > before.svg`

// Run compares the two inputs and writes the differential lines.
func (c *Command) Run(env *cli.Env) error {
	if c.Before == "-" && c.After == "-" {
		return cli.Usagef("only one of the profiles can be standard input (-)")
	}
	var profiles [2]*folded.Profile
	for i, name := range []string{c.Before, c.After} {
		p, skips, diffs, err := Read(name, env.Stdin)
		if err != nil {
			return err
		}
		if skips.Count > 0 {
			env.Warnf("%s", skips)
		}
		if diffs > 0 {
			env.Warnf("%s: %d lines are already differential (\"stack count1 count2\"); used their second count", folded.DisplayName(name), diffs)
		}
		profiles[i] = p
	}
	lines, err := Diff(profiles[0], profiles[1], Options{Normalize: c.Normalize, StripHex: c.StripHex})
	if err != nil {
		return err
	}
	var line []byte
	for _, l := range lines {
		rec := folded.Record{Stack: []byte(l.Stack), Before: l.Before, Count: l.After, Kind: folded.Diff}
		line = folded.AppendRecord(line[:0], &rec)
		if _, err := env.Stdout.Write(line); err != nil {
			return err
		}
	}
	return nil
}
