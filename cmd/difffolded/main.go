// Command difffolded compares two folded profiles into differential folded
// stacks for flamegraph, like difffolded.pl. See difffolded --help.
package main

import (
	"flamekit/internal/cli"
)

func main() {
	cli.Main("difffolded", description, &command{})
}
