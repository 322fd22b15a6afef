// Package slicecmd builds the timeslice command lines that flamekit hands
// back: the command that reproduces a selection of the heat map, a burst,
// or a range of the explorer. It is the one place that spells them, so
// that every output names a window the same way (perf's clock, to the
// nanosecond, half-open) and quotes file names alike.
package slicecmd

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"flamekit/pkg/folded"
)

// Range returns the timeslice command that cuts [from, to) on perf's
// clock; args (already quoted for the shell, each with its leading space)
// are appended as they are. The heat map's script builds the same text.
func Range(from, to folded.Time, args string) string {
	return fmt.Sprintf("timeslice --from @%v --to @%v%s", from, to, args)
}

// Quote quotes s for a POSIX shell when it needs it.
func Quote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./-=:@+,%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Input returns an input as a handed-back command names it: "-" for
// standard input, else its absolute path (the command may be run from
// another directory), quoted for the shell.
func Input(name string) string {
	if name == "-" {
		return "-"
	}
	if abs, err := filepath.Abs(name); err == nil {
		name = abs
	}
	return Quote(name)
}

// KeyKind is what a key names (the values of package bursts' KeyKind).
type KeyKind uint8

// The keys a command can keep.
const (
	Process  KeyKind = 1 // --comm '^name$'
	Thread   KeyKind = 2 // --tid N
	Function KeyKind = 3 // | stackfilter --focus '^name$'
)

// Key returns the timeslice command that cuts [from, to) keeping one key's
// samples: a process (--comm, its name as a whole regular expression), a
// thread (--tid) or a function (the slice piped into stackfilter --focus,
// which keeps the stacks holding it). args are as Range's, inputs the
// inputs already quoted.
func Key(from, to folded.Time, args string, kind KeyKind, name string, tid int32, inputs string) string {
	switch kind {
	case Process:
		return Range(from, to, args+" --comm "+Quote("^"+regexp.QuoteMeta(name)+"$")+" "+inputs)
	case Thread:
		if tid >= 0 {
			return Range(from, to, args+" --tid "+strconv.Itoa(int(tid))+" "+inputs)
		}
	case Function:
		return Range(from, to, args+" "+inputs) + " | stackfilter --focus " + Quote("^"+regexp.QuoteMeta(name)+"$")
	}
	return Range(from, to, args+" "+inputs)
}
