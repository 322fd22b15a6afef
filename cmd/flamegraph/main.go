// Command flamegraph draws an interactive flame graph (SVG) from folded
// stacks, with flamegraph.pl's options. See flamegraph --help.
package main

import (
	"flamekit/internal/cli"
)

func main() {
	cli.Main("flamegraph", description, &command{})
}
