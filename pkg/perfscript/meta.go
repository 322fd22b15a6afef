package perfscript

import (
	"bytes"
	"strconv"
	"strings"
	"time"

	"flamekit/pkg/folded"
)

// captureInfo is what the perf script --header block says about a capture.
type captureInfo struct {
	host, osRelease, perfVersion, capturedOn, cmdline string
	first, last                                       string
	clock, refWall, refPerf                           string
}

// headerLine reads one "# key : value" line of perf script --header.
func (c *captureInfo) headerLine(line []byte) {
	line = bytes.TrimRight(line, " \t\r")
	body := bytes.TrimLeft(line[1:], " ")
	k, v, ok := bytes.Cut(body, []byte(":"))
	if !ok {
		return
	}
	key := string(bytes.TrimSpace(k))
	val := string(bytes.TrimSpace(v))
	switch key {
	case "hostname":
		c.host = val
	case "os release":
		c.osRelease = val
	case "perf version":
		c.perfVersion = val
	case "captured on":
		c.capturedOn = val
	case "cmdline":
		c.cmdline = val
	case "time of first sample":
		c.first = val
	case "time of last sample":
		c.last = val
	case "clockid":
		// "monotonic (1)"
		c.clock, _, _ = strings.Cut(val, " (")
	case "reference time":
		// "2026-11-22 02:01:04.284867 = 1795312864.284867 (TOD) = 692.619527301 (monotonic)"
		parts := strings.Split(val, " = ")
		if len(parts) == 3 {
			tod, _, _ := strings.Cut(parts[1], " ")
			perf, _, _ := strings.Cut(parts[2], " ")
			if w, ok := rfc3339(tod); ok {
				c.refWall = w
			}
			if _, err := folded.ParseTime([]byte(perf)); err == nil {
				c.refPerf = perf
			}
		}
	}
}

// rfc3339 turns epoch seconds with a fraction ("1795312864.284867") into
// RFC 3339 UTC, keeping the fraction's digits.
func rfc3339(epoch string) (string, bool) {
	sec, frac, _ := strings.Cut(epoch, ".")
	s, err := strconv.ParseInt(sec, 10, 64)
	if err != nil || !allDigits([]byte(frac)) && frac != "" {
		return "", false
	}
	out := time.Unix(s, 0).UTC().Format("2006-01-02T15:04:05")
	if frac != "" {
		out += "." + frac
	}
	return out + "Z", true
}

// startMeta is the metadata line written before a file's first sample.
func (c *captureInfo) startMeta(event, source string) *folded.Meta {
	m := &folded.Meta{}
	m.Set(folded.KeyHost, c.host)
	m.Set(folded.KeyOSRelease, c.osRelease)
	m.Set(folded.KeyPerfVersion, c.perfVersion)
	m.Set(folded.KeyCapturedOn, c.capturedOn)
	m.Set(folded.KeyCmdline, c.cmdline)
	m.Set(folded.KeyEvent, event)
	m.Set(folded.KeyFirst, c.first)
	m.Set(folded.KeyLast, c.last)
	m.Set(folded.KeyClock, c.clock)
	m.Set(folded.KeyRefWall, c.refWall)
	m.Set(folded.KeyRefPerf, c.refPerf)
	m.Set(folded.KeySource, source)
	return m
}
