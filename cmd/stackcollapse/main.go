// Command stackcollapse folds perf script output into folded stacks for
// flamegraph, as stackcollapse-perf.pl does, keeping each sample's time.
package main

import (
	"flamekit/internal/cli"
	"flamekit/pkg/perfscript"
)

func main() {
	cli.Main("stackcollapse", perfscript.Description, &perfscript.Command{})
}
