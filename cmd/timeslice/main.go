// Command timeslice cuts a time window out of timed folded stacks, drops
// idle samples, or draws the sub-second heat map. See timeslice --help.
package main

import (
	"flamekit/internal/cli"
	"flamekit/pkg/timeslice"
)

func main() {
	cli.Main("timeslice", timeslice.Description, &timeslice.Command{})
}
