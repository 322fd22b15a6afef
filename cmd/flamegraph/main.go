// Command flamegraph draws an interactive flame graph (SVG) from folded
// stacks, with flamegraph.pl's options. See pkg/flamegraph.
package main

import (
	"flamekit/internal/cli"
	"flamekit/pkg/flamegraph"
)

func main() {
	cli.Main("flamegraph", flamegraph.Description, &flamegraph.Cmd{})
}
