package svg

import (
	"strings"
	"unicode/utf8"

	"flamekit/internal/base/xmlesc"
)

// Escaping. Everything that comes from input or flags goes through
// internal/base/xmlesc (text and attributes) or one of the functions here
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

// appendCSSString appends a font family name safe for the CSS of a
// <style> element: only characters that cannot end the rule, the element
// or the CDATA-less style text are kept.
func appendCSSString(dst []byte, s string) []byte {
	for _, r := range s {
		switch {
		case r == ' ' || r == ',' || r == '-' || r == '_' || r == '\'' || r == '"' || r == '.':
			dst = append(dst, byte(r))
		case r < 0x80 && ('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'):
			dst = append(dst, byte(r))
		case r >= 0x80 && r != 0xFFFD && xmlesc.Allowed(r):
			dst = append(dst, string(r)...)
		}
	}
	return dst
}

// safeAttrName reports whether name may be written as an extra attribute:
// a plain XML name that is not an event handler (on...), so that a
// --nameattr file cannot make the SVG run code.
func safeAttrName(name string) bool {
	if name == "" || strings.HasPrefix(strings.ToLower(name), "on") {
		return false
	}
	for i, c := range []byte(name) {
		ok := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' || c == ':' ||
			i > 0 && ('0' <= c && c <= '9' || c == '-' || c == '.')
		if !ok {
			return false
		}
	}
	return true
}

// safeHref reports whether a link target runs no code when followed.
func safeHref(href string) bool {
	h := strings.ToLower(strings.Map(func(r rune) rune {
		if r <= ' ' {
			return -1
		}
		return r
	}, href))
	for _, bad := range []string{"javascript:", "vbscript:", "data:"} {
		if strings.HasPrefix(h, bad) {
			return false
		}
	}
	return true
}
