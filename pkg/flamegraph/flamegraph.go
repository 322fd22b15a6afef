// Package flamegraph reads what the flamegraph command draws: folded
// inputs summed (or, for a flame chart, kept in order) into a layout, and
// flamegraph.pl's option files (the --cp palette.map and --nameattr). The
// drawing itself is in pkg/svg.
package flamegraph

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"

	"flamekit/pkg/folded"
	"flamekit/pkg/source"
	"flamekit/pkg/svg"
)

// PaletteFile is where --cp keeps its colours, in the current directory.
const PaletteFile = "palette.map"

// Input is what Read gathered.
type Input struct {
	Layout *svg.Layout
	Skips  folded.Skips // malformed lines passed over (metadata lines are not counted)
	Timed  bool         // the flame chart was ordered by time
}

// Read reads the folded records of fs (inputs opened by package source;
// fs should be lenient: malformed lines are counted, not fatal) and lays
// them out. sizeHint is the size of the input in bytes, 0 when unknown.
// Without flamechart, stacks are summed and merged frame by frame (timed
// lines lose their time). With flamechart, lines keep the input order and
// each is merged with the line before it, as flamegraph.pl does; but when
// every line is timed, the samples are ordered by time first (stable), so
// the x axis is time order. With o not nil, frames that o's --minwidth
// would drop are dropped during the layout already.
func Read(fs *source.Files, sizeHint int64, flamechart bool, rw svg.Rewrite, o *svg.Options) (*Input, error) {
	in := &Input{}
	if !flamechart {
		set := readStacks(fs, sizeHint)
		if err := fs.Err(); err != nil {
			return nil, err
		}
		in.Skips = fs.Skips()
		var minCount float64
		if o != nil {
			minCount = o.MinCount(set.Total())
		}
		in.Layout = svg.LayoutProfilePruned(set, rw, minCount)
		return in, nil
	}

	// flame chart: keep every line; intern the stacks
	type line struct {
		stack         int32
		count, before float64
		time          folded.Time
		kind          folded.Kind
	}
	index := map[string]int32{}
	var stacks []string
	var lines []line
	allTimed := true
	for fs.Next() {
		rec := fs.Record()
		id, ok := index[string(rec.Stack)]
		if !ok {
			key := string(rec.Stack) // one copy: also the stack when rw changes nothing
			id = int32(len(stacks))
			stacks = append(stacks, rw.Apply(key))
			index[key] = id
		}
		lines = append(lines, line{id, rec.Count, rec.Before, rec.Time, rec.Kind})
		if rec.Kind != folded.Timed {
			allTimed = false
		}
	}
	if err := fs.Err(); err != nil {
		return nil, err
	}
	in.Skips = fs.Skips()
	if allTimed && len(lines) > 0 {
		slices.SortStableFunc(lines, func(a, b line) int {
			switch {
			case a.time < b.time:
				return -1
			case a.time > b.time:
				return 1
			}
			return 0
		})
		in.Timed = true
	}
	b := svg.NewBuilder()
	if o != nil {
		var total float64
		for _, ln := range lines {
			total += ln.count
		}
		b.Prune(o.MinCount(total))
	}
	for _, ln := range lines {
		b.Add(stacks[ln.stack], ln.count, ln.before, ln.kind == folded.Diff)
	}
	in.Layout = b.Layout()
	return in, nil
}

// ReadPalette reads a --cp palette file ("name->rgb(r,g,b)" lines). A
// missing file is an empty palette.
func ReadPalette(path string) (map[string]svg.RGB, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return map[string]svg.RGB{}, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	m, err := ParsePalette(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// ParsePalette parses palette lines "name->rgb(r,g,b)"; lines of another
// form are ignored, as flamegraph.pl ignores them.
func ParsePalette(r io.Reader) (map[string]svg.RGB, error) {
	m := map[string]svg.RGB{}
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		name, col, ok := strings.Cut(sc.Text(), "->")
		if !ok {
			continue
		}
		if c, ok := svg.ParseRGB(col); ok {
			m[name] = c
		}
	}
	return m, sc.Err()
}

// WritePalette writes a --cp palette file, sorted by name.
func WritePalette(path string, m map[string]svg.RGB) error {
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
func ReadNameAttr(path string, warn func(string)) (map[string]*svg.Attrs, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ParseNameAttr(f, path, warn)
}

// ParseNameAttr parses --nameattr lines read from r; name is the file name
// for messages, and warn receives what was dropped.
func ParseNameAttr(r io.Reader, name string, warn func(string)) (map[string]*svg.Attrs, error) {
	m := map[string]*svg.Attrs{}
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
			a = &svg.Attrs{}
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
				if !svg.SafeHref(v) {
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
func parseExtra(s string, warn func(string)) []svg.Attr {
	var out []svg.Attr
	for _, m := range extraRE.FindAllStringSubmatch(s, -1) {
		name, value := m[1], m[2]+m[3]+m[4]
		if !svg.SafeAttrName(name) || strings.EqualFold(name, "xlink:href") || strings.EqualFold(name, "href") {
			warn(fmt.Sprintf("dropped attribute %q: event handlers and links are not written as extras", name))
			continue
		}
		out = append(out, svg.Attr{Name: name, Value: value})
	}
	return out
}
