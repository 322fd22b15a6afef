// Command flamekit-fetch makes one HTTP GET for the flamekit tools'
// debuginfod client, which run it rather than link an HTTP and TLS stack
// (see package flamekit/pkg/perf/debuginfod). See flamekit-fetch --help.
package main

import "flamekit/internal/cli"

func main() {
	cli.Main("flamekit-fetch", description, &command{})
}
