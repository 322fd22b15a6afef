package svg

import (
	"bytes"
	"encoding/xml"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"flamekit/pkg/view/flamegraph"
)

// wellFormed parses doc with encoding/xml and reports the first error.
func wellFormed(doc []byte) error {
	_, err := scriptElements(doc)
	return err
}

// scriptElements counts the <script> elements of a well-formed doc.
func scriptElements(doc []byte) (int, error) {
	d := xml.NewDecoder(bytes.NewReader(doc))
	d.Strict = true
	n := 0
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "script" {
			n++
		}
	}
}

// hostile is folded input whose frame names try to break out of every
// context of the SVG.
const hostile = "main;<script>window.pwned=1</script> 5\n" +
	"main;]]><script>window.pwned=2</script> 3\n" +
	"main;\"><script>window.pwned=3</script>;x' onload='window.pwned=4 2\n" +
	"main;</script><script>window.pwned=5</script>;&amp;&lt; 4\n" +
	"main;ctl\x01\x02\x1b\x7f;bad\xff\xfeutf8 3\n" +
	"main;--><!--;a\u2028b 1\n" +
	"main;javascript:alert(1) 2\n"

func hostileOptions() Options {
	o := DefaultOptions()
	o.Title = `</script><script>alert(1)</script>]]>&"'`
	o.Subtitle = "sub\x01\xff<&>"
	o.NameType = `"; alert(1); "</script>]]>`
	o.CountName = `<b onmouseover="alert(1)">`
	o.Notes = `--><script>alert(1)</script><!-- -`
	o.FontType = `Verdana; } </style><script>alert(1)</script>`
	return o
}

// TestHostileNamesWellFormed: names and flags that try every context
// still give a well-formed SVG with exactly one script, checked with
// encoding/xml and, when installed, xmllint.
func TestHostileNamesWellFormed(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "hostile.folded")
	if err := os.WriteFile(in, []byte(hostile), 0o644); err != nil {
		t.Fatal(err)
	}
	doc := draw(t, in, hostileOptions(), flamegraph.Rewrite{}, false)
	if err := wellFormed(doc); err != nil {
		t.Fatalf("not well-formed: %v", err)
	}
	if n, _ := scriptElements(doc); n != 1 {
		t.Errorf("%d <script elements, want 1", n)
	}
	start := bytes.Index(doc, []byte("<![CDATA["))
	end := bytes.Index(doc, []byte("]]>\n</script>"))
	if start < 0 || end < start || bytes.Contains(doc[start+9:end], []byte("]]>")) || bytes.Contains(doc[start:end], []byte("</script")) {
		t.Errorf("script body can be closed early")
	}
	if strings.Contains(script, "]]>") {
		t.Errorf("flamegraph.js contains ]]>")
	}
	// the names are in the frame data too, escaped for the script
	for _, want := range []string{`"\u003cscript\u003ewindow.pwned=1\u003c/script\u003e"`, `"]]\u003e\u003cscript\u003e`, `"ctl\ufffd\ufffd\ufffd\ufffd"`, `"bad\ufffd\ufffdutf8"`, `"a\u2028b"`} {
		if !bytes.Contains(doc[start:end], []byte(want)) {
			t.Errorf("frame data lacks the name %s", want)
		}
	}
	out := filepath.Join(dir, "hostile.svg")
	if err := os.WriteFile(out, doc, 0o644); err != nil {
		t.Fatal(err)
	}
	xmllint, err := exec.LookPath("xmllint")
	if err != nil {
		t.Skip("skipping the xmllint check: xmllint not installed (Debian: libxml2-utils)")
	}
	if msg, err := exec.Command(xmllint, "--noout", "--nonet", out).CombinedOutput(); err != nil {
		t.Errorf("xmllint: %v\n%s", err, msg)
	}
}

// FuzzRender: any stack text, drawn with any title, is a well-formed SVG.
func FuzzRender(f *testing.F) {
	f.Add("a;b;c", "Flame Graph")
	f.Add("main;<script>x</script>;]]>", "</script>")
	f.Add("\xff\xfe;\x01\x02;&amp;", "\"'")
	f.Fuzz(func(t *testing.T, stack, title string) {
		b := flamegraph.NewBuilder()
		b.Add(stack, 3, 1, true)
		b.Add(stack+";x", 2, 0, false)
		o := DefaultOptions()
		o.Title = title
		o.Notes = title
		var buf bytes.Buffer
		if err := Render(&buf, b.Layout(), &o); err != nil {
			t.Fatal(err)
		}
		if err := wellFormed(buf.Bytes()); err != nil {
			t.Fatalf("not well-formed: %v", err)
		}
	})
}
