package svg

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"unicode/utf8"
)

// RGB is a frame colour.
type RGB struct{ R, G, B uint8 }

// String formats c as flamegraph.pl does: "rgb(R,G,B)".
func (c RGB) String() string { return string(c.Append(nil)) }

// Append appends c formatted as by String to dst.
func (c RGB) Append(dst []byte) []byte {
	dst = append(dst, "rgb("...)
	dst = strconv.AppendUint(dst, uint64(c.R), 10)
	dst = append(dst, ',')
	dst = strconv.AppendUint(dst, uint64(c.G), 10)
	dst = append(dst, ',')
	dst = strconv.AppendUint(dst, uint64(c.B), 10)
	return append(dst, ')')
}

// parseRGB parses "rgb(R,G,B)" as written in a palette.map file.
func parseRGB(s string) (RGB, bool) {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "rgb(") || !strings.HasSuffix(s, ")") {
		return RGB{}, false
	}
	parts := strings.Split(s[4:len(s)-1], ",")
	if len(parts) != 3 {
		return RGB{}, false
	}
	var v [3]uint8
	for i, p := range parts {
		n, err := strconv.ParseUint(strings.TrimSpace(p), 10, 8)
		if err != nil {
			return RGB{}, false
		}
		v[i] = uint8(n)
	}
	return RGB{v[0], v[1], v[2]}, true
}

// Fixed colours of flamegraph.pl.
var (
	vdgrey    = RGB{160, 160, 160} // frames named "--" (chain separators)
	dgrey     = RGB{200, 200, 200} // frames named "-"
	black     = RGB{0, 0, 0}       // unknown palette names
	white     = RGB{255, 255, 255} // differential: no change
	Highlight = RGB{230, 0, 230}   // search matches
)

// Palettes lists the --colors names flamegraph.pl knows.
var Palettes = []string{"hot", "mem", "io", "wakeup", "chain", "java", "js", "perl",
	"red", "green", "blue", "aqua", "yellow", "purple", "orange"}

// PaletteName returns the palette of Palettes that name is, matched without
// regard to case ("Java" is "java"), or ok false when there is none (where
// flamegraph.pl draws every frame black without a word).
func PaletteName(name string) (palette string, ok bool) {
	for _, p := range Palettes {
		if strings.EqualFold(name, p) {
			return p, true
		}
	}
	return "", false
}

// ColorMode says where the three random variates of a colour come from.
type ColorMode uint8

// Colour modes of flamegraph.pl.
const (
	ColorDefault ColorMode = iota // drand48 seeded with the name's code-point sum
	ColorHash                     // --hash: a hash of the name
	ColorRandom                   // --random: unseeded random numbers
)

// drand48Seeded returns Perl's srand(seed); rand(1): Perl uses its own
// drand48 on every platform since 5.20.
func drand48Seeded(seed uint32) float64 {
	x := (uint64(seed) << 16) + 0x330E
	x = (0x5DEECE66D*x + 0xB) & (1<<48 - 1)
	return float64(x) / (1 << 48)
}

// codePointSum is Perl's unpack("%32W*", name): the sum of the code points
// modulo 2^32. Bytes that are not valid UTF-8 count as their byte value.
func codePointSum(name string) uint32 {
	var s uint32
	for i := 0; i < len(name); {
		c := name[i]
		if c < utf8.RuneSelf {
			s += uint32(c)
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(name[i:])
		if r == utf8.RuneError && n == 1 {
			s += uint32(c)
		} else {
			s += uint32(r)
		}
		i += n
	}
	return s
}

// nameHash is flamegraph.pl's namehash: a value in [0,1] from the first
// three characters of the name (after any "module`" prefix).
func nameHash(name string) float64 {
	// drop "x...`": the first character, then everything up to and
	// including the first backtick after it.
	if len(name) > 0 {
		_, n := utf8.DecodeRuneInString(name)
		if j := strings.IndexByte(name[n:], '`'); j >= 0 {
			name = name[n+j+1:]
		}
	}
	vector, weight, max, mod := 0.0, 1.0, 1.0, 10
	for i, k := 0, 0; i < len(name) && k < 3; k++ {
		r, n := utf8.DecodeRuneInString(name[i:])
		if r == utf8.RuneError && n == 1 {
			r = rune(name[i])
		}
		i += n
		v := int(r) % mod
		vector += float64(v) / float64(mod-1) * weight
		mod++
		max += weight
		weight *= 0.7
	}
	return 1 - vector/max
}

func reverseString(s string) string {
	rs := []rune(s)
	for i, j := 0, len(rs)-1; i < j; i, j = i+1, j-1 {
		rs[i], rs[j] = rs[j], rs[i]
	}
	return string(rs)
}

// variates returns v1, v2, v3 in [0,1) for name, as flamegraph.pl draws them.
func variates(name string, mode ColorMode, rnd *rand.Rand) (v1, v2, v3 float64) {
	switch mode {
	case ColorHash:
		v1 = nameHash(name)
		v2 = nameHash(reverseString(name))
		return v1, v2, v2
	case ColorRandom:
		return rnd.Float64(), rnd.Float64(), rnd.Float64()
	}
	v := drand48Seeded(codePointSum(name))
	return v, v, v
}

// flat computes a one-variate palette colour.
func flat(palette string, v float64) (RGB, bool) {
	i := func(scale float64) uint8 { return uint8(int(scale * v)) }
	switch palette {
	case "red":
		return RGB{200 + i(55), 50 + i(80), 50 + i(80)}, true
	case "green":
		return RGB{50 + i(60), 200 + i(55), 50 + i(60)}, true
	case "blue":
		return RGB{80 + i(60), 80 + i(60), 205 + i(50)}, true
	case "yellow":
		return RGB{175 + i(55), 175 + i(55), 50 + i(20)}, true
	case "purple":
		return RGB{190 + i(65), 80 + i(60), 190 + i(65)}, true
	case "aqua":
		return RGB{50 + i(60), 165 + i(55), 165 + i(55)}, true
	case "orange":
		return RGB{190 + i(65), 90 + i(65), 0}, true
	}
	return RGB{}, false
}

// classify maps a multi palette and a frame name to a flat palette.
func classify(palette, name string) string {
	switch palette {
	case "java":
		switch {
		case strings.HasSuffix(name, "_[j]"):
			return "green"
		case strings.HasSuffix(name, "_[i]"):
			return "aqua"
		case isJavaPackage(name):
			return "green"
		case strings.Contains(name, ":::"):
			return "green"
		case strings.Contains(name, "::"):
			return "yellow"
		case strings.HasSuffix(name, "_[k]"):
			return "orange"
		}
		return "red"
	case "perl":
		switch {
		case strings.Contains(name, "::"):
			return "yellow"
		case strings.Contains(name, "Perl"), strings.Contains(name, ".pl"):
			return "green"
		case strings.HasSuffix(name, "_[k]"):
			return "orange"
		}
		return "red"
	case "js":
		switch {
		case strings.HasSuffix(name, "_[j]"):
			if strings.Contains(name, "/") {
				return "green"
			}
			return "aqua"
		case strings.Contains(name, "::"):
			return "yellow"
		case slashThenJS(name):
			return "green"
		case strings.Contains(name, ":"):
			return "aqua"
		case name == " ":
			return "green"
		case strings.Contains(name, "_[k]"):
			return "orange"
		}
		return "red"
	case "wakeup":
		return "aqua"
	case "chain":
		if strings.Contains(name, "_[w]") {
			return "aqua"
		}
		return "blue"
	}
	return palette
}

// isJavaPackage: optional "L", then java|javax|jdk|net|org|com|io|sun, then "/".
func isJavaPackage(name string) bool {
	name = strings.TrimPrefix(name, "L")
	for _, p := range []string{"java/", "javax/", "jdk/", "net/", "org/", "com/", "io/", "sun/"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// slashThenJS: a "/" followed later by ".js".
func slashThenJS(name string) bool {
	i := strings.IndexByte(name, '/')
	return i >= 0 && strings.Contains(name[i+1:], ".js")
}

// Colorer picks frame colours as flamegraph.pl does.
type Colorer struct {
	Palette string    // --colors
	Mode    ColorMode // default, --hash or --random
	// Map, if not nil, is the --cp consistent palette: names found there
	// keep their colour; new names get a computed colour, which is added.
	Map map[string]RGB
	rnd *rand.Rand
}

// Color returns the palette colour of a frame name (not a differential
// colour, and not the greys of the "-" and "--" divider frames, which
// Render gives them as flamegraph.pl does).
func (c *Colorer) Color(name string) RGB {
	if c.Map != nil {
		if col, ok := c.Map[name]; ok {
			return col
		}
	}
	if c.Mode == ColorRandom && c.rnd == nil {
		c.rnd = rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	}
	v1, v2, v3 := variates(name, c.Mode, c.rnd)
	var col RGB
	switch c.Palette {
	case "hot":
		col = RGB{205 + uint8(int(50*v3)), uint8(int(230 * v1)), uint8(int(55 * v2))}
	case "mem":
		col = RGB{0, 190 + uint8(int(50*v2)), uint8(int(210 * v1))}
	case "io":
		g := 80 + uint8(int(60*v1))
		col = RGB{g, g, 190 + uint8(int(55*v2))}
	default:
		var ok bool
		if col, ok = flat(classify(c.Palette, name), v1); !ok {
			col = black
		}
	}
	if c.Map != nil {
		c.Map[name] = col
	}
	return col
}

// DiffColor is the differential colour of a frame whose count changed by
// delta, with maxDelta the largest change in the graph: red for growth,
// blue for shrinkage, white for none.
func DiffColor(delta, maxDelta float64) RGB {
	switch {
	case delta > 0:
		x := uint8(int(210 * (maxDelta - delta) / maxDelta))
		return RGB{255, x, x}
	case delta < 0:
		x := uint8(int(210 * (maxDelta + delta) / maxDelta))
		return RGB{x, x, 255}
	}
	return white
}

// Background returns the two gradient stops of the background for a
// --bgcolors value ("" = the palette's default), or ok false when the value
// is not one flamegraph.pl accepts.
func Background(bgcolors, palette string) (top, bottom string, ok bool) {
	if bgcolors == "" {
		switch palette {
		case "mem":
			bgcolors = "green"
		case "io", "wakeup", "chain":
			bgcolors = "blue"
		case "red", "green", "blue", "aqua", "yellow", "purple", "orange":
			bgcolors = "grey"
		default:
			bgcolors = "yellow"
		}
	}
	switch bgcolors {
	case "yellow":
		return "#eeeeee", "#eeeeb0", true
	case "blue":
		return "#eeeeee", "#e0e0ff", true
	case "green":
		return "#eef2ee", "#e0ffe0", true
	case "grey":
		return "#f8f8f8", "#e8e8e8", true
	}
	if len(bgcolors) == 7 && bgcolors[0] == '#' {
		for _, c := range []byte(bgcolors[1:]) {
			if !isHex(c) {
				return "", "", false
			}
		}
		return bgcolors, bgcolors, true
	}
	return "", "", false
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}
