package stackcollapse

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"flamekit/pkg/fold/collapse"
	"flamekit/pkg/folded"
	"flamekit/pkg/tool"
)

// offCPUOptions checks the options that only OffCPU (or HotCold, Wakers)
// uses and puts MinBlock and MaxBlock in opt.
func (c *Config) offCPUOptions(opt *collapse.Options) error {
	offCPU := c.OffCPU || c.Wakers || c.HotCold
	for _, f := range []struct {
		name string
		set  bool
	}{{"--states", c.States != ""}, {"--min-block", c.MinBlock != 0}, {"--max-block", c.MaxBlock != 0}, {"--clip-open", c.ClipOpen}} {
		if f.set && !offCPU {
			return tool.Usagef("%s needs --off-cpu (or --hot-cold)", f.name)
		}
	}
	for _, f := range []struct {
		name string
		b    Block
	}{{"--min-block", c.MinBlock}, {"--max-block", c.MaxBlock}} {
		if f.b < 0 {
			return tool.Usagef("%s %v: want a duration of 0 or more", f.name, time.Duration(f.b))
		}
	}
	opt.MinBlock, opt.MaxBlock = time.Duration(c.MinBlock), time.Duration(c.MaxBlock)
	return nil
}

// Block is the length of an off-CPU interval, as --min-block and
// --max-block give it: microseconds, as bcc's offcputime -m and -M take
// them (1000), or a duration with its unit (500us, 2ms, 1s). Zero is the
// default: no bound.
type Block time.Duration

// UnmarshalText reads a Block (the command line's value).
func (b *Block) UnmarshalText(text []byte) error {
	v := string(text)
	if n, err := strconv.ParseFloat(v, 64); err == nil && n >= 0 && n*float64(time.Microsecond) < math.MaxInt64 {
		*b = Block(n * float64(time.Microsecond))
		return nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return fmt.Errorf("%q: want microseconds (1000) or a duration with its unit (500us, 2ms, 1s)", v)
	}
	*b = Block(d)
	return nil
}

// String returns b as a time.Duration prints it.
func (b Block) String() string { return time.Duration(b).String() }

// parseRef checks a clock reference given on the command line and returns
// it as the metadata writes it: the wall clock in RFC 3339 UTC (from RFC
// 3339 or epoch seconds such as date +%s.%N prints), and perf seconds.
func parseRef(wall, perf string) (string, string, error) {
	if _, err := folded.ParseTime([]byte(perf)); err != nil || strings.HasPrefix(perf, "-") {
		return "", "", fmt.Errorf("--ref-perf %q: want perf-clock seconds, e.g. 2404.748841", perf)
	}
	if t, err := time.Parse(time.RFC3339Nano, wall); err == nil {
		return t.UTC().Format(time.RFC3339Nano), perf, nil
	}
	ns, err := folded.ParseTime([]byte(wall))
	if err != nil {
		return "", "", fmt.Errorf("--ref-wall %q: want RFC 3339 (2026-11-22T02:56:25.385988021Z) or epoch seconds (1795316185.385988021)", wall)
	}
	return time.Unix(0, int64(ns)).UTC().Format(time.RFC3339Nano), perf, nil
}
