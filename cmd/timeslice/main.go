// Command timeslice cuts a time window out of timed folded stacks, drops
// idle samples, or draws the sub-second heat map. See timeslice --help.
package main

import (
	"flamekit/internal/cli"
)

func main() {
	cli.Main("timeslice", description, &command{})
}
