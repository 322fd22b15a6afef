package svg

import (
	"unicode/utf8"

	"flamekit/internal/xmlesc"
)

// Escaping. Everything that comes from input or flags goes through
// internal/xmlesc (text and attributes) or one of the functions here
// (comments, script strings) before it reaches the SVG: frame names,
// titles, tooltips, notes, nameattr values.

// appendComment appends s made safe for the inside of an XML comment:
// nothing is entity-escaped there (entities are not interpreted), but
// invalid characters are replaced, and "--" and a final "-", which would
// end or break the comment, are split with a blank.
func appendComment(dst []byte, s string) []byte {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case (r == utf8.RuneError && n == 1) || !xmlesc.Allowed(r):
			dst = append(dst, xmlesc.Replacement...)
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
			case xml && (c == 0x7F || !xmlesc.Allowed(rune(c))):
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
