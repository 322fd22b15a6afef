package folded

import (
	"errors"
	"fmt"
	"math"
	"strconv"
)

// Kind says which of the folded line forms a [Record] came from.
type Kind uint8

// The line forms of a folded stream.
const (
	Classic Kind = iota + 1 // "stack count"
	Diff                    // "stack before after"
	Timed                   // "stack count @seconds"
)

func (k Kind) String() string {
	switch k {
	case Classic:
		return "classic"
	case Diff:
		return "differential"
	case Timed:
		return "timed"
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Record is one parsed folded line.
type Record struct {
	// Stack is the frames joined by ';', root first, exactly as written.
	// A Record filled by a Reader shares its bytes with the Reader's buffer:
	// they are valid only until the next call to Next.
	Stack []byte
	// Count is the sample count (for Diff, the "after" count, which gives
	// the width of the frame in a differential flame graph).
	Count float64
	// Before is the first count of a Diff line.
	Before float64
	// Time is the sample's time on perf's clock, for Timed lines.
	Time Time
	Kind Kind
	// CPU, PID and TID are the sample's CPU and thread ids, for Timed
	// lines that carry them (" cpu=1 pid=4242 tid=4243" after the time);
	// Has says which of them the line carried.
	CPU, PID, TID int32
	Has           Has
	// Addrs, when not nil, are the addresses the stack was folded from
	// (a perf.data capture folded with collapse.Options.Addresses): for
	// the pprof and OTLP outputs, never written as text. It is valid as
	// long as the Record.
	Addrs *Addrs
}

// Has is a set of the optional fields of a timed line: which of a
// [Record]'s CPU, PID and TID hold a value. The zero value holds none.
type Has uint8

// The optional fields of a timed line.
const (
	HasCPU Has = 1 << iota // "cpu=N"
	HasPID                 // "pid=N"
	HasTID                 // "tid=N"
)

// sampleFields are the optional fields of a timed line, in the order they
// are written.
var sampleFields = [...]struct {
	key string
	has Has
}{{"cpu=", HasCPU}, {"pid=", HasPID}, {"tid=", HasTID}}

// field returns a pointer to the value of the field f of rec.
func (rec *Record) field(f Has) *int32 {
	switch f {
	case HasCPU:
		return &rec.CPU
	case HasPID:
		return &rec.PID
	}
	return &rec.TID
}

// Time is a sample time on perf's clock (seconds since boot by default), in
// nanoseconds.
type Time int64

// String formats t as perf does: seconds with six decimals, or nine when
// the time has sub-microsecond digits (perf script --ns).
func (t Time) String() string { return string(t.Append(nil)) }

// Append appends t formatted as by String to dst.
func (t Time) Append(dst []byte) []byte {
	v := int64(t)
	if v < 0 {
		dst = append(dst, '-')
		if v == math.MinInt64 {
			return append(dst, "9223372036.854775808"...)
		}
		v = -v
	}
	sec, ns := v/1e9, v%1e9
	dst = strconv.AppendInt(dst, sec, 10)
	dst = append(dst, '.')
	digits := 9
	if ns%1000 == 0 {
		ns /= 1000
		digits = 6
	}
	var frac [9]byte
	for i := digits - 1; i >= 0; i-- {
		frac[i] = byte('0' + ns%10)
		ns /= 10
	}
	return append(dst, frac[:digits]...)
}

var errTime = errors.New("invalid time")

// ParseTime parses seconds with an optional fraction of up to nine digits
// ("696.885404", "12", "0.000000001") into a Time. Digits past nine are
// truncated. A leading '-' is allowed.
func ParseTime(b []byte) (Time, error) {
	neg := false
	if len(b) > 0 && b[0] == '-' {
		neg = true
		b = b[1:]
	}
	if len(b) == 0 {
		return 0, errTime
	}
	var sec, ns int64
	i := 0
	for ; i < len(b) && b[i] != '.'; i++ {
		c := b[i]
		if c < '0' || c > '9' || sec > (math.MaxInt64/1000000000-9)/10 {
			return 0, errTime
		}
		sec = sec*10 + int64(c-'0')
	}
	if i == 0 {
		return 0, errTime
	}
	if i < len(b) { // fraction
		i++
		scale := int64(1e8)
		for ; i < len(b); i++ {
			c := b[i]
			if c < '0' || c > '9' {
				return 0, errTime
			}
			ns += int64(c-'0') * scale
			scale /= 10
		}
	}
	t := Time(sec*1e9 + ns)
	if neg {
		t = -t
	}
	return t, nil
}

// MaxCount is the largest count a folded line may hold: 2^53, below which
// every integer is exactly a float64. Counts are float64 in every flamekit
// tool, and their sums are exact int64 sums while every count is integral
// (see Profile); a count beyond MaxCount would be rounded as it is read
// (99999999999999999999999 becomes 99999999999999991611392), so it is
// refused instead, with a *CountError.
const MaxCount = 1 << 53

// ErrCountRange is what a *CountError is (errors.Is): a count beyond
// MaxCount.
var ErrCountRange = errors.New("count beyond 2^53")

// CountError is a count beyond MaxCount, which no float64 holds exactly.
type CountError struct {
	Count string // the count as written (its start, when very long)
}

func (e *CountError) Error() string {
	return "count " + e.Count + " is beyond 2^53 and cannot be summed exactly"
}

// Is makes errors.Is(err, ErrCountRange) true.
func (e *CountError) Is(target error) bool { return target == ErrCountRange }

// SumError is a sum of counts beyond MaxCount, which a writer refuses to
// write: no folded reader would accept the line, and a float64 would
// round it.
type SumError struct {
	Stack string // the stack whose counts sum beyond MaxCount
	Sum   string // the sum, as exactly as known
}

func (e *SumError) Error() string {
	stack := e.Stack
	if len(stack) > 80 {
		stack = "..." + stack[len(stack)-77:]
	}
	return fmt.Sprintf("the counts of %q sum to %s, beyond 2^53, the largest count a folded reader accepts: not written rather than rounded (cut the input in shorter windows, or give smaller weights)", stack, e.Sum)
}

// Is makes errors.Is(err, ErrCountRange) true.
func (e *SumError) Is(target error) bool { return target == ErrCountRange }

// NewCountError returns the *CountError of the count written as b.
func NewCountError(b []byte) *CountError {
	const max = 40
	if len(b) > max {
		return &CountError{Count: string(b[:max]) + "..."}
	}
	return &CountError{Count: string(b)}
}

// ParseCount parses a count as flamegraph.pl accepts it: digits with an
// optional '.' and optional fraction digits ("12", "12.", "12.5"). Signs,
// exponents and a leading '.' are rejected, and so are counts beyond
// MaxCount (2^53), which a float64 cannot hold exactly: CountSyntax tells
// those from what is no count at all.
func ParseCount(b []byte) (float64, bool) {
	if len(b) == 0 || b[0] < '0' || b[0] > '9' {
		return 0, false
	}
	var n uint64
	i := 0
	for ; i < len(b); i++ {
		c := b[i]
		if c < '0' || c > '9' {
			break
		}
		if n > MaxCount {
			continue // out of range; the rest is only checked
		}
		n = n*10 + uint64(c-'0')
	}
	frac := false
	if i < len(b) {
		if b[i] != '.' {
			return 0, false
		}
		for j := i + 1; j < len(b); j++ {
			if b[j] < '0' || b[j] > '9' {
				return 0, false
			}
			frac = frac || b[j] != '0'
		}
	}
	if n > MaxCount || n == MaxCount && frac {
		return 0, false
	}
	if !frac {
		return float64(n), true
	}
	v, err := strconv.ParseFloat(string(b), 64)
	if err != nil || v > MaxCount {
		return 0, false
	}
	return v, true
}

// CountSyntax reports whether b is written as a count ("12", "12.",
// "12.5"), whatever its size: a count ParseCount refuses although it has
// the syntax of one is beyond MaxCount.
func CountSyntax(b []byte) bool {
	if len(b) == 0 || b[0] < '0' || b[0] > '9' {
		return false
	}
	dot := false
	for _, c := range b {
		switch {
		case c == '.' && !dot:
			dot = true
		case c < '0' || c > '9':
			return false
		}
	}
	return true
}

// countError is the error of a count that does not parse.
func countError(b []byte) error {
	if CountSyntax(b) {
		return NewCountError(b)
	}
	return ErrNoCount
}

// AppendCount appends v formatted as Perl prints a number, but never with
// an exponent (which no folded reader accepts): integers without a
// fraction, exactly, whatever their size; other values rounded to 15
// significant digits ("1.5", "0.3"), as Perl prints them.
func AppendCount(dst []byte, v float64) []byte {
	if v == math.Trunc(v) {
		if math.Abs(v) < 1<<63 {
			return strconv.AppendInt(dst, int64(v), 10)
		}
		if !math.IsInf(v, 0) {
			return strconv.AppendFloat(dst, v, 'f', 0, 64) // exact: reads back as v
		}
	}
	r, err := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 15, 64), 64)
	if err != nil {
		r = v
	}
	return strconv.AppendFloat(dst, r, 'f', -1, 64)
}

// FormatCount returns v formatted as by AppendCount.
func FormatCount(v float64) string { return string(AppendCount(nil, v)) }

// isSpace reports whether c is whitespace as Perl's \s sees it in ASCII.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

// lastField splits b at its last whitespace byte: head is everything before
// that byte, tail everything after it. ok is false when b has no whitespace.
func lastField(b []byte) (head, tail []byte, ok bool) {
	for i := len(b) - 1; i >= 0; i-- {
		if isSpace(b[i]) {
			return b[:i], b[i+1:], true
		}
	}
	return nil, nil, false
}

// Parse errors, wrapped in a *ParseError by the Reader.
var (
	ErrBlank   = errors.New("blank line")
	ErrNoCount = errors.New("no count at the end of the line (want \"stack count\", \"stack count1 count2\" or \"stack count @time\")")
	ErrTime    = errors.New("invalid time after '@' (want seconds such as @696.885404)")
	ErrField   = errors.New("invalid field after the time (want cpu=N, pid=N or tid=N, each at most once, after \"@seconds\")")
	ErrMeta    = errors.New("malformed \"# flamekit\" metadata line")
)

// ParseLine parses one folded line (without its newline; a trailing CR is
// ignored) into rec. Stack shares line's bytes. Metadata lines are not
// accepted here; see ParseMeta. A line that ends in two counts is
// differential, as flamegraph.pl reads it; see ParseLineIn for the lines
// of a stream whose metadata says they are not.
func ParseLine(line []byte, rec *Record) error { return ParseLineIn(line, rec, 0) }

// ParseLineIn is ParseLine for a line of a stream of kind stream, as its
// metadata lines say (Reader): in a Classic or Timed stream, a line that
// is not timed is classic, and a stack that ends in a blank and a number
// ("java;Evil 5 7", the perf-map symbol "Evil 5") is part of the stack.
// For a stream of unknown kind (0) or Diff, two counts make a
// differential line, as in flamegraph.pl.
func ParseLineIn(line []byte, rec *Record, stream Kind) error {
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	if len(line) == 0 {
		return ErrBlank
	}
	head, tail, ok := lastField(line)
	if !ok {
		return ErrNoCount
	}
	var where Record // the optional fields after the time, if any
	for len(tail) > 4 && tail[3] == '=' {
		f, v, err := parseField(tail)
		if err != nil || where.Has&f != 0 {
			return ErrField
		}
		where.Has |= f
		*where.field(f) = v
		if head, tail, ok = lastField(head); !ok {
			return ErrField
		}
	}
	if where.Has != 0 && (len(tail) == 0 || tail[0] != '@') {
		return ErrField
	}
	if len(tail) > 0 && tail[0] == '@' {
		t, err := ParseTime(tail[1:])
		if err != nil {
			return ErrTime
		}
		stack, cnt, ok := lastField(head)
		if !ok {
			return ErrNoCount
		}
		c, ok := ParseCount(cnt)
		if !ok {
			return countError(cnt)
		}
		*rec = Record{Stack: stack, Count: c, Time: t, Kind: Timed,
			CPU: where.CPU, PID: where.PID, TID: where.TID, Has: where.Has}
		return nil
	}
	c, ok := ParseCount(tail)
	if !ok {
		return countError(tail)
	}
	*rec = Record{Stack: head, Count: c, Kind: Classic}
	if stream == Classic || stream == Timed {
		return nil
	}
	if stack, c1, ok := lastCount(head); ok {
		if before, ok := ParseCount(c1); ok {
			rec.Stack, rec.Before, rec.Kind = stack, before, Diff
		} else if CountSyntax(c1) {
			return NewCountError(c1)
		}
	}
	return nil
}

// parseField parses an optional field of a timed line ("cpu=3"): which
// field it is and its value, a decimal that fits an int32 (pid and tid may
// be -1, as perf prints for an unknown thread).
func parseField(b []byte) (Has, int32, error) {
	for _, f := range sampleFields {
		if string(b[:4]) != f.key {
			continue
		}
		v, err := strconv.ParseInt(string(b[4:]), 10, 32)
		if err != nil || b[4] == '+' || (v < 0 && f.has == HasCPU) {
			return 0, 0, ErrField
		}
		return f.has, int32(v), nil
	}
	return 0, 0, ErrField
}

// AppendFields appends the optional fields of a timed record that rec
// carries (" cpu=1 pid=4242 tid=4243", in that order) to dst.
func AppendFields(dst []byte, rec *Record) []byte {
	for _, f := range sampleFields {
		if rec.Has&f.has != 0 {
			dst = append(dst, ' ')
			dst = append(dst, f.key...)
			dst = strconv.AppendInt(dst, int64(*rec.field(f.has)), 10)
		}
	}
	return dst
}

// lastCount is lastField for a last field that may be a count: it scans
// back over digits and dots only, so that a stack without a second count
// (almost every line) costs a few bytes, not a scan of the whole stack.
// ok is false when the bytes before those are not whitespace; what it
// returns then would not parse as a count anyway.
func lastCount(b []byte) (head, tail []byte, ok bool) {
	i := len(b)
	for i > 0 && (b[i-1] >= '0' && b[i-1] <= '9' || b[i-1] == '.') {
		i--
	}
	if i == 0 || !isSpace(b[i-1]) {
		return nil, nil, false
	}
	return b[:i-1], b[i:], true
}

// AppendRecord appends rec as a folded line, with its newline, to dst;
// its stack escaped as AppendStack does.
func AppendRecord(dst []byte, rec *Record) []byte {
	dst, _ = AppendStack(dst, rec.Stack, rec.Kind)
	dst = append(dst, ' ')
	if rec.Kind == Diff {
		dst = AppendCount(dst, rec.Before)
		dst = append(dst, ' ')
	}
	dst = AppendCount(dst, rec.Count)
	if rec.Kind == Timed {
		dst = append(dst, ' ', '@')
		dst = rec.Time.Append(dst)
		dst = AppendFields(dst, rec)
	}
	return append(dst, '\n')
}

// Span tracks the first and last of the times added to it: the span of the
// samples of a stream. The zero value is an empty span.
type Span struct {
	First, Last Time
	OK          bool // at least one time was added
}

// Add widens the span to include t.
func (s *Span) Add(t Time) {
	if !s.OK || t < s.First {
		s.First = t
	}
	if !s.OK || t > s.Last {
		s.Last = t
	}
	s.OK = true
}

// Merge widens s to include o.
func (s *Span) Merge(o Span) {
	if o.OK {
		s.Add(o.First)
		s.Add(o.Last)
	}
}

// SetMeta sets the first and last keys of m to the span, when it is not
// empty.
func (s *Span) SetMeta(m *Meta) {
	if s.OK {
		m.Set(KeyFirst, s.First.String())
		m.Set(KeyLast, s.Last.String())
	}
}
