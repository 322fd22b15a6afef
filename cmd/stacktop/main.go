// Command stacktop ranks the functions of folded stacks by self and total
// cost, as go tool pprof -top does, and shows a function's callers and
// callees as pprof -peek does. See stacktop --help.
package main

import "flamekit/internal/cli"

func main() {
	cli.Main("stacktop", description, &command{})
}
