// Package tool is what the tools as calls share: the Env a tool reads
// and writes through (pkg/tool/stackcollapse, pkg/tool/flamegraph and
// pkg/tool/timeslice each call it Env) and the UsageError it returns for
// options that do not go together, which a command reports with exit
// status 2. A Go program that runs a tool fills an Env with its own
// streams.
package tool

import (
	"fmt"
	"io"
	"os"

	"flamekit/pkg/source"
)

// Env is where a run reads and writes: standard input and output,
// Stderr (where flamegraph.pl's own messages go as they are; nil: none),
// Warn, which prints one message of flamekit's (a line, without its
// newline; a command prefixes it with its name), and Getenv, which reads
// the environment (nil: os.Getenv).
type Env struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Warn   func(msg string)
	Getenv func(string) string
}

// Warnf formats a message for Warn (nothing when Warn is nil).
func (e *Env) Warnf(format string, args ...any) {
	if e.Warn != nil {
		e.Warn(fmt.Sprintf(format, args...))
	}
}

// Env reads the environment variable key through Getenv.
func (e *Env) Env(key string) string {
	if e.Getenv != nil {
		return e.Getenv(key)
	}
	return os.Getenv(key)
}

// UsageError is an error in a tool's Config (the command line as given):
// a command exits with status 2 on it.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }

// Unwrap returns the error it holds.
func (e *UsageError) Unwrap() error { return e.Err }

// Usagef returns a UsageError formatted as fmt.Errorf.
func Usagef(format string, args ...any) error {
	return &UsageError{Err: fmt.Errorf(format, args...)}
}

// Open opens the inputs named ("-" is env.Stdin; no names: standard
// input) through the one input layer, for a tool that reads them with
// capture.Reader or capture.Scan. Names that cannot go together (two
// "-") are a UsageError.
func Open(names []string, env *Env) (source.Inputs, error) {
	if err := source.CheckNames(names); err != nil {
		return nil, &UsageError{Err: err}
	}
	return source.OpenAll(names, source.Options{Stdin: env.Stdin})
}
