// Command nightgen writes a night of recorder windows made from a real
// capture, testdata/perf/burst.txt.gz (mostly idle) or, with -capture
// saturated, testdata/perf/saturated.txt.gz (every CPU busy), with one
// planted 2-second burst (see package night), for benchmarks and manual
// checks:
//
//	go run ./internal/testkit/night/nightgen -o /tmp/night
//	go run ./internal/testkit/night/nightgen -o /tmp/busy -capture saturated
//
// It prints the files' directory, the span and the planted burst.
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"flamekit/internal/testkit/night"
)

func main() {
	var o night.Options
	capture := flag.String("capture", "idle", "the capture repeated: idle (burst.txt.gz) or saturated (saturated.txt.gz)")
	flag.StringVar(&o.Dir, "o", "", "directory to write into (created if missing)")
	flag.DurationVar(&o.Length, "length", 12*time.Hour, "length of the night")
	flag.DurationVar(&o.Window, "window", 2*time.Minute, "length of one file")
	flag.DurationVar(&o.BurstAt, "burst-at", 0, "about when the planted burst starts after the first sample: the copy whose burst starts nearest keeps it (default 7h13m17.4s)")
	flag.BoolVar(&o.NoBurst, "no-burst", false, "plant no burst: every copy without it")
	flag.BoolVar(&o.Single, "single", false, "write one file, night.folded.gz")
	flag.BoolVar(&o.Plain, "plain", false, "write uncompressed .folded files")
	flag.Parse()
	switch *capture {
	case "idle":
		o.Capture = night.Idle
	case "saturated":
		o.Capture = night.Saturated
	default:
		o.Dir = ""
	}
	if o.Dir == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: nightgen -o DIR [-capture idle|saturated] [-length 12h] [-window 2m] [-burst-at D] [-no-burst] [-single] [-plain]")
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
	fmt.Printf("dir=%s files=%d samples=%d bytes=%d first=%v last=%v burst-comm=%s burst-from=%v burst-to=%v burst-samples=%d\n",
		o.Dir, len(n.Files), n.Samples, n.Bytes, n.First, n.Last, n.BurstComm, n.BurstFrom, n.BurstTo, n.BurstSamples)
}
