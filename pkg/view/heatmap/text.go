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

// UnrecordedShade is the character of a cell not recorded (see
// Grid.SetUnrecorded).
const UnrecordedShade = '/'

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
// (0 ms on the left), shaded by count; then the count of the second, its
// start on perf's clock, how much of it was not recorded (cells not
// recorded are UnrecordedShade) and, for a second a mark covers, the
// mark's number.
// A grid that spans more than MaxSeconds is an error (ErrSpan).
func (g *Grid) WriteText(w io.Writer, info Info) error {
	if err := g.checkSpan(); err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	if info.Title != "" {
		fmt.Fprintf(bw, "%s\n", oneLine(info.Title))
	}
	for _, l := range g.legend(info) {
		if strings.HasPrefix(l, "overview:") {
			continue // the text view has no overview
		}
		fmt.Fprintf(bw, "%s\n", oneLine(l))
	}
	for _, n := range info.Notes {
		fmt.Fprintf(bw, "%s\n", oneLine(n))
	}
	fmt.Fprintf(bw, "shades: '%s' = 0 .. %d %s per cell", Shades, g.Max, info.unit())
	if len(g.unrecorded) > 0 {
		fmt.Fprintf(bw, "; '%c' = not recorded", UnrecordedShade)
	}
	bw.WriteByte('\n')
	// Marks, by the columns they cover.
	marked := make(map[int][]int)
	for i, m := range info.Marks {
		fmt.Fprintf(bw, "mark %d: @%v to @%v: %s\n", i+1, m.From, m.To, oneLine(m.Label))
		for _, s := range g.detailSegments(m.From, m.To, g.First, g.Cols) {
			if l := marked[s.c]; len(l) == 0 || l[len(l)-1] != i+1 {
				marked[s.c] = append(l, i+1)
			}
		}
	}
	// Ruler: ms marks every 200 ms.
	ruler := []byte(strings.Repeat("-", g.Rows))
	labels := []byte(strings.Repeat(" ", g.Rows+8))
	free := 0 // labels start after the previous one and a blank
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
		if r >= free {
			copy(labels[r:], l)
			free = r + len(l) + 1
		}
	}
	fmt.Fprintf(bw, "%6s  |%s|\n", "", strings.TrimRight(string(labels), " "))
	fmt.Fprintf(bw, "%6s  +%s+\n", "second", ruler)
	line := make([]byte, g.Rows)
	for c := 0; c < g.Cols; c++ {
		col := g.Column(c)
		var sum int64
		for r := range line {
			var n int64
			if col != nil {
				n = int64(col[r])
			}
			line[r] = Shade(n, int64(g.Max))
			if n == 0 && g.UnrecordedCell(c, r) {
				line[r] = UnrecordedShade
			}
			sum += n
		}
		fmt.Fprintf(bw, "%6d  |%s| %6d  @%v", g.First+int64(c), line, sum, g.CellStart(c, 0))
		if u := g.unrecordedIn(c); u > 0 {
			fmt.Fprintf(bw, "  (%s not recorded)", seconds(u))
		}
		for _, i := range marked[c] {
			fmt.Fprintf(bw, "  <- mark %d", i)
		}
		bw.WriteByte('\n')
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
