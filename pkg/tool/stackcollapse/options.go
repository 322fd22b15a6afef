package stackcollapse

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"flamekit/pkg/fold/collapse"
	"flamekit/pkg/folded"
	"flamekit/pkg/tool"
)

// offCPUOptions checks the options that only OffCPU (or HotCold, Wakers)
// uses and reads MinBlock and MaxBlock.
func (c *Config) offCPUOptions(opt *collapse.Options) error {
	offCPU := c.OffCPU || c.Wakers || c.HotCold
	for _, f := range []struct {
		name string
		set  bool
	}{{"--states", c.States != ""}, {"--min-block", c.MinBlock != ""}, {"--max-block", c.MaxBlock != ""}, {"--clip-open", c.ClipOpen}} {
		if f.set && !offCPU {
			return tool.Usagef("%s needs --off-cpu (or --hot-cold)", f.name)
		}
	}
	var err error
	if opt.MinBlock, err = parseBlock("--min-block", c.MinBlock); err != nil {
		return err
	}
	opt.MaxBlock, err = parseBlock("--max-block", c.MaxBlock)
	return err
}

// parseBlock reads a --min-block or --max-block value (flag names it in
// the error, a *tool.UsageError): microseconds, as bcc's offcputime -m and -M
// take them, or a duration with its unit; "" is 0.
func parseBlock(flag, v string) (time.Duration, error) {
	if v == "" {
		return 0, nil
	}
	if n, err := strconv.ParseFloat(v, 64); err == nil && n >= 0 {
		return time.Duration(n * float64(time.Microsecond)), nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return 0, tool.Usagef("%s %q: want microseconds (1000) or a duration with its unit (500us, 2ms, 1s)", flag, v)
	}
	return d, nil
}

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
