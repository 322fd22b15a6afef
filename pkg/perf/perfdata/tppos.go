package perfdata

import (
	"bytes"
	"strings"
	"unicode"
	"unicode/utf8"

	"flamekit/pkg/perf/sample"
)

// This file reads the fields a payload shows by position, not as
// "name=value" (the block events: "8,0 WS 4096 () 2048 + 8 none,0,0 [dd]"
// for block_rq_issue), from the record, as sample.Position reads them from
// the text: the blank-separated tokens of the payload, counted from its
// start or from its first "+" token.
//
// The tokens are those of the print format (buildPos), once every
// conversion is taken to print a chunk of visible ASCII other than '+':
// numbers do, whatever the record; a string does when it holds no blank
// and no '+' (rwbs "WS", a comm), and may be empty inside a token that
// holds more ("()" of an empty cmd). The conversions up to the token read
// are checked on each record (a string printed alone, a number not at
// all); the token itself, when it is one number conversion, is read from
// the record as Int reads a plain number, else printed alone. A record
// whose strings break the model is printed whole and read as text. One
// the print format fails on prints as name=value fields, where a "+" token
// can only come from a string holding a '+'.

// posModel is the tokens of a print format's output (see above).
type posModel struct {
	tokens []posToken
	plus   int // the first "+" token, -1 when none
}

// posToken is one token of a posModel.
type posToken struct {
	// conv is the segment of the conversion the token is, alone; -1
	// when it holds literal text or several conversions.
	conv int
	// upTo is the last conversion segment of the tokens up to this one
	// (-1: none): those a record must print as the model says.
	upTo int
	// pieces make the token: literal text, and conversions (seg >= 0).
	pieces []posPiece
}

// posPiece is a piece of a token: literal text, or conversion seg.
type posPiece struct {
	lit string
	seg int
}

// posConv says what a conversion may print in a posModel.
const (
	posNumber    = iota // a number: always a chunk of the model
	posString           // checked on each record, never empty
	posStringOpt        // checked on each record, may be empty
)

// buildPos returns the token model of segs.
func buildPos(segs []printSeg) (*posModel, []uint8) {
	var text []byte // the model's output: conversions print "x"
	var segOf []int // the segment of each byte of text
	for i := range segs {
		if segs[i].conv == 0 {
			text = append(text, segs[i].lit...)
			for range len(segs[i].lit) {
				segOf = append(segOf, -1)
			}
			continue
		}
		text = append(text, 'x')
		segOf = append(segOf, i)
	}
	m := &posModel{plus: -1}
	kinds := make([]uint8, len(segs))
	upTo := -1
	for at := 0; at < len(text); {
		r, n := utf8.DecodeRune(text[at:])
		if unicode.IsSpace(r) {
			at += n
			continue
		}
		start := at
		for at < len(text) {
			r, n := utf8.DecodeRune(text[at:])
			if unicode.IsSpace(r) {
				break
			}
			at += n
		}
		tok := posToken{conv: -1}
		// other: the token holds a literal byte other than '+', and
		// only ASCII ones (an empty string between two bytes of a
		// multibyte blank would make it).
		convs, other, ascii := 0, false, true
		for j := start; j < at; j++ {
			switch {
			case segOf[j] >= 0:
				convs++
				upTo = max(upTo, segOf[j])
			case text[j] >= utf8.RuneSelf:
				ascii = false
			case text[j] != '+':
				other = true
			}
		}
		other = other && ascii
		if convs == 1 && at-start == 1 {
			tok.conv = segOf[start]
		}
		for j := start; j < at; {
			k := j + 1
			if segOf[j] < 0 {
				for k < at && segOf[k] < 0 {
					k++
				}
				tok.pieces = append(tok.pieces, posPiece{lit: string(text[j:k]), seg: -1})
			} else {
				tok.pieces = append(tok.pieces, posPiece{seg: segOf[j]})
			}
			j = k
		}
		for j := start; j < at; j++ {
			if s := segOf[j]; s >= 0 {
				kinds[s] = posKind(&segs[s], other)
			}
		}
		tok.upTo = upTo
		if at-start == 1 && text[start] == '+' && m.plus < 0 {
			m.plus = len(m.tokens)
		}
		m.tokens = append(m.tokens, tok)
	}
	return m, kinds
}

// posKind returns what conversion s may print: a number of no width and
// no space flag prints digits (and a sign or prefix), whatever the record;
// anything else is checked on each record, and may be empty when its
// token holds another literal byte than '+' (other).
func posKind(s *printSeg, other bool) uint8 {
	if strings.IndexByte("duxXo", s.conv) >= 0 && s.width == 0 && strings.IndexByte(s.flags, ' ') < 0 {
		return posNumber
	}
	if other {
		return posStringOpt
	}
	return posString
}

// PositionInt is sample.TraceFormat's PositionInt.
func (f *tpFormat) PositionInt(t *sample.Trace, p sample.Position) (int64, bool) {
	n, ok, typed := f.position(t, p)
	if !typed {
		return f.textPosition(t, p)
	}
	return n, ok
}

// position reads the token at p from the record; typed is false when the
// record does not print as the token model says: the payload must be
// printed and read as text.
func (f *tpFormat) position(t *sample.Trace, p sample.Position) (n int64, ok, typed bool) {
	m := f.show.pos
	if m == nil || !f.runs(t.Raw) {
		// Printed as name=value fields: a "+" token comes only from a
		// string holding one.
		for i := range f.fields {
			fd := &f.fields[i]
			if fd.array && bytes.IndexByte(fieldBytes(t.Raw, fd), '+') >= 0 {
				return 0, false, false
			}
		}
		return 0, false, true
	}
	i := p.Index
	if p.FromPlus {
		i += m.plus
	}
	if m.plus < 0 || i < 0 || i >= len(m.tokens) {
		// No such token, if the record prints as the model says.
		return 0, false, f.posFits(t, len(f.prog.segs)-1)
	}
	tok := &m.tokens[i]
	if !f.posFits(t, m.tokens[max(i, m.plus)].upTo) {
		return 0, false, false
	}
	if tok.conv < 0 {
		// The token's literal text and conversions, printed alone.
		var wb [128]byte
		w := wb[:0]
		for _, pc := range tok.pieces {
			if pc.seg < 0 {
				w = append(w, pc.lit...)
				continue
			}
			var printed bool
			if w, printed = f.printConv(w, t, pc.seg); !printed {
				return 0, false, false
			}
		}
		n, ok = sample.WordInt(sample.FirstWord(w))
		return n, ok, true
	}
	s := &f.prog.segs[tok.conv]
	if plainDecimal(s) && numeric(s.arg) {
		// As Int reads a plain decimal (planDirect).
		n, ok = directInt(number(s.arg, t.Raw), s.conv, s.size)
		return n, ok, true
	}
	var wb [64]byte
	w, printed := f.printConv(wb[:0], t, tok.conv)
	if !printed {
		return 0, false, false
	}
	n, ok = sample.WordInt(w)
	return n, ok, true
}

// posFits reports whether the record prints the conversions of segments
// up to upTo as the token model says (see buildPos).
func (f *tpFormat) posFits(t *sample.Trace, upTo int) bool {
	kinds := f.show.posKinds
	var wb [64]byte
	for i := 0; i <= upTo; i++ {
		if f.prog.segs[i].conv == 0 || kinds[i] == posNumber {
			continue
		}
		w, ok := f.printConv(wb[:0], t, i)
		if !ok || len(w) == 0 && kinds[i] == posString {
			return false
		}
		for _, c := range w {
			if c <= ' ' || c >= 0x7f || c == '+' {
				return false
			}
		}
	}
	return true
}

// printConv appends what conversion segment i prints of the record.
func (f *tpFormat) printConv(dst []byte, t *sample.Trace, i int) ([]byte, bool) {
	var sb [128]byte
	scratch := sb[:0]
	return f.prog.segs[i].print(dst, t.Raw, &scratch, t.Aux)
}

// textPosition reads the token at p of the printed payload, as the text
// path does.
func (f *tpFormat) textPosition(t *sample.Trace, p sample.Position) (int64, bool) {
	var pb [512]byte
	return p.Int(f.AppendPayload(pb[:0], t))
}
