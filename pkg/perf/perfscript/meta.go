package perfscript

import (
	"bytes"
	"strconv"
	"strings"
	"time"

	"flamekit/pkg/folded"
	"flamekit/pkg/perf/sample"
)

// headerLine reads one "# key : value" line of perf script --header into c.
func headerLine(c *sample.Capture, line []byte) {
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
		c.Host = val
	case "os release":
		c.OSRelease = val
	case "perf version":
		c.PerfVersion = val
	case "captured on":
		c.CapturedOn = val
	case "cmdline":
		c.Cmdline = val
	case "time of first sample", "time of last sample":
		// perf record --off-cpu writes its samples at the end of the run
		// with a dummy time of about 18446744069.41 s, which becomes
		// the "time of last sample": a time that no perf clock reading
		// can be is left out.
		if _, err := folded.ParseTime([]byte(val)); err != nil {
			break
		}
		if key == "time of first sample" {
			c.First = val
		} else {
			c.Last = val
		}
	case "event":
		// "name = cpu-clock:pppH, , id = { 25, 26 }, type = 1, ..."
		if name, ok := strings.CutPrefix(val, "name = "); ok {
			name, _, _ = strings.Cut(name, ",")
			if name = strings.TrimSpace(name); name != "" {
				c.Events = append(c.Events, name)
			}
		}
	case "clockid":
		// "monotonic (1)"
		c.Clock, _, _ = strings.Cut(val, " (")
	case "reference time":
		// "2026-11-22 02:01:04.284867 = 1795312864.284867 (TOD) = 692.619527301 (monotonic)"
		parts := strings.Split(val, " = ")
		if len(parts) == 3 {
			tod, _, _ := strings.Cut(parts[1], " ")
			perf, _, _ := strings.Cut(parts[2], " ")
			if w, ok := rfc3339(tod); ok {
				c.RefWall = w
			}
			if _, err := folded.ParseTime([]byte(perf)); err == nil {
				c.RefPerf = perf
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
