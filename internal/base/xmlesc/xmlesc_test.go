package xmlesc

import (
	"encoding/xml"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestEscape(t *testing.T) {
	tests := []struct{ in, text, quoted, attr string }{
		{`a<b>&c`, `a&lt;b&gt;&amp;c`, `a&lt;b&gt;&amp;c`, `a&lt;b&gt;&amp;c`},
		{`say "hi"`, `say "hi"`, `say &quot;hi&quot;`, `say &quot;hi&quot;`},
		{"t\tn\nr\r", "t\tn\nr&#13;", "t\tn\nr&#13;", "t&#9;n&#10;r&#13;"},
		{"\x00\x01\x7f\xff]]>", "\uFFFD\uFFFD\uFFFD\uFFFD]]&gt;", "\uFFFD\uFFFD\uFFFD\uFFFD]]&gt;", "\uFFFD\uFFFD\uFFFD\uFFFD]]&gt;"},
		{"é\uFFFF", "é\uFFFD", "é\uFFFD", "é\uFFFD"},
	}
	for _, tt := range tests {
		if got := string(AppendText(nil, tt.in)); got != tt.text {
			t.Errorf("AppendText(%q) = %q, want %q", tt.in, got, tt.text)
		}
		if got := string(AppendTextQuoted(nil, tt.in)); got != tt.quoted {
			t.Errorf("AppendTextQuoted(%q) = %q, want %q", tt.in, got, tt.quoted)
		}
		if got := String(tt.in); got != tt.attr {
			t.Errorf("String(%q) = %q, want %q", tt.in, got, tt.attr)
		}
	}
}

// FuzzString checks that any string, escaped, is well-formed XML as an
// attribute value and as character data, and reads back the same where
// nothing had to be replaced.
func FuzzString(f *testing.F) {
	for _, s := range []string{"<script>", "]]>", "a\"b'c&d", "\x00\xff\t\n\r", "é\uFFFE"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e := String(s)
		doc := `<r a="` + e + `">` + e + `</r>`
		d := xml.NewDecoder(strings.NewReader(doc))
		var v struct {
			A    string `xml:"a,attr"`
			Text string `xml:",chardata"`
		}
		if err := d.Decode(&v); err != nil {
			t.Fatalf("%q escaped as %q is not well-formed: %v", s, e, err)
		}
		clean := utf8.ValidString(s) && !strings.ContainsFunc(s, func(r rune) bool { return !Allowed(r) || r == 0x7F })
		if clean && (v.A != s || v.Text != s) {
			t.Fatalf("%q read back as attribute %q and text %q", s, v.A, v.Text)
		}
	})
}
