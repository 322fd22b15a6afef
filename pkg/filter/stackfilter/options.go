package stackfilter

import (
	"fmt"
	"regexp"
	"strings"

	"flamekit/pkg/filter/selection"
)

// Options are the transforms of a Filter, as the command's flags fill
// them. Each list may hold several values; for the regular-expression
// options they are alternatives. The zero value keeps every stack as it
// is.
//
// Whatever the order of the options, a stack goes through these steps,
// each reading what the one before left:
//
//  1. selection (Options.Select, package selection): the comm (the root
//     frame), and the cpu=, pid= and tid= fields of timed lines;
//  2. Focus, then Ignore, on the stack as read (pprof -focus, -ignore);
//  3. Hide, then Show (pprof -hide, -show);
//  4. ShowFrom (pprof -show_from), RootAt, then PruneFrom (pprof
//     -prune_from);
//  5. Merge, then CollapseRecursion.
//
// Steps 2 to 4 are those of pprof, in pprof's order (its applyFocus:
// FilterSamplesByName, ShowFrom, PruneFrom), and give the stacks and
// totals go tool pprof gives for the same options on the same samples
// (the package's tests check it on real captures). Regular expressions
// (Go RE2 syntax, unanchored) match a frame's name exactly as the folded
// line spells it, the root frame (comm, or comm-PID and comm-PID/TID after
// stackcollapse --pid/--tid) included.
type Options struct {
	// Focus keeps only the stacks with a frame that matches
	// (pprof -focus).
	Focus []string
	// Ignore drops the stacks with a frame that matches (pprof -ignore).
	Ignore []string
	// Hide removes the frames that match; the stack keeps its count. A
	// stack left without frames is dropped (pprof -hide).
	Hide []string
	// Show keeps only the frames that match (pprof -show).
	Show []string
	// ShowFrom removes the frames rootward of the rootmost frame that
	// matches; a stack without one is dropped (pprof -show_from).
	ShowFrom []string
	// RootAt removes the frames rootward of the leafmost frame that
	// matches; a stack without one is dropped (inferno-flamegraph --base,
	// with regular expressions).
	RootAt []string
	// PruneFrom removes the frames leafward of the leafmost frame that
	// matches, which becomes the leaf; a stack without one is kept whole
	// (pprof -prune_from). As in pprof, the expression is matched against
	// the name cut before its argument list (see simplifyName).
	PruneFrom []string
	// Merge renames frames: each value is "RE" or "RE=NAME" (split at the
	// last '='); a frame that matches RE becomes NAME (RE itself when no
	// NAME is given), and a run of consecutive frames renamed by the same
	// value becomes one frame. The first value that matches a frame wins.
	Merge []string
	// CollapseRecursion makes a frame equal to its parent one frame.
	CollapseRecursion bool

	// Select keeps the samples of some CPUs, processes, threads or
	// commands (package selection, the meaning timeslice's --cpu, --pid,
	// --tid and --comm have too). A line without a field it asks about is
	// dropped and counted in Stats.Unknown. nil selects every sample.
	Select *selection.Selection
}

// OptionError is an option value that cannot be used: a bad regular
// expression or merge name.
type OptionError struct {
	Option string // the option's flag name, e.g. "focus"
	Value  string
	Err    error
}

func (e *OptionError) Error() string {
	return fmt.Sprintf("--%s %q: %v", e.Option, e.Value, e.Err)
}

func (e *OptionError) Unwrap() error { return e.Err }

// compileAny compiles the alternatives of one option into one expression;
// nil when there are none.
func compileAny(option string, values []string) (*regexp.Regexp, error) {
	if len(values) == 0 {
		return nil, nil
	}
	parts := make([]string, len(values))
	for i, v := range values {
		if _, err := regexp.Compile(v); err != nil {
			return nil, &OptionError{option, v, err}
		}
		parts[i] = "(?:" + v + ")"
	}
	re, err := regexp.Compile(strings.Join(parts, "|"))
	if err != nil {
		return nil, &OptionError{option, strings.Join(values, " "), err}
	}
	return re, nil
}

// mergeRule is one --merge value.
type mergeRule struct {
	re   *regexp.Regexp
	name string
	spec string
}

// parseMerge splits a --merge value "RE[=NAME]" at its last '=' and
// checks both parts. A value without '=' names the merged frame after the
// expression itself.
func parseMerge(spec string) (re *regexp.Regexp, name string, err error) {
	pattern, name := spec, spec
	if i := strings.LastIndexByte(spec, '='); i >= 0 {
		pattern, name = spec[:i], spec[i+1:]
	}
	switch {
	case pattern == "":
		return nil, "", &OptionError{"merge", spec, fmt.Errorf("no regular expression before '='")}
	case name == "":
		return nil, "", &OptionError{"merge", spec, fmt.Errorf("empty frame name after '=' (write RE=NAME)")}
	case strings.ContainsAny(name, ";\n\r"):
		return nil, "", &OptionError{"merge", spec, fmt.Errorf("frame name %q holds ';' or a line break, which would split the frame", name)}
	}
	re, err = regexp.Compile(pattern)
	if err != nil {
		return nil, "", &OptionError{"merge", spec, err}
	}
	return re, name, nil
}
