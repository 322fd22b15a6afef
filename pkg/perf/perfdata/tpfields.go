package perfdata

import (
	"bytes"
	"slices"
	"strings"
	"sync/atomic"

	"flamekit/pkg/perf/sample"
)

// This file gives a tracepoint's fields to the folding rules without
// printing the payload and parsing it again: *tpFormat is the
// sample.TraceFormat of the samples' sample.Trace.
//
// The rules read the payload as text: the first word after "name=" (or
// "name: "), a number in whatever form the print format gave it
// ("prev_pid=19275", "count: 0x00002000", "prev_state=R+"). To give them
// exactly what the text gives, each format is looked at once
// (buildShow): for every name its print format prints as "name=" or
// "name: ", where the value starts (a plan). A value the format prints as
// the plain decimal (or 0x hexadecimal) of a field is then read from the
// raw record; any other is printed alone, from its plan, up to its first
// blank. A format whose output the plans could misread (a literal glued
// to a conversion, a string constant holding '=' or ':') is printed whole
// and read as text, as are odd records (see runs). The one blind spot is
// the text path's: a string field whose bytes look like a field token
// (a comm "x pid=1") fools the text, not the plans.

// Kinds of plans.
const (
	planWord   = iota // print the value alone, from seg/off
	planDirect        // the plain decimal of field (conv 'd' or 'u')
	planHex           // "0x" then the zero-padded hexadecimal of field
	planText          // print the payload and read it as text
)

var _ sample.TraceFormat = (*tpFormat)(nil)

// showPlan is where the payload shows a field's value.
type showPlan struct {
	kind  uint8
	form  byte      // '=' or ':'
	seg   int       // the segment the value starts in
	off   int       // the offset in that segment's literal
	size  int       // planDirect, planHex: the conversion's operand size
	conv  byte      // planDirect: 'd' or 'u'
	field *tpField  // of the fields form
	arg   *node     // planDirect, planHex of the print format: a numeric node
	memo  *wordMemo // planWord of the print format: its words, by value
}

// wordMemo keeps the words of a value whose printing reads a single
// numeric field (sched_switch's prev_state: "S", "D", "R+"), by the
// field's value: printing it goes through __print_flags. Readers of
// several goroutines share it; a new word replaces the map by a copy.
type wordMemo struct {
	field *tpField
	words atomic.Pointer[map[uint64]string]
}

// maxMemo bounds a memo: a field of many values is printed each time.
const maxMemo = 64

// memoFor returns the memo of a word that starts in segment i, nil when
// its printing may read more than one field, a string or a symbol, or is
// cheap (no __print_flags, __print_symbolic or ternary). The
// word ends at the first blank, at the latest in the first literal after
// it that holds one.
func memoFor(segs []printSeg, i, off int) *wordMemo {
	var only *tpField
	ok, costly := true, false
	for j := i; j < len(segs) && ok; j++ {
		s := &segs[j]
		if s.conv == 0 {
			lit := s.lit
			if j == i {
				lit = lit[off:]
			}
			if strings.IndexByte(lit, ' ') >= 0 {
				break
			}
			continue
		}
		if s.conv == 'F' || s.conv == 'f' {
			return nil
		}
		costly = costly || hasKind(s.arg, nFlags, nSymbolic, nCond)
		walkFields(s.arg, func(fd *tpField) {
			if fd.array || only != nil && only != fd {
				ok = false
			}
			only = fd
		})
	}
	if !ok || only == nil || !costly {
		return nil
	}
	return &wordMemo{field: only}
}

// hasKind reports whether n holds a node of one of the kinds.
func hasKind(n *node, kinds ...nodeKind) bool {
	if n == nil {
		return false
	}
	return slices.Contains(kinds, n.kind) || hasKind(n.a, kinds...) || hasKind(n.b, kinds...) || hasKind(n.c, kinds...)
}

// showInfo is what buildShow learnt of a format.
type showInfo struct {
	prog   planSet // of records printed by the print format
	fields planSet // of records printed as name=value fields
	// text says the print format's output is read as text, whole.
	text bool
	// minLen, dyn and mayFail say which records the print format may
	// fail on (see runs).
	minLen  int
	dyn     []*tpField
	mayFail bool
	// pos is the print format's tokens, posKinds what each conversion
	// may print in them, for the fields read by position (tppos.go).
	pos      *posModel
	posKinds []uint8
}

// buildShow makes f's plans.
func buildShow(f *tpFormat) *showInfo {
	si := &showInfo{}
	for i := range f.fields {
		fd := &f.fields[i]
		if _, ok := si.fields.find(fd.name); ok || !ident(fd.name) {
			continue // the text sees no field token
		}
		p := showPlan{kind: planWord, form: '=', field: fd}
		if !fd.array && !fd.pointer && (fd.signed && !(fd.long && fd.size == 4) || !fd.signed && !fd.long) {
			p.kind = planDirect // printed in decimal by appendFieldValue
		}
		si.fields = append(si.fields, namedPlan{fd.name, p})
	}
	if f.prog == nil {
		return si
	}
	segs := f.prog.segs
	si.pos, si.posKinds = buildPos(segs)
	for i := range segs {
		s := &segs[i]
		if s.conv == 0 {
			continue
		}
		if s.conv == 'c' || strConst(s.arg) {
			si.text = true // it could print "=", ":" or a field token
		}
		walkFields(s.arg, func(fd *tpField) {
			si.minLen = max(si.minLen, fd.offset+fd.size)
			if fd.dynamic {
				si.dyn = append(si.dyn, fd)
			}
		})
		si.mayFail = si.mayFail || mayFail(s.arg)
	}
	eq, colon := map[string]showPlan{}, map[string]showPlan{}
	for i := range segs {
		lit := segs[i].lit
		if segs[i].conv != 0 {
			continue
		}
		if i > 0 && lit != "" && (lit[0] == '=' || lit[0] == ':') {
			// What the conversion before printed is a token's name
			// ("work struct %p: function %ps").
			si.text = true
		}
		for j := 0; j < len(lit); j++ {
			c := lit[j]
			if c != '=' && c != ':' {
				continue
			}
			k := j
			for k > 0 && isIdentByte(lit[k-1]) {
				k--
			}
			if k == j {
				continue
			}
			if k == 0 && i > 0 {
				// The name is glued to what the conversion before
				// printed: where the token starts depends on it.
				si.text = true
				continue
			}
			if k > 0 && lit[k-1] != ' ' {
				continue
			}
			name := lit[k:j]
			if c == '=' {
				if _, ok := eq[name]; !ok {
					eq[name] = plan(segs, i, j+1, '=')
				}
				continue
			}
			if _, ok := colon[name]; ok {
				continue
			}
			switch {
			case j+1 == len(lit):
				// Whether a blank follows depends on the next
				// conversion.
				colon[name] = showPlan{kind: planText, form: ':'}
			case lit[j+1] == ' ':
				colon[name] = plan(segs, i, j+1, ':')
			}
		}
	}
	for name, p := range colon {
		if _, ok := eq[name]; !ok {
			eq[name] = p
		}
	}
	for name, p := range eq {
		si.prog = append(si.prog, namedPlan{name, p})
	}
	slices.SortFunc(si.prog, func(a, b namedPlan) int { return strings.Compare(a.name, b.name) })
	return si
}

// namedPlan is the plan of a name.
type namedPlan struct {
	name string
	plan showPlan
}

// planSet holds the plans of a format's names: few, so a slice searched
// in order is quicker than a map.
type planSet []namedPlan

// find returns the plan of name.
func (ps planSet) find(name string) (showPlan, bool) {
	for i := range ps {
		if len(ps[i].name) == len(name) && ps[i].name == name {
			return ps[i].plan, true
		}
	}
	return showPlan{}, false
}

// ident reports whether name can be a field token's: [A-Za-z0-9_]+.
func ident(name string) bool {
	for i := range len(name) {
		if !isIdentByte(name[i]) {
			return false
		}
	}
	return name != ""
}

// plan returns the plan of a value that starts at offset off of the
// literal segs[i].
func plan(segs []printSeg, i, off int, form byte) showPlan {
	p := showPlan{kind: planWord, form: form, seg: i, off: off}
	if form == '=' {
		p.memo = memoFor(segs, i, off)
	}
	rest := segs[i].lit[off:]
	if form == ':' {
		rest = string(bytes.TrimLeft([]byte(rest), " "))
	}
	if i+1 >= len(segs) {
		return p
	}
	s := &segs[i+1]
	if !numeric(s.arg) {
		return p
	}
	// What follows must end the word for the text path as it ends
	// the number here.
	if i+2 < len(segs) {
		next := segs[i+2].lit
		last := i+3 == len(segs)
		if segs[i+2].conv != 0 || !strings.HasPrefix(next, " ") && !strings.HasPrefix(next, ", ") && !(next == "," && last) {
			return p
		}
	}
	switch {
	case rest == "" && plainDecimal(s):
		p.kind, p.conv = planDirect, s.conv
	case rest == "0x" && s.conv == 'x' && (s.flags == "0" || s.flags == "" && s.width == 0) && s.prec < 0:
		p.kind = planHex
	default:
		return p
	}
	p.arg, p.size = s.arg, s.size
	return p
}

// numeric reports whether n is a numeric field, under casts or not
// ("((unsigned long)(REC->count))" of the system calls).
func numeric(n *node) bool {
	for n != nil && n.kind == nCast {
		n = n.a
	}
	return n != nil && n.kind == nField && !n.field.array
}

// number evaluates a numeric node (see numeric) over raw.
func number(n *node, raw []byte) uint64 {
	if n.kind == nField {
		return fieldNum(raw, n.field)
	}
	var none []byte
	v, _ := eval(n, raw, &none) // runs checked the record
	return v.n
}

// strConst reports whether n holds a string constant with '=' or ':' (a
// printed flag or symbol name, a literal in a ternary).
func strConst(n *node) bool {
	if n == nil {
		return false
	}
	if n.kind == nStr && bytes.ContainsAny([]byte(n.str), "=:") {
		return true
	}
	for _, fl := range n.names {
		if bytes.ContainsAny([]byte(fl.str), "=:") {
			return true
		}
	}
	if n.kind == nFlags && bytes.ContainsAny([]byte(n.delim), "=:") {
		return true
	}
	return strConst(n.a) || strConst(n.b) || strConst(n.c)
}

// walkFields calls fn for every field n reads.
func walkFields(n *node, fn func(*tpField)) {
	if n == nil {
		return
	}
	if n.kind == nField {
		fn(n.field)
	}
	walkFields(n.a, fn)
	walkFields(n.b, fn)
	walkFields(n.c, fn)
}

// mayString reports whether n may evaluate to a string.
func mayString(n *node) bool {
	switch n.kind {
	case nStr, nFlags, nSymbolic:
		return true
	case nField:
		return n.field.array
	case nCast:
		return mayString(n.a)
	case nCond:
		return mayString(n.b) || mayString(n.c)
	}
	return false
}

// mayFail reports whether eval may fail on n for a record that holds
// every field n reads: a number expected and a string met, a division
// by a value that may be 0.
func mayFail(n *node) bool {
	switch n.kind {
	case nCast:
		return mayFail(n.a)
	case nUnary, nFlags, nSymbolic:
		return mayString(n.a) || mayFail(n.a)
	case nCond:
		return mayString(n.a) || mayFail(n.a) || mayFail(n.b) || mayFail(n.c)
	case nBinary:
		if mayString(n.a) || mayString(n.b) || mayFail(n.a) || mayFail(n.b) {
			return true
		}
		if n.op == "/" || n.op == "%" {
			d, ok := constant(n.b)
			return !ok || d == 0
		}
	}
	return false
}

// runs reports whether f's print format prints raw (else the payload is
// raw's fields, name=value).
func (f *tpFormat) runs(raw []byte) bool {
	if f.prog == nil {
		return false
	}
	si := f.show
	ok := len(raw) >= si.minLen
	for _, fd := range si.dyn {
		ok = ok && fieldBytes(raw, fd) != nil
	}
	if ok && !si.mayFail {
		return true
	}
	// Not sure: a field it reads may be in a branch not taken.
	var sb [256]byte
	scratch := sb[:0]
	for i := range f.prog.segs {
		s := &f.prog.segs[i]
		if s.conv == 0 {
			continue
		}
		if _, ok := eval(s.arg, raw, &scratch); !ok {
			return false
		}
	}
	return true
}

// How a record's payload is printed.
const (
	byText   = iota // print it whole and read it as text
	byFields        // name=value fields (appendFields)
	byProg          // the print format
)

// plans returns the plans of raw's payload and how it is printed (nil
// plans when it is read as text).
func (f *tpFormat) plans(raw []byte) (planSet, int) {
	if !f.runs(raw) {
		return f.show.fields, byFields
	}
	if f.show.text {
		return nil, byText
	}
	return f.show.prog, byProg
}

// Field is sample.TraceFormat's Field: the field of t.Raw, common fields
// included, typed.
func (f *tpFormat) Field(t *sample.Trace, name string) (sample.Value, bool) {
	for _, list := range [][]tpField{f.fields, f.common} {
		for i := range list {
			fd := &list[i]
			if fd.name != name {
				continue
			}
			b := fieldBytes(t.Raw, fd)
			if b == nil {
				return sample.Value{}, false
			}
			if fd.array {
				if fd.str {
					b = cBytes(b)
				}
				return sample.Value{Bytes: b, IsBytes: true}, true
			}
			return sample.Value{Int: int64(readNum(b, fd.signed))}, true
		}
	}
	return sample.Value{}, false
}

// cBytes returns b up to its first NUL.
func cBytes(b []byte) []byte {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		return b[:i]
	}
	return b
}

// Int is sample.TraceFormat's Int.
func (f *tpFormat) Int(t *sample.Trace, name string) (int64, byte, bool) {
	plans, by := f.plans(t.Raw)
	if by == byText {
		return f.textInt(t, name)
	}
	p, ok := plans.find(name)
	if !ok {
		return 0, 0, false
	}
	switch p.kind {
	case planDirect:
		if by == byFields {
			v := fieldNum(t.Raw, p.field)
			// appendFieldValue: signed in decimal, else unsigned.
			if !p.field.signed && v > 1<<63-1 {
				return 0, p.form, false
			}
			return int64(v), p.form, true
		}
		n, ok := directInt(number(p.arg, t.Raw), p.conv, p.size)
		return n, p.form, ok
	case planHex:
		v := number(p.arg, t.Raw)
		if p.size < 8 {
			v &= 1<<(8*p.size) - 1
		}
		if v > 1<<63-1 {
			return 0, p.form, false
		}
		return int64(v), p.form, true
	case planText:
		return f.textInt(t, name)
	}
	var wb [128]byte
	w, ok := f.word(wb[:0], t, by, p)
	if !ok || p.form == '=' && badEnd(w) {
		return f.textInt(t, name)
	}
	n, ok := sample.WordInt(w)
	return n, p.form, ok
}

// plainDecimal reports whether s is a %d or %u conversion of no flag,
// width or precision: it prints what Int reads back as the number.
func plainDecimal(s *printSeg) bool {
	return (s.conv == 'd' || s.conv == 'u') && s.flags == "" && s.width == 0 && s.prec < 0
}

// directInt returns what a plainDecimal conversion conv of operand size
// prints of v, read as Int reads it; false when it exceeds an int64.
func directInt(v uint64, conv byte, size int) (int64, bool) {
	switch {
	case conv == 'd':
		return signExtend(v, size), true
	case size < 8:
		return int64(v & (1<<(8*size) - 1)), true
	case v > 1<<63-1:
		return 0, false
	}
	return int64(v), true
}

// signExtend reads the low size bytes of v as a signed number.
func signExtend(v uint64, size int) int64 {
	switch size {
	case 1:
		return int64(int8(v))
	case 2:
		return int64(int16(v))
	case 4:
		return int64(int32(v))
	}
	return int64(v)
}

// badEnd reports whether a word of a "name=" value may differ from the
// text path's: that path removes trailing tabs and CRs from the value
// (which runs up to the next field token), which the word may end with.
func badEnd(w []byte) bool {
	return len(w) > 0 && (w[len(w)-1] == '\t' || w[len(w)-1] == '\r')
}

// Word is sample.TraceFormat's Word.
func (f *tpFormat) Word(dst []byte, t *sample.Trace, name string) ([]byte, byte) {
	plans, by := f.plans(t.Raw)
	if by != byText {
		p, ok := plans.find(name)
		if !ok {
			return dst, 0
		}
		if p.kind != planText {
			out, ok := f.word(dst, t, by, p)
			if ok && !(p.form == '=' && badEnd(out[len(dst):])) {
				return out, p.form
			}
		}
	}
	return f.textWord(dst, t, name)
}

// word appends the word plan p says for t, printed by by: the value
// printed alone up to its first blank.
func (f *tpFormat) word(dst []byte, t *sample.Trace, by int, p showPlan) (out []byte, ok bool) {
	start := len(dst)
	if by == byFields {
		dst = appendFieldValue(dst, p.field, t.Raw)
		if i := bytes.IndexByte(dst[start:], ' '); i >= 0 {
			return dst[:start+i], true
		}
		return dst, true
	}
	if p.memo == nil {
		return f.printWord(dst, t, p)
	}
	key := fieldNum(t.Raw, p.memo.field)
	words := p.memo.words.Load()
	if words != nil {
		if w, ok := (*words)[key]; ok {
			return append(dst, w...), true
		}
	}
	out, ok = f.printWord(dst, t, p)
	if ok && (words == nil || len(*words) < maxMemo) {
		m := make(map[uint64]string)
		if words != nil {
			for k, v := range *words {
				m[k] = v
			}
		}
		m[key] = string(out[start:])
		p.memo.words.Store(&m)
	}
	return out, ok
}

// printWord prints the word of plan p of the print format for t.
func (f *tpFormat) printWord(dst []byte, t *sample.Trace, p showPlan) (out []byte, ok bool) {
	start := len(dst)
	var sb [128]byte
	scratch := sb[:0]
	segs := f.prog.segs
	from := start // where the word starts, once found (colon form: after blanks)
	lead := p.form == ':'
	for i := p.seg; i < len(segs); i++ {
		s := &segs[i]
		if s.conv == 0 {
			lit := s.lit
			if i == p.seg {
				lit = lit[p.off:]
			}
			dst = append(dst, lit...)
		} else {
			scratch = scratch[:0]
			if dst, ok = s.print(dst, t.Raw, &scratch, t.Aux); !ok {
				return dst[:start], false
			}
		}
		if lead {
			for from < len(dst) && dst[from] == ' ' {
				from++
			}
			if from == len(dst) {
				continue
			}
			lead = false
		}
		if j := bytes.IndexByte(dst[from:], ' '); j >= 0 {
			return append(dst[:start], dst[from:from+j]...), true
		}
	}
	return append(dst[:start], dst[from:]...), true
}

// AppendPayload is sample.TraceFormat's AppendPayload: the print format
// evaluated, else the fields as name=value.
func (f *tpFormat) AppendPayload(dst []byte, t *sample.Trace) []byte {
	if f.prog != nil {
		var sb [256]byte
		scratch := sb[:0]
		start := len(dst)
		out, ok := f.prog.run(dst, t.Raw, &scratch, t.Aux)
		if ok {
			return out
		}
		dst = out[:start]
	}
	return appendFields(dst, f, t.Raw)
}

// textInt reads name from the printed payload, as the text path does.
func (f *tpFormat) textInt(t *sample.Trace, name string) (int64, byte, bool) {
	var pb [512]byte
	payload := f.AppendPayload(pb[:0], t)
	s := sample.Sample{Payload: payload}
	if len(payload) == 0 {
		return 0, 0, false
	}
	return s.Int(name)
}

// textWord appends the word name has in the printed payload.
func (f *tpFormat) textWord(dst []byte, t *sample.Trace, name string) ([]byte, byte) {
	var pb [512]byte
	payload := f.AppendPayload(pb[:0], t)
	if v, ok := sample.Field(payload, name); ok {
		return append(dst, sample.FirstWord(v)...), '='
	}
	if v, ok := sample.ColonField(payload, name); ok {
		return append(dst, sample.FirstWord(v)...), ':'
	}
	return dst, 0
}
