// Command stackcollapse folds perf script output into folded stacks for
// flamegraph, as stackcollapse-perf.pl does, keeping each sample's time.
// See stackcollapse --help.
package main

import (
	"flamekit/internal/cli"
)

func main() {
	cli.Main("stackcollapse", description, &command{})
}
