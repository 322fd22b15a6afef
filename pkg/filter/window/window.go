package window

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"flamekit/pkg/folded"
)

// Kind says which clock a Point is given on.
type Kind uint8

// The clocks a window can be given on.
const (
	// Relative is a duration after the capture's first sample ("70s").
	Relative Kind = iota + 1
	// Perf is an absolute time on perf's clock, which is dmesg's clock
	// ("@43521.274").
	Perf
	// Wall is a wall-clock time ("2026-04-15T10:33:10Z").
	Wall
)

// Point is one end (or the centre) of a window as the user wrote it.
type Point struct {
	Kind Kind
	// At is the duration after the first sample (Relative) or the perf
	// time (Perf), in nanoseconds.
	At folded.Time
	// Wall is the wall-clock time (Wall).
	Wall time.Time
	// Text is the text the point was parsed from.
	Text string
}

// Shift returns p moved by d (negative d moves it earlier).
func (p Point) Shift(d folded.Time) Point {
	if p.Kind == Wall {
		p.Wall = p.Wall.Add(time.Duration(d))
	} else {
		p.At += d
	}
	return p
}

// Spec is a window as given on the command line, before it is placed on
// perf's clock by Resolve. A missing end is open: the window runs from the
// start or to the end of the capture.
type Spec struct {
	From, To       Point
	HasFrom, HasTo bool
	// Text describes the window as the user gave it, for messages.
	Text string
}

// Forms is the list of accepted window forms, shown with usage errors.
const Forms = `accepted forms:
  --at 70s±2.5              2.5 s either side of 70 s after the first sample
  --at 70s+-2.5             the same, without the ± character
  --at 1m10s±500ms          units ms s m h, compound 1m10s; the ± part is in
                            seconds unless it has a unit; a bare number is seconds
  --from 65s --to 75s       relative to the capture's first sample
  --at @43521.274±2.5       absolute perf clock (dmesg's clock: paste [43521.274])
  --from @43518.7 --to @43523.7
  --at 2026-04-15T10:33:10Z±2.5
                            wall clock (RFC 3339; no zone = local time, see TZ)
  --from 2026-04-15T10:33:05Z --to 2026-04-15T10:33:15Z`

// ErrWindow is wrapped by every window syntax error.
var ErrWindow = errors.New("malformed window")

func windowErr(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrWindow, fmt.Sprintf(format, args...))
}

// ParseAt parses the argument of --at: a point, '±' (or "+-"), and the
// half width of the window.
func ParseAt(s string) (Spec, error) {
	text := strings.TrimSpace(s)
	var pt, half string
	if i := strings.LastIndex(text, "±"); i >= 0 {
		pt, half = text[:i], text[i+len("±"):]
	} else if i := strings.LastIndex(text, "+-"); i >= 0 {
		pt, half = text[:i], text[i+2:]
	} else {
		return Spec{}, windowErr("--at %q has no '±' (or \"+-\") and half width, e.g. --at 70s±2.5", s)
	}
	pt, half = strings.TrimSpace(pt), strings.TrimSpace(half)
	if half == "" {
		return Spec{}, windowErr("--at %q has no half width after '±', e.g. --at 70s±2.5", s)
	}
	p, err := parsePoint(pt)
	if err != nil {
		return Spec{}, fmt.Errorf("--at %q: %w", s, err)
	}
	h, err := parseDuration(half)
	if err != nil {
		return Spec{}, fmt.Errorf("--at %q: half width: %w", s, err)
	}
	if h <= 0 {
		return Spec{}, windowErr("--at %q: the half width must be more than zero", s)
	}
	return Spec{
		From: p.Shift(-h), To: p.Shift(h), HasFrom: true, HasTo: true,
		Text: "--at " + text,
	}, nil
}

// ParseRange builds a window from the arguments of --from and --to; an
// empty string leaves that end open.
func ParseRange(from, to string) (Spec, error) {
	var sp Spec
	var parts []string
	if from != "" {
		p, err := parsePoint(from)
		if err != nil {
			return Spec{}, fmt.Errorf("--from %q: %w", from, err)
		}
		sp.From, sp.HasFrom = p, true
		parts = append(parts, "--from "+strings.TrimSpace(from))
	}
	if to != "" {
		p, err := parsePoint(to)
		if err != nil {
			return Spec{}, fmt.Errorf("--to %q: %w", to, err)
		}
		sp.To, sp.HasTo = p, true
		parts = append(parts, "--to "+strings.TrimSpace(to))
	}
	if sp.HasFrom && sp.HasTo && sp.From.Kind == sp.To.Kind && sp.From.Kind != Wall && sp.From.At >= sp.To.At ||
		sp.HasFrom && sp.HasTo && sp.From.Kind == Wall && sp.To.Kind == Wall && !sp.From.Wall.Before(sp.To.Wall) {
		return Spec{}, windowErr("--from %s is not before --to %s", from, to)
	}
	sp.Text = strings.Join(parts, " ")
	return sp, nil
}

// parsePoint parses a time: a duration after the first sample ("70s",
// "1m10.5s", "500ms", "70"), '@' and a perf-clock time ("@43521.274"), or a
// wall-clock time ("2026-04-15T10:33:10Z", "2026-04-15T10:33:10.25+02:00",
// or without a zone "2026-04-15T10:33:10", read in the local zone).
func parsePoint(s string) (Point, error) {
	s = strings.TrimSpace(s)
	switch {
	case s == "":
		return Point{}, windowErr("empty time")
	case s[0] == '@':
		v := strings.TrimSuffix(s[1:], "s")
		v = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(v, "["), "]"))
		t, err := folded.ParseTime([]byte(v))
		if err != nil || t < 0 || strings.HasPrefix(v, "-") {
			return Point{}, windowErr("%q is not a perf-clock time: want '@' and seconds, e.g. @43521.274", s)
		}
		return Point{Kind: Perf, At: t, Text: s}, nil
	case looksLikeDate(s):
		w, err := parseWall(s)
		if err != nil {
			return Point{}, err
		}
		return Point{Kind: Wall, Wall: w, Text: s}, nil
	}
	d, err := parseDuration(s)
	if err != nil {
		return Point{}, err
	}
	return Point{Kind: Relative, At: d, Text: s}, nil
}

func looksLikeDate(s string) bool {
	return len(s) >= 10 && isDigits(s[:4]) && s[4] == '-' && isDigits(s[5:7]) && s[7] == '-'
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

var wallZoned = []string{
	"2006-01-02T15:04:05Z07:00",
	"2006-01-02 15:04:05Z07:00",
	"2006-01-02T15:04Z07:00",
	"2006-01-02 15:04Z07:00",
}

var wallLocal = []string{
	"2006-01-02T15:04:05",
	"2006-01-02 15:04:05",
	"2006-01-02T15:04",
	"2006-01-02 15:04",
}

func parseWall(s string) (time.Time, error) {
	for _, l := range wallZoned {
		if t, err := time.Parse(l, s); err == nil {
			return t, nil
		}
	}
	for _, l := range wallLocal {
		if t, err := time.ParseInLocation(l, s, time.Local); err == nil {
			return t, nil
		}
	}
	return time.Time{}, windowErr("%q is not a wall-clock time: want e.g. 2026-04-15T10:33:10Z, 2026-04-15T10:33:10.5+02:00 or 2026-04-15T10:33:10 (local time)", s)
}

// Duration units, longest first so that "ms" is not read as "m".
var units = []struct {
	name string
	ns   int64
}{
	{"ms", 1e6},
	{"h", 3600e9},
	{"m", 60e9},
	{"s", 1e9},
}

const maxDuration = int64(1) << 62

// parseDuration parses a duration: numbers with units ms, s, m or h, in
// decreasing order and possibly compound ("70s", "1m10s", "1.5m", "250ms",
// "1h2m3.5s"), or one bare number meaning seconds ("2.5").
func parseDuration(s string) (folded.Time, error) {
	orig := s
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, windowErr("empty duration")
	}
	bad := func() (folded.Time, error) {
		return 0, windowErr("%q is not a duration: want e.g. 70s, 1m10s, 500ms, 1.5h or 2.5 (seconds)", orig)
	}
	var total int64
	lastUnit := int64(-1)
	parts := 0
	for s != "" {
		i := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		intPart := s[:i]
		frac := ""
		if i < len(s) && s[i] == '.' {
			j := i + 1
			for j < len(s) && s[j] >= '0' && s[j] <= '9' {
				j++
			}
			frac = s[i+1 : j]
			i = j
		}
		if intPart == "" && frac == "" {
			return bad()
		}
		s = s[i:]
		unit := int64(-1)
		for _, u := range units {
			if strings.HasPrefix(s, u.name) {
				unit = u.ns
				s = s[len(u.name):]
				break
			}
		}
		if unit < 0 {
			if s != "" || parts > 0 {
				return bad()
			}
			unit = 1e9 // one bare number: seconds
		}
		if lastUnit >= 0 && unit >= lastUnit {
			return bad() // units must decrease: 1m10s, not 10s1m
		}
		lastUnit = unit
		parts++
		var v int64
		for k := 0; k < len(intPart); k++ {
			v = v*10 + int64(intPart[k]-'0')
			if v > maxDuration/unit {
				return 0, windowErr("duration %q is too long", orig)
			}
		}
		v *= unit
		scale := unit
		for k := 0; k < len(frac); k++ {
			scale /= 10
			v += int64(frac[k]-'0') * scale
		}
		total += v
		if total > maxDuration {
			return 0, windowErr("duration %q is too long", orig)
		}
	}
	return folded.Time(total), nil
}

// formatDuration formats d as seconds with up to nine decimals ("70",
// "2.5", "0.02").
func formatSeconds(d folded.Time) string {
	s := d.String()
	if strings.Contains(s, ".") {
		s = strings.TrimRight(s, "0")
		s = strings.TrimSuffix(s, ".")
	}
	return s
}
