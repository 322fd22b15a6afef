// Package slicecmd builds the timeslice command lines that flamekit hands
// back: the command that reproduces a selection of the heat map, a burst,
// or a range of the explorer. It is the one place that spells them, so
// that every output names a window the same way (perf's clock, to the
// nanosecond, half-open) and quotes file names alike.
package slicecmd

import (
	"fmt"
	"path/filepath"
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
