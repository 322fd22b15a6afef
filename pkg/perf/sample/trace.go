package sample

import (
	"bytes"
	"strconv"
)

// Trace is a tracepoint record as a binary reader holds it: the record's
// raw data and the format that decodes it. It gives the fields of the
// record typed (Field), and the values the rules read from the payload
// text (Int, Word) without printing the payload; the payload is printed
// only when asked for (AppendPayload). The zero Trace (Format nil) is a
// sample without one: its fields, if any, are in Sample.Payload.
type Trace struct {
	// Format decodes Raw; nil when the sample has no Trace.
	Format TraceFormat
	// Raw is the record's raw data (PERF_SAMPLE_RAW): the tracepoint's
	// fields at the offsets of its format file.
	Raw []byte
	// Aux holds what the reader resolved when it read the record and
	// the format needs to print it (the kernel symbols of %pS
	// arguments), in the format's own encoding; often nil.
	Aux []byte
}

// TraceFormat decodes the records of one tracepoint. pkg/perf/perfdata
// implements it from the tracepoint's format file. Its methods may be
// called from several goroutines at once.
type TraceFormat interface {
	// Field returns the field name of t's record, typed.
	Field(t *Trace, name string) (Value, bool)
	// Int returns what FieldInt reads for name in the printed payload,
	// without printing it when the payload prints the field as a plain
	// number. form is the form the payload holds the field in: '=' for
	// "name=value", ':' for "name: value" (the system call events), 0
	// when it holds neither (ok is then false).
	Int(t *Trace, name string) (n int64, form byte, ok bool)
	// Word appends to dst the word the payload prints for name (see
	// Sample.Word) and returns it as the last bytes of the result
	// (word = result[len(dst):]), with the form as for Int.
	Word(dst []byte, t *Trace, name string) (result []byte, form byte)
	// PositionInt returns what Position.Int reads at p of the printed
	// payload, without printing it when the payload's tokens up to p
	// are known from the print format.
	PositionInt(t *Trace, p Position) (int64, bool)
	// AppendPayload appends the payload as perf script prints it.
	AppendPayload(dst []byte, t *Trace) []byte
}

// Value is a tracepoint field, typed.
type Value struct {
	// Int is a numeric field's value, sign-extended when the field is
	// signed; an unsigned 64-bit field is held bit for bit.
	Int int64
	// Bytes is an array field: a char array or a __data_loc string up
	// to its first NUL, any other array whole.
	Bytes   []byte
	IsBytes bool
}

// Field returns the field name of the record, typed; false when the
// tracepoint has no such field (or t has no Format).
func (t *Trace) Field(name string) (Value, bool) {
	if t.Format == nil {
		return Value{}, false
	}
	return t.Format.Field(t, name)
}

// Int returns the payload field name as the text rules read it: see
// TraceFormat.Int.
func (t *Trace) Int(name string) (int64, byte, bool) {
	if t.Format == nil {
		return 0, 0, false
	}
	return t.Format.Int(t, name)
}

// AppendPayload appends the payload as perf script prints it; nothing
// when t has no Format.
func (t *Trace) AppendPayload(dst []byte) []byte {
	if t.Format == nil {
		return dst
	}
	return t.Format.AppendPayload(dst, t)
}

// Position is where a payload that prints its fields by position, not as
// "name=value", shows one (see BlockPosition): the payload's Index-th
// blank-separated token, counted from its first "+" token when FromPlus
// (-1 is the token before it), else from its start; either way the
// payload must hold a "+" token.
type Position struct {
	Index    int
	FromPlus bool
}

// BlockPosition returns the position of field name in the payload of
// event when it is a block event's, which perf prints by position
// ("254,0 RA 4096 () 321615200 + 8 0x2,0,4 [link]" for block_rq_issue:
// dev, rwbs, bytes, cmd, sector + nr_sector, ioprio, comm): sector and
// nr_sector around the "+", bytes third in the request events that print
// it first (block_rq_issue, block_rq_insert); false for any other.
func BlockPosition(event []byte, name string) (Position, bool) {
	if !bytes.HasPrefix(event, []byte("block:")) {
		return Position{}, false
	}
	switch {
	case name == "sector":
		return Position{Index: -1, FromPlus: true}, true
	case name == "nr_sector":
		return Position{Index: 1, FromPlus: true}, true
	case name == "bytes" && (string(event) == "block:block_rq_issue" || string(event) == "block:block_rq_insert"):
		return Position{Index: 2}, true
	}
	return Position{}, false
}

// Token returns the token of payload at p (see Position).
func (p Position) Token(payload []byte) ([]byte, bool) {
	toks := bytes.Fields(payload)
	plus := -1
	for i, t := range toks {
		if len(t) == 1 && t[0] == '+' {
			plus = i
			break
		}
	}
	i := p.Index
	if p.FromPlus {
		i += plus
	}
	if plus < 0 || i < 0 || i >= len(toks) {
		return nil, false
	}
	return toks[i], true
}

// Int reads the token of payload at p as an integer, as Sample.Int reads
// a field's first word (see WordInt).
func (p Position) Int(payload []byte) (int64, bool) {
	tok, ok := p.Token(payload)
	if !ok {
		return 0, false
	}
	return WordInt(FirstWord(tok))
}

// PositionInt returns the payload's token at p as an integer (see
// Position.Int). A sample with a Trace is not printed for it: the value
// comes from the raw record (TraceFormat.PositionInt).
func (s *Sample) PositionInt(p Position) (int64, bool) {
	if s.Payload == nil && s.Trace.Format != nil {
		return s.Trace.Format.PositionInt(&s.Trace, p)
	}
	return p.Int(s.Payload)
}

// AppendPayload appends the sample's payload text to dst: Payload, or
// the Trace printed as perf script prints it.
func (s *Sample) AppendPayload(dst []byte) []byte {
	if s.Payload != nil || s.Trace.Format == nil {
		return append(dst, s.Payload...)
	}
	return s.Trace.AppendPayload(dst)
}

// Int returns the payload field name as an integer, read as the folding
// rules read it from the printed payload: the first word of a
// "name=value" field, else of a "name: value" one (the system call
// events), trailing comma dropped, decimal or hexadecimal with 0x (see
// WordInt). A sample with a Trace is not printed for it: the value comes
// from the raw record (form says which form the payload has the field
// in, 0 for neither). Events that print their fields by position (the
// block events) are read with PositionInt.
func (s *Sample) Int(name string) (n int64, form byte, ok bool) {
	if name == "" {
		return 0, 0, false // no field is nameless ("0 : 0" holds none)
	}
	if s.Payload == nil && s.Trace.Format != nil {
		return s.Trace.Format.Int(&s.Trace, name)
	}
	v, ok := Field(s.Payload, name)
	form = '='
	if !ok {
		v, ok = ColonField(s.Payload, name)
		form = ':'
	}
	if !ok {
		return 0, 0, false
	}
	n, ok = WordInt(FirstWord(v))
	return n, form, ok
}

// Word appends to dst the first word of the payload's "name=value"
// field ("S" of "prev_state=S ==> next_comm=…") and returns the result
// and whether the payload has the field; the word is
// result[len(dst):]. A sample with a Trace prints that word alone.
func (s *Sample) Word(dst []byte, name string) ([]byte, bool) {
	if name == "" {
		return dst, false
	}
	if s.Payload == nil && s.Trace.Format != nil {
		out, form := s.Trace.Format.Word(dst, &s.Trace, name)
		if form != '=' {
			return dst, false
		}
		return out, true
	}
	v, ok := Field(s.Payload, name)
	if !ok {
		return dst, false
	}
	return append(dst, FirstWord(v)...), true
}

// FirstWord returns v up to its first blank.
func FirstWord(v []byte) []byte {
	if i := bytes.IndexByte(v, ' '); i >= 0 {
		return v[:i]
	}
	return v
}

// WordInt reads a payload word as an integer as the folding rules do: a
// trailing comma dropped, then decimal, or hexadecimal with 0x (octal
// with a leading 0, as strconv reads it); false for anything else and for
// values beyond int64.
func WordInt(v []byte) (int64, bool) {
	v = bytes.TrimSuffix(v, []byte(","))
	if n, ok := decimal(v); ok {
		return n, true // pids, sizes, delays: no string to allocate
	}
	n, err := strconv.ParseInt(string(v), 0, 64)
	if err != nil {
		u, uerr := strconv.ParseUint(string(v), 0, 64)
		if uerr != nil || u > 1<<63-1 {
			return 0, false
		}
		n = int64(u)
	}
	return n, true
}

// decimal parses v when it is a plain non-negative decimal of at most 18
// digits, the form of nearly every field read per sample; ok is false
// otherwise, and strconv decides.
func decimal(v []byte) (n int64, ok bool) {
	if len(v) == 0 || len(v) > 18 || len(v) > 1 && v[0] == '0' {
		return 0, false // empty, possibly too large, or octal/hex for strconv
	}
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

// ColonField finds "name: value" in a payload, the form of the syscalls
// events ("fd: 0x00000003, buf: 0x7ffd52a0, count: 0x00002000"): the
// text after the blanks that follow "name:", to the end of the payload.
// "name:" must start the payload or follow a blank, and be followed by a
// blank.
func ColonField(payload []byte, name string) ([]byte, bool) {
	key := name + ":"
	for at := 0; at < len(payload); {
		i := bytes.Index(payload[at:], []byte(key))
		if i < 0 {
			return nil, false
		}
		i += at
		end := i + len(key)
		if (i == 0 || payload[i-1] == ' ') && end < len(payload) && payload[end] == ' ' {
			return bytes.TrimLeft(payload[end:], " "), true
		}
		at = end
	}
	return nil, false
}
