package heatmap

import "fmt"

// RGB is a colour.
type RGB struct{ R, G, B uint8 }

func (c RGB) String() string { return fmt.Sprintf("#%02X%02X%02X", c.R, c.G, c.B) }

// The colour scale of FlameScope: white for no samples, through
// #FF5032 at half the maximum, to #E50914 at the maximum.
var (
	White = RGB{0xFF, 0xFF, 0xFF}
	Mid   = RGB{0xFF, 0x50, 0x32}
	Hot   = RGB{0xE5, 0x09, 0x14}
)

// Color returns the colour of a cell of n samples in a map whose fullest
// cell has max.
func Color(n, max int64) RGB {
	if n <= 0 || max <= 0 {
		return White
	}
	f := float64(n) / float64(max)
	if f >= 1 {
		return Hot
	}
	if f <= 0.5 {
		return lerp(White, Mid, f/0.5)
	}
	return lerp(Mid, Hot, (f-0.5)/0.5)
}

func lerp(a, b RGB, t float64) RGB {
	mix := func(x, y uint8) uint8 {
		return uint8(float64(x) + (float64(y)-float64(x))*t + 0.5)
	}
	return RGB{mix(a.R, b.R), mix(a.G, b.G), mix(a.B, b.B)}
}

// Levels is the number of colours the drawings use: level 0 is white (no
// sample), levels 1 to Levels-1 step evenly up the scale to Hot.
const Levels = 256

// Level returns the colour level of a cell of n samples when the fullest
// has max: 0 for none, at least 1 for any sample, Levels-1 for the
// fullest. The static images and the script colour cells by level, so
// both draw the same pixels.
func Level(n, max int64) int {
	if n <= 0 || max <= 0 {
		return 0
	}
	if n >= max {
		return Levels - 1
	}
	l := int((n*(Levels-1) + max/2) / max)
	return min(Levels-1, l+boolInt(l == 0))
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Palette returns the colour of each level.
func Palette() []RGB {
	p := make([]RGB, Levels)
	for i := range p {
		p[i] = Color(int64(i), Levels-1)
	}
	return p
}
