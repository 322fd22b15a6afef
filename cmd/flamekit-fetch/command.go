package main

import (
	"context"

	"flamekit/internal/cli"
	"flamekit/pkg/perf/debuginfod/nethttp"
)

// description is the flamekit-fetch --help text.
const description = `Get URL and write the answer to standard output: a head line
"STATUS LENGTH TEXT" (the HTTP status code, the body's length or -1, the
status text), then the body.

The flamekit tools run it to fetch debug files and executables from the
debuginfod servers of DEBUGINFOD_URLS, so that they start without an HTTP
and TLS stack of their own; they look for it next to themselves, then on
$PATH. It is not meant to be run by hand, but can be:

Examples:
  flamekit-fetch https://debuginfod.debian.net/buildid/BUILDID/debuginfo > answer
  DEBUGINFOD_URLS=https://debuginfod.debian.net stackcollapse perf.data > out.folded

Exit status: 0 when the answer was written whole (whatever its status
code), 1 when the server could not be reached or the body was cut, 2 for
usage errors.`

// command is the flamekit-fetch command line.
type command struct {
	URL     string          `arg:"" help:"The http:// or https:// URL to get."`
	Version cli.VersionFlag `help:"Print the version and exit."`
}

// Run gets the URL.
func (c *command) Run(env *cli.Env) error {
	return nethttp.Serve(context.Background(), c.URL, env.Stdout)
}
