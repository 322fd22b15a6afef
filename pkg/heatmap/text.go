package heatmap

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Shades are the characters of the text view, from no samples to the
// fullest cell.
const Shades = " .:-=+*#%@"

// Shade returns the character of a cell of n samples when the fullest cell
// has fullest: ' ' for none, then nine steps, '@' for the maximum.
func Shade(n, fullest int64) byte {
	if n <= 0 || fullest <= 0 {
		return Shades[0]
	}
	i := (n*int64(len(Shades)-1) + fullest - 1) / fullest // 1..9 (more if n > fullest)
	return Shades[min(i, int64(len(Shades)-1))]
}

// WriteText writes the grid for a terminal, turned a quarter: one line per
// second (time runs down the screen), one character per sub-second bucket
// (0 ms on the left), shaded by count, and the count of the second and its
// perf-clock time at the end of the line.
func (g *Grid) WriteText(w io.Writer, info Info) error {
	bw := bufio.NewWriter(w)
	if info.Title != "" {
		fmt.Fprintf(bw, "%s\n", oneLine(info.Title))
	}
	for _, l := range g.legend(info) {
		fmt.Fprintf(bw, "%s\n", l)
	}
	for _, n := range info.Notes {
		fmt.Fprintf(bw, "%s\n", oneLine(n))
	}
	fmt.Fprintf(bw, "shades: '%s' = 0 .. %d samples per cell\n", Shades, g.Max)
	// Ruler: ms marks every 200 ms.
	ruler := []byte(strings.Repeat("-", g.Rows))
	labels := []byte(strings.Repeat(" ", g.Rows+8))
	for msv := 0; msv < 1000; msv += 200 {
		r := int(ceilDiv(int64(msv)*int64(g.Rows), 1000))
		if r >= g.Rows {
			continue
		}
		ruler[r] = '+'
		l := strconv.Itoa(msv)
		if msv == 0 {
			l = "0ms"
		}
		copy(labels[r:], l)
	}
	fmt.Fprintf(bw, "%6s  |%s|\n", "", strings.TrimRight(string(labels), " "))
	fmt.Fprintf(bw, "%6s  +%s+\n", "second", ruler)
	line := make([]byte, g.Rows)
	for c, col := range g.Counts {
		var sum int64
		for r, n := range col {
			line[r] = Shade(n, g.Max)
			sum += n
		}
		fmt.Fprintf(bw, "%6d  |%s| %6d  @%d\n", c, line, sum, g.Base+int64(c))
	}
	return bw.Flush()
}

// oneLine makes s safe for a one-line terminal message: control
// characters (escape sequences) are shown as '?'.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 {
			return '?'
		}
		return r
	}, s)
}
