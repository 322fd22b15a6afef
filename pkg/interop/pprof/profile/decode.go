package profile

import (
	"errors"
	"fmt"
)

// The numbers of the fields of profile.proto's Profile message, for
// encoders too.
const (
	FieldSampleType        = 1
	FieldSample            = 2
	FieldMapping           = 3
	FieldLocation          = 4
	FieldFunction          = 5
	FieldStringTable       = 6
	FieldDropFrames        = 7
	FieldKeepFrames        = 8
	FieldTimeNanos         = 9
	FieldDurationNanos     = 10
	FieldPeriodType        = 11
	FieldPeriod            = 12
	FieldComment           = 13
	FieldDefaultSampleType = 14
	FieldDocURL            = 15
)

// Protocol buffers' wire types.
const (
	wireVarint  = 0
	wireFixed64 = 1
	wireBytes   = 2
	wireFixed32 = 5
)

// Faults of the encoding, each a *wireError where it is found.
var (
	errTruncated = &wireError{errors.New("truncated message")}
	errVarint    = &wireError{errors.New("varint longer than 10 bytes")}
	errConcat    = &wireError{errors.New("a second time_nanos: profiles concatenated, which are not read")}
)

// wireError is a fault in the protocol buffers encoding.
type wireError struct{ err error }

func (e *wireError) Error() string { return "not a valid profile.proto: " + e.err.Error() }
func (e *wireError) Unwrap() error { return e.err }

// wireFault returns a fault of the encoding.
func wireFault(format string, a ...any) error {
	return &wireError{fmt.Errorf(format, a...)}
}

// pbField is one field of a protocol buffers message: its number, its
// wire type, and its value (u for varints and fixed-size values, b for
// length-delimited ones, which points into the message).
type pbField struct {
	num int
	typ int
	u   uint64
	b   []byte
}

// pbReader reads the fields of one message in order.
type pbReader struct {
	data []byte
	pos  int
}

func (r *pbReader) more() bool { return r.pos < len(r.data) }

func (r *pbReader) uvarint() (uint64, error) {
	var x uint64
	for shift := uint(0); shift < 70; shift += 7 {
		if r.pos >= len(r.data) {
			return 0, errTruncated
		}
		c := r.data[r.pos]
		r.pos++
		x |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return x, nil
		}
	}
	return 0, errVarint
}

func (r *pbReader) fixed(n int) (uint64, error) {
	if len(r.data)-r.pos < n {
		return 0, errTruncated
	}
	var x uint64
	for i := n - 1; i >= 0; i-- {
		x = x<<8 | uint64(r.data[r.pos+i])
	}
	r.pos += n
	return x, nil
}

// next reads the next field.
func (r *pbReader) next() (f pbField, err error) {
	key, err := r.uvarint()
	if err != nil {
		return f, err
	}
	f.num, f.typ = int(min(key>>3, 1<<30)), int(key&7) // numbers past 2^29 are no field's
	switch f.typ {
	case wireVarint:
		f.u, err = r.uvarint()
	case wireFixed64:
		f.u, err = r.fixed(8)
	case wireFixed32:
		f.u, err = r.fixed(4)
	case wireBytes:
		var n uint64
		if n, err = r.uvarint(); err == nil {
			if n > uint64(len(r.data)-r.pos) {
				return f, errTruncated
			}
			f.b = r.data[r.pos : r.pos+int(n)]
			r.pos += int(n)
		}
	default:
		err = wireFault("field %d has wire type %d, which profile.proto does not use", f.num, f.typ)
	}
	return f, err
}

// eachUint calls fn with each value of a repeated integer field, one
// value (unpacked) or a packed run of varints.
func eachUint(f pbField, fn func(uint64)) error {
	switch f.typ {
	case wireVarint:
		fn(f.u)
		return nil
	case wireBytes:
		r := pbReader{data: f.b}
		for r.more() {
			v, err := r.uvarint()
			if err != nil {
				return err
			}
			fn(v)
		}
		return nil
	}
	return wireFault("field %d: an integer with wire type %d", f.num, f.typ)
}

// wantUint checks that a singular integer field is a varint.
func wantUint(f pbField) (uint64, error) {
	if f.typ != wireVarint {
		return 0, wireFault("field %d: an integer with wire type %d", f.num, f.typ)
	}
	return f.u, nil
}

// wantBytes checks that a field is length-delimited.
func wantBytes(f pbField) ([]byte, error) {
	if f.typ != wireBytes {
		return nil, wireFault("field %d: a message or string with wire type %d", f.num, f.typ)
	}
	return f.b, nil
}

// decoder holds a profile's string table and its messages, which may come
// in any order, until they are resolved into a Profile.
type decoder struct {
	strs []string
	// The messages of each kind, undecoded.
	sampleTypes, samples, mappings, locations, functions [][]byte
	periodType                                           []byte
	comments                                             []uint64
	drop, keep, defaultType, docURL                      uint64
	p                                                    Profile
}

// Decode parses an uncompressed profile.proto. Errors from the wire
// format say so ("not a valid profile.proto"); others are those of a
// well-formed message that breaks profile.proto's rules ("malformed
// profile"), as google/pprof's profile.Parse and CheckValid tell them.
func Decode(data []byte) (*Profile, error) {
	var d decoder
	if err := d.scan(data); err != nil {
		return nil, err
	}
	if err := d.resolve(); err != nil {
		return nil, err
	}
	return &d.p, nil
}

// malformed is a well-encoded profile that breaks profile.proto's rules.
func malformed(format string, a ...any) error {
	return fmt.Errorf("malformed profile: "+format, a...)
}

// scan reads the top-level fields, keeping the messages for resolve.
func (d *decoder) scan(data []byte) error {
	r := pbReader{data: data}
	for r.more() {
		f, err := r.next()
		if err != nil {
			return err
		}
		var b []byte
		var u uint64
		switch f.num {
		case FieldSampleType, FieldSample, FieldMapping, FieldLocation, FieldFunction, FieldStringTable, FieldPeriodType:
			b, err = wantBytes(f)
		case FieldDropFrames, FieldKeepFrames, FieldTimeNanos, FieldDurationNanos, FieldPeriod, FieldDefaultSampleType, FieldDocURL:
			u, err = wantUint(f)
		case FieldComment:
			err = eachUint(f, func(v uint64) { d.comments = append(d.comments, v) })
		}
		if err != nil {
			return err
		}
		switch f.num {
		case FieldSampleType:
			d.sampleTypes = append(d.sampleTypes, b)
		case FieldSample:
			d.samples = append(d.samples, b)
		case FieldMapping:
			d.mappings = append(d.mappings, b)
		case FieldLocation:
			d.locations = append(d.locations, b)
		case FieldFunction:
			d.functions = append(d.functions, b)
		case FieldStringTable:
			d.strs = append(d.strs, string(b))
		case FieldPeriodType:
			d.periodType = b
		case FieldDropFrames:
			d.drop = u
		case FieldKeepFrames:
			d.keep = u
		case FieldTimeNanos:
			if d.p.TimeNanos != 0 {
				return errConcat
			}
			d.p.TimeNanos = int64(u)
		case FieldDurationNanos:
			d.p.DurationNanos = int64(u)
		case FieldPeriod:
			d.p.Period = int64(u)
		case FieldDefaultSampleType:
			d.defaultType = u
		case FieldDocURL:
			d.docURL = u
		}
	}
	return nil
}

// str returns string i of the table.
func (d *decoder) str(i uint64) (string, error) {
	if i >= uint64(len(d.strs)) {
		return "", malformed("string index %d, the string table has %d", i, len(d.strs))
	}
	return d.strs[i], nil
}

// strField sets *dst to the string a field indexes, checking its type.
func (d *decoder) strField(f pbField, dst *string) error {
	i, err := wantUint(f)
	if err != nil {
		return err
	}
	*dst, err = d.str(i)
	return err
}

// resolve decodes the messages scan kept, in the order their references
// need: functions and mappings, then locations, then samples.
func (d *decoder) resolve() error {
	if len(d.strs) == 0 || d.strs[0] != "" {
		return malformed("string_table[0] must be ''")
	}
	p := &d.p
	var err error
	for _, s := range []struct {
		i   uint64
		dst *string
	}{{d.drop, &p.DropFrames}, {d.keep, &p.KeepFrames}, {d.defaultType, &p.DefaultSampleType}, {d.docURL, &p.DocURL}} {
		if *s.dst, err = d.str(s.i); err != nil {
			return err
		}
	}
	for _, c := range d.comments {
		s, err := d.str(c)
		if err != nil {
			return err
		}
		p.Comments = append(p.Comments, s)
	}
	for _, b := range d.sampleTypes {
		vt, err := d.valueType(b)
		if err != nil {
			return err
		}
		p.SampleType = append(p.SampleType, vt)
	}
	// An absent period_type is an empty one, as in profile.Parse.
	if p.PeriodType, err = d.valueType(d.periodType); err != nil {
		return err
	}
	functions, err := decodeAll(d, d.functions, (*decoder).function, func(f *Function) uint64 { return f.ID }, "function")
	if err != nil {
		return err
	}
	mappings, err := decodeAll(d, d.mappings, (*decoder).mapping, func(m *Mapping) uint64 { return m.ID }, "mapping")
	if err != nil {
		return err
	}
	p.Function, p.Mapping = functions.all, mappings.all
	locate := func(b []byte) (*Location, error) { return d.location(b, mappings, functions) }
	locations, err := decodeAll(d, d.locations, func(_ *decoder, b []byte) (*Location, error) { return locate(b) }, func(l *Location) uint64 { return l.ID }, "location")
	if err != nil {
		return err
	}
	p.Location = locations.all
	if len(d.samples) > 0 && len(p.SampleType) == 0 {
		return malformed("samples without sample types")
	}
	p.Sample = make([]*Sample, 0, len(d.samples))
	for i, b := range d.samples {
		s, err := d.sample(b, locations)
		if err != nil {
			return err
		}
		if len(s.Value) != len(p.SampleType) {
			return malformed("sample %d has %d values, the profile %d sample types", i, len(s.Value), len(p.SampleType))
		}
		p.Sample = append(p.Sample, s)
	}
	return nil
}

// byID finds the messages of one kind by their ids: by position when the
// ids are 1, 2, 3... (as every encoder writes them), else in a map.
type byID[T any] struct {
	all   []*T
	dense bool
	m     map[uint64]*T
}

func (x *byID[T]) get(id uint64) *T {
	if x.dense {
		if id-1 < uint64(len(x.all)) {
			return x.all[id-1]
		}
		return nil
	}
	return x.m[id]
}

// decodeAll decodes the messages msgs with dec, and indexes them by id;
// an id of 0 or one used twice is an error, as in CheckValid.
func decodeAll[T any](d *decoder, msgs [][]byte, dec func(*decoder, []byte) (*T, error), id func(*T) uint64, kind string) (*byID[T], error) {
	x := &byID[T]{all: make([]*T, 0, len(msgs)), dense: true}
	for i, b := range msgs {
		v, err := dec(d, b)
		if err != nil {
			return nil, err
		}
		n := id(v)
		if n == 0 {
			return nil, malformed("found %s with reserved ID=0", kind)
		}
		if x.dense && n != uint64(i+1) {
			x.dense = false
			x.m = make(map[uint64]*T, len(msgs))
			for j, w := range x.all {
				x.m[uint64(j+1)] = w
			}
		}
		if !x.dense {
			if x.m[n] != nil {
				return nil, malformed("multiple %ss with same id: %d", kind, n)
			}
			x.m[n] = v
		}
		x.all = append(x.all, v)
	}
	return x, nil
}

// fields calls fn with each field of message b.
func fields(b []byte, fn func(pbField) error) error {
	r := pbReader{data: b}
	for r.more() {
		f, err := r.next()
		if err != nil {
			return err
		}
		if err := fn(f); err != nil {
			return err
		}
	}
	return nil
}

// uintField sets *dst to a varint field's value.
func uintField(f pbField, dst *uint64) error {
	v, err := wantUint(f)
	*dst = v
	return err
}

// intField sets *dst to a varint field's value as an int64.
func intField(f pbField, dst *int64) error {
	var v uint64
	err := uintField(f, &v)
	*dst = int64(v)
	return err
}

// boolField sets *dst to whether a varint field is not 0.
func boolField(f pbField, dst *bool) error {
	var v uint64
	err := uintField(f, &v)
	*dst = v != 0
	return err
}

func (d *decoder) valueType(b []byte) (*ValueType, error) {
	vt := &ValueType{}
	err := fields(b, func(f pbField) error {
		switch f.num {
		case 1:
			return d.strField(f, &vt.Type)
		case 2:
			return d.strField(f, &vt.Unit)
		}
		return nil
	})
	return vt, err
}

func (d *decoder) function(b []byte) (*Function, error) {
	fn := &Function{}
	err := fields(b, func(f pbField) error {
		switch f.num {
		case 1:
			return uintField(f, &fn.ID)
		case 2:
			return d.strField(f, &fn.Name)
		case 3:
			return d.strField(f, &fn.SystemName)
		case 4:
			return d.strField(f, &fn.Filename)
		case 5:
			return intField(f, &fn.StartLine)
		}
		return nil
	})
	return fn, err
}

func (d *decoder) mapping(b []byte) (*Mapping, error) {
	m := &Mapping{}
	err := fields(b, func(f pbField) error {
		switch f.num {
		case 1:
			return uintField(f, &m.ID)
		case 2:
			return uintField(f, &m.Start)
		case 3:
			return uintField(f, &m.Limit)
		case 4:
			return uintField(f, &m.Offset)
		case 5:
			return d.strField(f, &m.File)
		case 6:
			return d.strField(f, &m.BuildID)
		case 7:
			return boolField(f, &m.HasFunctions)
		case 8:
			return boolField(f, &m.HasFilenames)
		case 9:
			return boolField(f, &m.HasLineNumbers)
		case 10:
			return boolField(f, &m.HasInlineFrames)
		}
		return nil
	})
	return m, err
}

// location decodes a Location; its mapping id names a mapping when it
// is in the profile (an unknown one leaves Mapping nil, as in
// profile.Parse), its lines' function ids must name functions.
func (d *decoder) location(b []byte, mappings *byID[Mapping], functions *byID[Function]) (*Location, error) {
	l := &Location{}
	err := fields(b, func(f pbField) error {
		switch f.num {
		case 1:
			return uintField(f, &l.ID)
		case 2:
			var id uint64
			if err := uintField(f, &id); err != nil {
				return err
			}
			l.Mapping = mappings.get(id)
		case 3:
			return uintField(f, &l.Address)
		case 4:
			b, err := wantBytes(f)
			if err != nil {
				return err
			}
			ln, fid, err := d.line(b)
			if err != nil {
				return err
			}
			if ln.Function = functions.get(fid); ln.Function == nil {
				return malformed("location has a line with function id %d, which no function has", fid)
			}
			l.Line = append(l.Line, ln)
		case 5:
			return boolField(f, &l.IsFolded)
		}
		return nil
	})
	return l, err
}

// line decodes a Line and the id of its function.
func (d *decoder) line(b []byte) (ln Line, fid uint64, err error) {
	err = fields(b, func(f pbField) error {
		switch f.num {
		case 1:
			return uintField(f, &fid)
		case 2:
			return intField(f, &ln.Line)
		case 3:
			return intField(f, &ln.Column)
		}
		return nil
	})
	return ln, fid, err
}

// sample decodes a Sample; its location ids must name locations.
func (d *decoder) sample(b []byte, locations *byID[Location]) (*Sample, error) {
	s := &Sample{}
	var missing uint64
	err := fields(b, func(f pbField) error {
		switch f.num {
		case 1:
			return eachUint(f, func(id uint64) {
				l := locations.get(id)
				if l == nil && missing == 0 {
					missing = id
					if id == 0 {
						missing = 1<<64 - 1
					}
				}
				s.Location = append(s.Location, l)
			})
		case 2:
			return eachUint(f, func(v uint64) { s.Value = append(s.Value, int64(v)) })
		case 3:
			b, err := wantBytes(f)
			if err != nil {
				return err
			}
			return d.label(b, s)
		}
		return nil
	})
	s.padUnits()
	if err == nil && missing != 0 {
		if missing == 1<<64-1 {
			missing = 0
		}
		err = malformed("a sample has location id %d, which no location has", missing)
	}
	return s, err
}

// label decodes a Label into s's maps as profile.Parse does: a string
// label when str is set, else a number when num or num_unit is, else
// nothing; a number's units line up with its values ("" where a value
// had none).
func (d *decoder) label(b []byte, s *Sample) error {
	var keyX, strX, num, unitX uint64
	err := fields(b, func(f pbField) error {
		switch f.num {
		case 1:
			return uintField(f, &keyX)
		case 2:
			return uintField(f, &strX)
		case 3:
			return uintField(f, &num)
		case 4:
			return uintField(f, &unitX)
		}
		return nil
	})
	if err != nil {
		return err
	}
	key, err := d.str(keyX)
	if err != nil {
		return err
	}
	switch {
	case strX != 0:
		str, err := d.str(strX)
		if err != nil {
			return err
		}
		if s.Label == nil {
			s.Label = map[string][]string{}
		}
		s.Label[key] = append(s.Label[key], str)
	case num != 0 || unitX != 0:
		if s.NumLabel == nil {
			s.NumLabel = map[string][]int64{}
		}
		if unitX != 0 {
			unit, err := d.str(unitX)
			if err != nil {
				return err
			}
			if s.NumUnit == nil {
				s.NumUnit = map[string][]string{}
			}
			s.NumUnit[key] = append(pad(s.NumUnit[key], len(s.NumLabel[key])), unit)
		}
		s.NumLabel[key] = append(s.NumLabel[key], int64(num))
	}
	return nil
}

// pad lengthens units with "" to n.
func pad(units []string, n int) []string {
	for len(units) < n {
		units = append(units, "")
	}
	return units
}

// padUnits lines every number label's units up with its values.
func (s *Sample) padUnits() {
	for k, u := range s.NumUnit {
		s.NumUnit[k] = pad(u, len(s.NumLabel[k]))
	}
}
