package perfdata

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// tracingData is what the tracing-data feature holds that the reader uses:
// the format of every tracepoint recorded, by id.
type tracingData struct {
	byID map[uint64]*tpFormat
}

// tpField is one field of a tracepoint's format file:
//
//	field:char prev_comm[16];	offset:8;	size:16;	signed:0;
type tpField struct {
	name     string
	typ      string // C type without the name and array suffix
	offset   int
	size     int
	signed   bool
	array    bool // name[N] or a __data_loc / __rel_loc array
	dynamic  bool // __data_loc: a u32 (length << 16 | offset) in the record
	relative bool // __rel_loc: offset relative to the end of the field
	str      bool // an array of char: a string
	long     bool // the type is long or unsigned long
	pointer  bool
}

// tpFormat is a tracepoint's format file, parsed.
type tpFormat struct {
	system, name string
	id           uint64
	fields       []tpField // without the common_ fields
	common       []tpField
	printFmt     string
	prog         *printProg // nil when the print format is not understood
	show         *showInfo  // where the payload shows each field (tpfields.go)
}

var tracingMagic = []byte("\x17\x08\x44tracing")

// parseTracingData reads the tracing-data feature (perf's
// tracing_data_get layout): a magic and version, endianness, long and page
// sizes, the header_page and header_event files, the ftrace formats, the
// event formats per system, then kallsyms, printk formats and saved
// cmdlines, which are not needed.
func parseTracingData(b []byte) (*tracingData, error) {
	if !bytes.HasPrefix(b, tracingMagic) {
		return nil, errors.New("tracing data: bad magic")
	}
	c := cursor{b: b, off: len(tracingMagic)}
	c.cstr() // version
	if c.u8() != 0 {
		return nil, errors.New("tracing data: big-endian")
	}
	c.u8()  // sizeof(long)
	c.u32() // page size
	for _, tag := range []string{"header_page", "header_event"} {
		if c.cstr() != tag {
			return nil, errors.New("tracing data: no " + tag)
		}
		n := c.u64()
		if n > uint64(c.left()) {
			return nil, errShort
		}
		c.skip(int(n))
	}
	// ftrace formats
	for n := c.u32(); n > 0 && !c.bad; n-- {
		sz := c.u64()
		if sz > uint64(c.left()) {
			return nil, errShort
		}
		c.skip(int(sz))
	}
	td := &tracingData{byID: map[uint64]*tpFormat{}}
	for nsys := c.u32(); nsys > 0 && !c.bad; nsys-- {
		sys := c.cstr()
		for n := c.u32(); n > 0 && !c.bad; n-- {
			sz := c.u64()
			if sz > uint64(c.left()) {
				return nil, errShort
			}
			f := parseFormat(sys, string(c.bytes(int(sz))))
			if f != nil {
				td.byID[f.id] = f
			}
		}
	}
	if c.bad {
		return nil, errShort
	}
	return td, nil
}

// parseFormat parses one tracepoint format file; nil when it has no id.
func parseFormat(system, text string) *tpFormat {
	f := &tpFormat{system: system}
	hasID := false
	for _, line := range strings.Split(text, "\n") {
		t := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(t, "name:"):
			f.name = strings.TrimSpace(t[len("name:"):])
		case strings.HasPrefix(t, "ID:"):
			id, err := strconv.ParseUint(strings.TrimSpace(t[len("ID:"):]), 10, 64)
			if err == nil {
				f.id, hasID = id, true
			}
		case strings.HasPrefix(t, "field:"):
			if fd, ok := parseField(t); ok {
				if strings.HasPrefix(fd.name, "common_") {
					f.common = append(f.common, fd)
				} else {
					f.fields = append(f.fields, fd)
				}
			}
		case strings.HasPrefix(t, "print fmt:"):
			f.printFmt = strings.TrimSpace(t[len("print fmt:"):])
		}
	}
	if !hasID {
		return nil
	}
	f.prog = compilePrint(f)
	f.show = buildShow(f)
	return f
}

// parseField parses "field:TYPE NAME;	offset:N;	size:N;	signed:N;".
func parseField(line string) (tpField, bool) {
	var fd tpField
	parts := strings.Split(line, ";")
	if len(parts) < 3 {
		return fd, false
	}
	decl := strings.TrimSpace(strings.TrimPrefix(parts[0], "field:"))
	for _, p := range parts[1:] {
		k, v, ok := strings.Cut(strings.TrimSpace(p), ":")
		if !ok {
			continue
		}
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			continue
		}
		switch k {
		case "offset":
			fd.offset = n
		case "size":
			fd.size = n
		case "signed":
			fd.signed = n != 0
		}
	}
	if fd.offset < 0 || fd.size < 0 || fd.offset > 1<<16 || fd.size > 1<<16 {
		return fd, false
	}
	// The name is the last identifier of the declaration, before any
	// array suffix.
	if strings.HasPrefix(decl, "__data_loc ") {
		fd.dynamic, fd.array = true, true
		decl = strings.TrimPrefix(decl, "__data_loc ")
	} else if strings.HasPrefix(decl, "__rel_loc ") {
		fd.dynamic, fd.relative, fd.array = true, true, true
		decl = strings.TrimPrefix(decl, "__rel_loc ")
	}
	base := decl
	if i := strings.IndexByte(decl, '['); i >= 0 {
		fd.array = true
		base = strings.TrimSpace(decl[:i])
		// "__data_loc char[] name": the brackets come before the name.
		if j := strings.IndexByte(decl, ']'); j > i && j+1 < len(decl) && strings.TrimSpace(decl[j+1:]) != "" {
			base = strings.TrimSpace(decl[:i]) + " " + strings.TrimSpace(decl[j+1:])
		}
	}
	k := strings.LastIndexAny(base, " *")
	if k < 0 {
		return fd, false
	}
	fd.name = strings.TrimSpace(base[k+1:])
	fd.typ = strings.TrimSpace(base[:k+1])
	if fd.name == "" {
		return fd, false
	}
	fd.pointer = strings.HasSuffix(fd.typ, "*")
	fd.str = fd.array && strings.Contains(fd.typ, "char")
	fd.long = fd.typ == "long" || fd.typ == "unsigned long"
	return fd, true
}

// fieldBytes returns the bytes of field f in the raw record data.
func fieldBytes(raw []byte, f *tpField) []byte {
	if f.offset+f.size > len(raw) {
		return nil
	}
	if !f.dynamic {
		return raw[f.offset : f.offset+f.size]
	}
	if f.size < 4 {
		return nil
	}
	v := uint32(raw[f.offset]) | uint32(raw[f.offset+1])<<8 | uint32(raw[f.offset+2])<<16 | uint32(raw[f.offset+3])<<24
	off, n := int(v&0xffff), int(v>>16)
	if f.relative {
		off += f.offset + f.size
	}
	if off+n > len(raw) {
		return nil
	}
	return raw[off : off+n]
}

// fieldNum reads a numeric field as a u64 (sign-extended when signed).
func fieldNum(raw []byte, f *tpField) uint64 {
	b := fieldBytes(raw, f)
	return readNum(b, f.signed)
}

func readNum(b []byte, signed bool) uint64 {
	var v uint64
	switch len(b) {
	case 1:
		v = uint64(b[0])
		if signed {
			v = uint64(int64(int8(b[0])))
		}
	case 2:
		u := uint16(b[0]) | uint16(b[1])<<8
		v = uint64(u)
		if signed {
			v = uint64(int64(int16(u)))
		}
	case 4:
		u := uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
		v = uint64(u)
		if signed {
			v = uint64(int64(int32(u)))
		}
	case 8:
		for i := 7; i >= 0; i-- {
			v = v<<8 | uint64(b[i])
		}
	}
	return v
}

// appendFields renders the fields of a tracepoint record as libtraceevent
// does when it prints fields without the print format: blank-separated
// name=value tokens.
func appendFields(dst []byte, f *tpFormat, raw []byte) []byte {
	for i := range f.fields {
		fd := &f.fields[i]
		if i > 0 {
			dst = append(dst, ' ')
		}
		dst = append(dst, fd.name...)
		dst = append(dst, '=')
		dst = appendFieldValue(dst, fd, raw)
	}
	return dst
}

func appendFieldValue(dst []byte, fd *tpField, raw []byte) []byte {
	b := fieldBytes(raw, fd)
	if fd.array {
		if fd.str && printable(b) {
			return append(dst, cString(b)...)
		}
		dst = append(dst, "ARRAY["...)
		for i, c := range b {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			dst = append(dst, hexDigits[c>>4], hexDigits[c&15])
		}
		return append(dst, ']')
	}
	v := readNum(b, fd.signed)
	switch {
	case fd.pointer:
		dst = append(dst, "0x"...)
		return strconv.AppendUint(dst, v, 16)
	case fd.signed:
		if fd.long && fd.size == 4 {
			dst = append(dst, "0x"...)
			return strconv.AppendUint(dst, uint64(uint32(v)), 16)
		}
		return strconv.AppendInt(dst, int64(v), 10)
	case fd.long:
		dst = append(dst, "0x"...)
		return strconv.AppendUint(dst, v, 16)
	}
	return strconv.AppendUint(dst, v, 10)
}

const hexDigits = "0123456789abcdef"

// printable reports whether b, up to its first NUL, holds only printable
// characters and blanks (libtraceevent's is_printable_array).
func printable(b []byte) bool {
	for _, c := range b {
		if c == 0 {
			break
		}
		if (c < 0x20 || c >= 0x7f) && !(c >= '\t' && c <= '\r') {
			return false
		}
	}
	return true
}

// tracefsFormats reads, from the tracefs directories dirs (the first that
// has an events directory), the format files of the tracepoints whose ids
// are in want: what a capture's lost tracing-data section held, when it
// was recorded on this kernel. nil when none is found.
func tracefsFormats(dirs []string, want map[uint64]bool) *tracingData {
	for _, dir := range dirs {
		systems, err := os.ReadDir(filepath.Join(dir, "events"))
		if err != nil {
			continue
		}
		td := &tracingData{byID: map[uint64]*tpFormat{}}
		for _, sys := range systems {
			if !sys.IsDir() {
				continue
			}
			sdir := filepath.Join(dir, "events", sys.Name())
			events, err := os.ReadDir(sdir)
			if err != nil {
				continue
			}
			for _, ev := range events {
				if !ev.IsDir() {
					continue
				}
				b, err := os.ReadFile(filepath.Join(sdir, ev.Name(), "id"))
				if err != nil {
					continue
				}
				id, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
				if err != nil || !want[id] {
					continue
				}
				text, err := os.ReadFile(filepath.Join(sdir, ev.Name(), "format"))
				if err != nil {
					continue
				}
				if f := parseFormat(sys.Name(), string(text)); f != nil && f.id == id {
					td.byID[id] = f
				}
			}
		}
		if len(td.byID) > 0 {
			return td
		}
		return nil
	}
	return nil
}
