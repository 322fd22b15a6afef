// Command stackfilter shapes folded stacks with go tool pprof's filters
// (focus, ignore, hide, show, show_from, prune_from) and more: re-root,
// merge, collapse recursion, select by comm, pid, tid or CPU. See
// stackfilter --help.
package main

import "flamekit/internal/cli"

func main() {
	cli.Main("stackfilter", description, &command{})
}
