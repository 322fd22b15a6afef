package source

// Protocol buffer wire types.
const (
	wireVarint = 0
	wire64     = 1
	wireLen    = 2
	wire32     = 5
)

// profileFields gives the wire type of each field of pprof's Profile
// message (profile.proto): 1 sample_type, 2 sample, 3 mapping, 4 location,
// 5 function, 6 string_table, 11 period_type (messages or strings); 7
// drop_frames, 8 keep_frames, 9 time_nanos, 10 duration_nanos, 12 period,
// 13 comment, 14 default_sample_type, 15 doc_url (integers; comment may be
// packed).
var profileFields = [...]int{
	1: wireLen, 2: wireLen, 3: wireLen, 4: wireLen, 5: wireLen, 6: wireLen,
	7: wireVarint, 8: wireVarint, 9: wireVarint, 10: wireVarint,
	11: wireLen, 12: wireVarint, 13: wireVarint, 14: wireVarint, 15: wireVarint,
}

// isProfileProto reports whether b starts like a serialised Profile: a
// run of well-formed fields of the Profile message, nothing contradicting
// the schema up to the end of b (a field may run past the end of b, which
// is only the head of the input), and among the fields read sample types
// (field 1) or the string table (field 6), or else at least three whole
// fields.
func isProfileProto(b []byte) bool {
	fields := 0 // whole fields read
	known := false
	enough := func() bool { return known || fields >= 3 }
	for len(b) > 0 {
		key, n := varint(b)
		if n < 0 {
			return false
		}
		if n == 0 {
			return enough() // cut inside the last key
		}
		b = b[n:]
		num, wire := key>>3, int(key&7)
		if num == 0 || num >= uint64(len(profileFields)) {
			return false
		}
		want := profileFields[num]
		if num == 13 && wire == wireLen { // packed comments
			want = wireLen
		}
		if wire != want {
			return false
		}
		if num == 1 || num == 6 {
			known = true
		}
		switch wire {
		case wireVarint:
			_, n := varint(b)
			if n < 0 {
				return false
			}
			if n == 0 {
				return enough()
			}
			b = b[n:]
		case wireLen:
			l, n := varint(b)
			if n < 0 {
				return false
			}
			if n == 0 || l > uint64(len(b)-n) {
				return enough() && l < 1<<40 // runs past the head
			}
			b = b[n+int(l):]
		}
		fields++
	}
	return enough()
}

// varint decodes a protocol buffer varint at the start of b. n is the
// number of bytes read, 0 when b ends inside the varint, and -1 when it is
// longer than 10 bytes.
func varint(b []byte) (v uint64, n int) {
	for i := 0; i < len(b); i++ {
		if i == 10 {
			return 0, -1
		}
		v |= uint64(b[i]&0x7f) << (7 * i)
		if b[i] < 0x80 {
			return v, i + 1
		}
	}
	return 0, 0
}
