// Package clitest runs a command line in a test as the command's main
// would (cli.Run), with standard input from a string, and gives back its
// exit status and what it wrote.
package clitest

import (
	"bytes"
	"strings"
	"testing"

	"flamekit/internal/cli"
)

// Run runs cmd, the command line of the command name (description is
// its --help text), on args with stdin as standard input, and returns
// its exit status, standard output and standard error.
func Run(t testing.TB, name, description string, cmd cli.Command, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = cli.Run(name, description, cmd, args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}
