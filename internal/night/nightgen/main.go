// Command nightgen writes a night of recorder windows made from the real
// capture testdata/perf/burst.txt.gz, with one planted 2-second burst
// (see package night), for benchmarks and manual checks:
//
//	go run ./internal/night/nightgen -o /tmp/night
//
// It prints the files' directory, the span and the planted burst.
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"flamekit/internal/night"
)

func main() {
	var o night.Options
	flag.StringVar(&o.Dir, "o", "", "directory to write into (created if missing)")
	flag.DurationVar(&o.Length, "length", 12*time.Hour, "length of the night")
	flag.DurationVar(&o.Window, "window", 2*time.Minute, "length of one file")
	flag.DurationVar(&o.BurstAt, "burst-at", 0, "start of the planted burst after the first sample (default 7h13m17.4s)")
	flag.BoolVar(&o.Single, "single", false, "write one file, night.folded.gz")
	flag.BoolVar(&o.Plain, "plain", false, "write uncompressed .folded files")
	flag.Parse()
	if o.Dir == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: nightgen -o DIR [-length 12h] [-window 2m] [-burst-at D] [-single] [-plain]")
		os.Exit(2)
	}
	if err := os.MkdirAll(o.Dir, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "nightgen:", err)
		os.Exit(1)
	}
	n, err := night.Generate(o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "nightgen:", err)
		os.Exit(1)
	}
	fmt.Printf("dir=%s files=%d samples=%d bytes=%d first=%v last=%v burst-from=%v burst-to=%v burst-samples=%d\n",
		o.Dir, len(n.Files), n.Samples, n.Bytes, n.First, n.Last, n.BurstFrom, n.BurstTo, n.BurstSamples)
}
