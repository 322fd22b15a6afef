package folded

import (
	"bytes"
	"strconv"
	"time"
)

// MetaPrefix starts the metadata lines of a timed stream (what
// stackcollapse writes), ClassicPrefix those of a classic one. Either
// says how the lines after it are read: as timed or classic lines, never
// as differential ones, whatever their stack ends with (see Reader).
const (
	MetaPrefix    = "# flamekit v1 timed"
	ClassicPrefix = "# flamekit v1 classic"
)

// Well-known metadata keys. Unknown keys are kept as they are.
const (
	KeyHost        = "host"         // perf header "hostname"
	KeyOSRelease   = "os-release"   // perf header "os release"
	KeyPerfVersion = "perf-version" // perf header "perf version"
	KeyCapturedOn  = "captured-on"  // perf header "captured on", as perf printed it
	KeyCmdline     = "cmdline"      // perf header "cmdline"
	KeyEvent       = "event"        // the sampled event kept in the stream
	KeyFirst       = "first"        // time of first sample, perf clock seconds
	KeyLast        = "last"         // time of last sample, perf clock seconds
	KeyClock       = "clockid"      // perf record -k clock, e.g. "monotonic"
	KeyRefWall     = "ref-wall"     // wall-clock reference, RFC 3339 UTC
	KeyRefPerf     = "ref-perf"     // perf-clock time of ref-wall, seconds
	KeySource      = "source"       // name of the input the stream came from
	KeySamples     = "samples"      // number of timed lines written
	KeyWeight      = "weight"       // what the counts measure when not perf's periods: "off-cpu", "hot-cold", a payload field (stackcollapse --weight)
	KeyUnit        = "unit"         // the unit of those counts: "us"
)

// Field is one key="value" pair of a metadata line.
type Field struct{ Key, Value string }

// Meta is the content of one metadata line: facts about the capture a timed
// stream came from. A stream may carry several metadata lines (for example
// one before the samples and one after them with the span actually seen);
// readers merge what they need.
type Meta struct {
	Fields []Field
	// Line is the line number the metadata was read from (0 if not read).
	Line int
	// Classic says that the line starts with ClassicPrefix: the stream
	// holds classic lines; false for MetaPrefix (timed).
	Classic bool
}

// Get returns the value of key and whether it is present.
func (m *Meta) Get(key string) (string, bool) {
	for _, f := range m.Fields {
		if f.Key == key {
			return f.Value, true
		}
	}
	return "", false
}

// Set sets key to value, replacing an earlier value. An empty value removes
// the key.
func (m *Meta) Set(key, value string) {
	for i, f := range m.Fields {
		if f.Key == key {
			if value == "" {
				m.Fields = append(m.Fields[:i], m.Fields[i+1:]...)
			} else {
				m.Fields[i].Value = value
			}
			return
		}
	}
	if value != "" {
		m.Fields = append(m.Fields, Field{key, value})
	}
}

// Time returns the perf-clock time stored under key (KeyFirst, KeyLast,
// KeyRefPerf).
func (m *Meta) Time(key string) (Time, bool) {
	v, ok := m.Get(key)
	if !ok {
		return 0, false
	}
	t, err := ParseTime([]byte(v))
	return t, err == nil
}

// Span returns the first and last sample times the metadata declares.
func (m *Meta) Span() (first, last Time, ok bool) {
	first, ok1 := m.Time(KeyFirst)
	last, ok2 := m.Time(KeyLast)
	return first, last, ok1 && ok2 && first <= last
}

// Reference returns the wall-clock time that corresponds to perf-clock time
// perf, when the capture was recorded with perf record -k (exact mapping).
func (m *Meta) Reference() (wall time.Time, perf Time, ok bool) {
	w, ok1 := m.Get(KeyRefWall)
	p, ok2 := m.Time(KeyRefPerf)
	if !ok1 || !ok2 {
		return time.Time{}, 0, false
	}
	wt, err := time.Parse(time.RFC3339Nano, w)
	if err != nil {
		return time.Time{}, 0, false
	}
	return wt, p, true
}

// AppendMeta appends m as a metadata line, with its newline, to dst.
func AppendMeta(dst []byte, m *Meta) []byte {
	if m.Classic {
		dst = append(dst, ClassicPrefix...)
	} else {
		dst = append(dst, MetaPrefix...)
	}
	for _, f := range m.Fields {
		dst = append(dst, ' ')
		dst = append(dst, f.Key...)
		dst = append(dst, '=')
		dst = strconv.AppendQuote(dst, f.Value)
	}
	return append(dst, '\n')
}

// IsMeta reports whether line is a metadata line: it starts with
// MetaPrefix or ClassicPrefix, then a blank or its end.
func IsMeta(line []byte) bool { return metaStart(line) > 0 }

// metaStart returns the length of the prefix that starts the metadata
// line line, 0 when line is not one.
func metaStart(line []byte) int {
	for _, p := range [...]string{MetaPrefix, ClassicPrefix} {
		if bytes.HasPrefix(line, []byte(p)) && (len(line) == len(p) || isSpace(line[len(p)])) {
			return len(p)
		}
	}
	return 0
}

// ParseMeta parses a metadata line (without its newline; a trailing CR is
// ignored).
func ParseMeta(line []byte) (Meta, error) {
	var m Meta
	line = bytes.TrimSuffix(line, []byte("\r"))
	start := metaStart(line)
	if start == 0 {
		return m, ErrMeta
	}
	m.Classic = start == len(ClassicPrefix)
	rest := string(line[start:])
	for {
		for len(rest) > 0 && isSpace(rest[0]) {
			rest = rest[1:]
		}
		if rest == "" {
			return m, nil
		}
		eq := 0
		for eq < len(rest) && isKeyByte(rest[eq]) {
			eq++
		}
		if eq == 0 || eq == len(rest) || rest[eq] != '=' {
			return m, ErrMeta
		}
		key := rest[:eq]
		q, err := strconv.QuotedPrefix(rest[eq+1:])
		if err != nil || q[0] != '"' {
			return m, ErrMeta
		}
		val, err := strconv.Unquote(q)
		if err != nil {
			return m, ErrMeta
		}
		m.Fields = append(m.Fields, Field{key, val})
		rest = rest[eq+1+len(q):]
		if rest != "" && !isSpace(rest[0]) {
			return m, ErrMeta
		}
	}
}

func isKeyByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_'
}
