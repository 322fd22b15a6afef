// Package xmlesc escapes untrusted text for the SVG documents flamekit
// writes (flame graphs and heat maps). Bytes that are not valid UTF-8 and
// characters XML 1.0 forbids (C0 controls but tab, newline and carriage
// return; DEL; U+FFFE, U+FFFF) become U+FFFD, so the document is always
// well-formed whatever a frame name or file name holds.
package xmlesc

import "unicode/utf8"

// Replacement is what stands for a byte or character XML cannot hold.
const Replacement = "\uFFFD"

// Allowed reports whether r may appear in an XML 1.0 document.
func Allowed(r rune) bool {
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

// AppendText appends s escaped for character data.
func AppendText(dst []byte, s string) []byte { return appendEscaped(dst, s, false, false) }

// AppendTextQuoted appends s escaped for character data with '"' escaped
// too, as flamegraph.pl escapes tooltips.
func AppendTextQuoted(dst []byte, s string) []byte { return appendEscaped(dst, s, false, true) }

// AppendAttr appends s escaped for a double-quoted attribute value.
func AppendAttr(dst []byte, s string) []byte { return appendEscaped(dst, s, true, true) }

// String returns s escaped so that it is safe both as character data and
// as a double-quoted attribute value.
func String(s string) string { return string(AppendAttr(nil, s)) }

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
			case !Allowed(rune(c)) || c == 0x7F:
				dst = append(dst, Replacement...)
			default:
				dst = append(dst, c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && n == 1) || !Allowed(r) {
			dst = append(dst, Replacement...)
		} else {
			dst = append(dst, s[i:i+n]...)
		}
		i += n
	}
	return dst
}
