package svg

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"
)

// PaletteFile is where --cp keeps its colours, in the current directory.
const PaletteFile = "palette.map"

// ReadPalette reads a --cp palette file ("name->rgb(r,g,b)" lines). A
// missing file is an empty palette.
func ReadPalette(path string) (map[string]RGB, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return map[string]RGB{}, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	m, err := parsePalette(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// parsePalette parses palette lines "name->rgb(r,g,b)"; lines of another
// form are ignored, as flamegraph.pl ignores them.
func parsePalette(r io.Reader) (map[string]RGB, error) {
	m := map[string]RGB{}
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		name, col, ok := strings.Cut(sc.Text(), "->")
		if !ok {
			continue
		}
		if c, ok := parseRGB(col); ok {
			m[name] = c
		}
	}
	return m, sc.Err()
}

// WritePalette writes a --cp palette file, sorted by name.
func WritePalette(path string, m map[string]RGB) error {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	slices.Sort(names)
	var b []byte
	for _, n := range names {
		b = append(b, n...)
		b = append(b, "->"...)
		b = m[n].Append(b)
		b = append(b, '\n')
	}
	return os.WriteFile(path, b, 0o644)
}

// ReadNameAttr reads a --nameattr file: each line is a function name, a
// TAB, then TAB-separated key=value pairs (title, id, class, href, target,
// g_extra, a_extra). Extra attributes are parsed as name="value" pairs;
// event handlers (on...) and script links are dropped and reported to
// warn, so the SVG never runs code from the file.
func ReadNameAttr(path string, warn func(string)) (map[string]*Attrs, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return parseNameAttr(f, path, warn)
}

// parseNameAttr parses --nameattr lines read from r; name is the file name
// for messages, and warn receives what was dropped.
func parseNameAttr(r io.Reader, name string, warn func(string)) (map[string]*Attrs, error) {
	m := map[string]*Attrs{}
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<24)
	for ln := 1; sc.Scan(); ln++ {
		line := strings.TrimSuffix(sc.Text(), "\r")
		fn, rest, ok := strings.Cut(line, "\t")
		if !ok {
			return nil, fmt.Errorf("%s:%d: invalid format: want name<TAB>key=value[<TAB>key=value...]", name, ln)
		}
		a := m[fn]
		if a == nil {
			a = &Attrs{}
			m[fn] = a
		}
		for _, kv := range strings.Split(rest, "\t") {
			k, v, _ := strings.Cut(kv, "=")
			switch k {
			case "title":
				a.Title = v
			case "id":
				a.ID = v
			case "class":
				a.Class = v
			case "href":
				if !safeHref(v) {
					warn(fmt.Sprintf("%s:%d: dropped href %q: links that run code are not written", name, ln, v))
					continue
				}
				a.Href = v
			case "target":
				a.Target = v
			case "g_extra", "a_extra":
				attrs := parseExtra(v, func(msg string) { warn(fmt.Sprintf("%s:%d: %s", name, ln, msg)) })
				if k == "g_extra" {
					a.GExtra = append(a.GExtra, attrs...)
				} else {
					a.AExtra = append(a.AExtra, attrs...)
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return m, nil
}

var extraRE = regexp.MustCompile(`([^\s=]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|(\S+))`)

// parseExtra parses raw extra attributes (name="value" ...) into safe ones.
func parseExtra(s string, warn func(string)) []Attr {
	var out []Attr
	for _, m := range extraRE.FindAllStringSubmatch(s, -1) {
		name, value := m[1], m[2]+m[3]+m[4]
		if !safeAttrName(name) || strings.EqualFold(name, "xlink:href") || strings.EqualFold(name, "href") {
			warn(fmt.Sprintf("dropped attribute %q: event handlers and links are not written as extras", name))
			continue
		}
		out = append(out, Attr{Name: name, Value: value})
	}
	return out
}
