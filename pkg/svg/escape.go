package svg

import (
	"unicode/utf8"
)

// Escaping. Everything that comes from input or flags goes through one of
// these before it reaches the SVG: frame names, titles, tooltips, notes,
// nameattr values. Bytes that are not valid UTF-8 and characters XML 1.0
// forbids (C0 controls but tab, newline and carriage return; U+FFFE, U+FFFF)
// become U+FFFD, so the document is always well-formed.

const replacement = "\uFFFD"

// xmlAllowed reports whether r may appear in an XML 1.0 document.
func xmlAllowed(r rune) bool {
	switch {
	case r == '\t' || r == '\n' || r == '\r':
		return true
	case r < 0x20:
		return false
	case r == 0xFFFE || r == 0xFFFF:
		return false
	}
	return true
}

// appendEscaped appends s to dst escaped for XML character data (attr
// false) or a double-quoted attribute value (attr true). In text, '"' is
// escaped too, as flamegraph.pl does in tooltips, when quot is set.
func appendEscaped(dst []byte, s string, attr, quot bool) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '&':
				dst = append(dst, "&amp;"...)
			case c == '<':
				dst = append(dst, "&lt;"...)
			case c == '>':
				dst = append(dst, "&gt;"...)
			case c == '"' && (attr || quot):
				dst = append(dst, "&quot;"...)
			case attr && c == '\t':
				dst = append(dst, "&#9;"...)
			case attr && c == '\n':
				dst = append(dst, "&#10;"...)
			case c == '\r':
				dst = append(dst, "&#13;"...)
			case !xmlAllowed(rune(c)) || c == 0x7F:
				dst = append(dst, replacement...)
			default:
				dst = append(dst, c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && n == 1) || !xmlAllowed(r) {
			dst = append(dst, replacement...)
		} else {
			dst = append(dst, s[i:i+n]...)
		}
		i += n
	}
	return dst
}

// escText returns s escaped for character data.
func escText(dst []byte, s string) []byte { return appendEscaped(dst, s, false, false) }

// escAttr returns s escaped for a double-quoted attribute value.
func escAttr(dst []byte, s string) []byte { return appendEscaped(dst, s, true, true) }

// appendComment appends s made safe for the inside of an XML comment:
// nothing is entity-escaped there (entities are not interpreted), but
// invalid characters are replaced, and "--" and a final "-", which would
// end or break the comment, are split with a blank.
func appendComment(dst []byte, s string) []byte {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case (r == utf8.RuneError && n == 1) || !xmlAllowed(r):
			dst = append(dst, replacement...)
		case r == '-':
			dst = append(dst, '-')
			if i+1 == len(s) || s[i+1] == '-' {
				dst = append(dst, ' ')
			}
		default:
			dst = append(dst, s[i:i+n]...)
		}
		i += n
	}
	return dst
}

// appendJSString appends s as a JavaScript string literal that is safe
// inside a CDATA section of an SVG <script>: '<', '>' and '&' are written
// as \u escapes, so neither "]]>" nor "</script>" can appear.
func appendJSString(dst []byte, s string) []byte { return appendJS(dst, s, false) }

// appendJSName is appendJSString for a frame name the script writes into
// the document: the characters XML forbids become U+FFFD, as in the
// elements written by Render, so that both show the same name.
func appendJSName(dst []byte, s string) []byte { return appendJS(dst, s, true) }

func appendJS(dst []byte, s string, xml bool) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				dst = append(dst, '\\', c)
			case xml && (c == 0x7F || !xmlAllowed(rune(c))):
				dst = append(dst, `\ufffd`...)
			case c < 0x20 || c == '<' || c == '>' || c == '&' || c == 0x7F:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&15])
			default:
				dst = append(dst, c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1, r == 0xFFFE, r == 0xFFFF:
			dst = append(dst, `\ufffd`...)
		case r == 0x2028 || r == 0x2029:
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[r&15])
		default:
			dst = append(dst, s[i:i+n]...)
		}
		i += n
	}
	return append(dst, '"')
}
