package heatmap

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
)

// DetailSeconds is the longest capture drawn whole as a sub-second map;
// a longer one gets an overview, and its sub-second map shows
// StretchSeconds at a time.
const DetailSeconds = 600

// StretchSeconds is the length of the stretch of a long capture that its
// sub-second map shows.
const StretchSeconds = 300

// OverviewRows is the number of rows of an overview column.
const OverviewRows = 60

// maxOverviewCols bounds the columns of an overview.
const maxOverviewCols = 600

// overviewLens are the column lengths an overview chooses from, in
// seconds: the shortest that fits in maxOverviewCols columns.
var overviewLens = []int64{60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400}

// Overview is a long capture folded to fit a screen: column j covers the
// seconds from First+j*Len to First+(j+1)*Len (counted from the origin),
// and row i the i-th sixtieth of them (0 at the bottom), each cell the
// number of samples in it.
type Overview struct {
	First  int64 // the second column 0 starts at, a multiple of Len
	Len    int64 // seconds per column, a multiple of OverviewRows
	Cols   int
	Counts []uint64 // column after column, OverviewRows per column
	Max    uint64
	// Unrecorded marks the cells at least half of whose time was not
	// recorded (Grid.SetUnrecorded), as Counts; nil when all was.
	Unrecorded []bool
}

// Long reports whether the grid is too long to be drawn whole as a
// sub-second map, and gets an overview.
func (g *Grid) Long() bool { return g.Cols > DetailSeconds }

// Overview folds the grid into at most 600 columns of OverviewRows rows.
func (g *Grid) Overview() Overview {
	var o Overview
	if g.Cols == 0 {
		o.Len = overviewLens[0]
		return o
	}
	end := g.First + int64(g.Cols) // one past the last second
	for _, l := range overviewLens {
		o.Len = l
		if first := floorDiv(g.First, l) * l; ceilDiv(end-first, l) <= maxOverviewCols {
			break
		}
	}
	if first := floorDiv(g.First, o.Len) * o.Len; ceilDiv(end-first, o.Len) > maxOverviewCols {
		day := int64(86400)
		o.Len = ceilDiv(ceilDiv(end-first, maxOverviewCols), day) * day
	}
	o.First = floorDiv(g.First, o.Len) * o.Len
	o.Cols = int(ceilDiv(end-o.First, o.Len))
	o.Counts = make([]uint64, o.Cols*OverviewRows)
	per := o.Len / OverviewRows
	for _, c := range g.Seconds() {
		sec := g.First + int64(c) - o.First
		i := int(sec/o.Len)*OverviewRows + int(sec%o.Len/per)
		o.Counts[i] += uint64(g.ColumnSum(c))
	}
	for _, n := range o.Counts {
		o.Max = max(o.Max, n)
	}
	o.unrecordedCells(g)
	return o
}

// RowSeconds returns the seconds an overview row covers.
func (o *Overview) RowSeconds() int64 { return o.Len / OverviewRows }

// AppendData appends the overview's fields for the script: first, len,
// cols, max and cells (base64 of the run-length encoded counts, as in
// Grid.AppendData).
func (o *Overview) AppendData(dst []byte) []byte {
	var e rle
	for _, n := range o.Counts {
		e.put(n)
	}
	e.flush()
	dst = append(dst, "first: "...)
	dst = appendInt(dst, o.First)
	dst = append(dst, ", len: "...)
	dst = appendInt(dst, o.Len)
	dst = append(dst, ", cols: "...)
	dst = appendInt(dst, int64(o.Cols))
	dst = append(dst, ", max: "...)
	dst = appendInt(dst, int64(min(o.Max, 1<<53)))
	dst = append(dst, ", cells: \""...)
	dst = appendBase64(dst, e.buf)
	return append(dst, '"')
}

// paint draws cols x rows cells of cw x ch pixels, row 0 at the bottom,
// coloured by level, as a PNG.
func paint(cols, rows, cw, ch int, level func(c, r int) int) []byte {
	pal := make(color.Palette, Levels)
	for i, c := range Palette() {
		pal[i] = color.RGBA{c.R, c.G, c.B, 0xFF}
	}
	img := image.NewPaletted(image.Rect(0, 0, max(cols*cw, 1), max(rows*ch, 1)), pal)
	for c := 0; c < cols; c++ {
		for r := 0; r < rows; r++ {
			l := uint8(level(c, r))
			if l == 0 {
				continue
			}
			y0 := (rows - 1 - r) * ch
			for y := y0; y < y0+ch; y++ {
				row := img.Pix[y*img.Stride+c*cw : y*img.Stride+(c+1)*cw]
				for x := range row {
					row[x] = l
				}
			}
		}
	}
	var b bytes.Buffer
	// zlib's default level: the best one spent 25 ms of a 0.43 s
	// timeslice --heatmap on a 63 MB capture finding matches, for an image
	// 10% smaller (48 kB against 43).
	enc := png.Encoder{CompressionLevel: png.DefaultCompression}
	if err := enc.Encode(&b, img); err != nil {
		panic(err) // writing to a bytes.Buffer cannot fail
	}
	return b.Bytes()
}
