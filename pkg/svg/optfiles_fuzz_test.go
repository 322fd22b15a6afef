package svg

import (
	"bytes"
	"encoding/xml"
	"io"
	"strings"
	"testing"

	"flamekit/pkg/view/flamegraph"
)

// FuzzNameAttr checks that no --nameattr file panics the parser, and that
// whatever it accepts, drawn into a flame graph, gives a well-formed SVG
// with exactly one script and no event-handler attribute or script link.
func FuzzNameAttr(f *testing.F) {
	f.Add("main\ttitle=hello\tclass=c1\thref=https://example.com/\tg_extra=data-x=\"1\"")
	f.Add("main\thref=javascript:alert(1)\ta_extra=onclick=\"x()\" style='a'")
	f.Add("main\tid=\"><script>x</script>\ttarget=_blank\tg_extra=x=y z='<'")
	f.Add("main\ttitle=]]></script>\x00\xff")
	f.Add("no tab here")
	f.Fuzz(func(t *testing.T, file string) {
		attrs, err := parseNameAttr(strings.NewReader(file), "fuzz", func(string) {})
		if err != nil {
			return
		}
		b := flamegraph.NewBuilder()
		for name := range attrs {
			b.Add("root;"+name, 3, 0, false)
		}
		b.Add("root;main", 2, 0, false)
		o := DefaultOptions()
		o.NameAttr = attrs
		var out bytes.Buffer
		if err := Render(&out, b.Layout(), &o); err != nil {
			t.Fatal(err)
		}
		d := xml.NewDecoder(&out)
		d.Strict = true
		scripts := 0
		for {
			tok, err := d.Token()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("not well-formed: %v", err)
			}
			se, ok := tok.(xml.StartElement)
			if !ok {
				continue
			}
			if se.Name.Local == "script" {
				scripts++
			}
			for _, a := range se.Attr {
				name := strings.ToLower(a.Name.Local)
				v := strings.ToLower(strings.TrimSpace(a.Value))
				if strings.HasPrefix(name, "on") && name != "onload" {
					t.Fatalf("event handler attribute %s=%q written", a.Name.Local, a.Value)
				}
				if name == "href" && (strings.HasPrefix(v, "javascript:") || strings.HasPrefix(v, "data:") || strings.HasPrefix(v, "vbscript:")) {
					t.Fatalf("script link %q written", a.Value)
				}
			}
		}
		if scripts != 1 {
			t.Fatalf("%d script elements, want 1", scripts)
		}
	})
}

// FuzzParsePalette checks that no palette.map content panics the parser,
// and that what it reads writes back and reads again the same.
func FuzzParsePalette(f *testing.F) {
	f.Add("main->rgb(1,2,3)\nfoo->rgb(255,0,0)\n")
	f.Add("->rgb(213,39,9)\nbad line\na->b->rgb(1,1,1)\n")
	f.Add("x->rgb(999,-1,3)\n\xff->rgb(0,0,0)")
	f.Fuzz(func(t *testing.T, file string) {
		m, err := parsePalette(strings.NewReader(file))
		if err != nil {
			return
		}
		var b []byte
		for name, c := range m {
			if strings.Contains(name, "\n") {
				continue
			}
			b = append(b, name...)
			b = append(b, "->"...)
			b = c.Append(b)
			b = append(b, '\n')
		}
		m2, err := parsePalette(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		for name, c := range m2 {
			if m[name] != c {
				t.Fatalf("%q: %v read back as %v", name, m[name], c)
			}
		}
	})
}
