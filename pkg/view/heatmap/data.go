package heatmap

import (
	"encoding/base64"
	"encoding/binary"
	"errors"
	"strconv"
)

// ChunkSeconds is the number of columns the data index points into: the
// script decodes the cells of a stretch a chunk at a time.
const ChunkSeconds = 60

// rle writes a run-length encoded stream of counts: a count n >= 1 is
// its unsigned varint (whose first byte is never 0), and a run of k zero
// counts is a 0 byte followed by the varint of k.
type rle struct {
	buf   []byte
	zeros uint64
}

func (e *rle) put(v uint64) {
	if v == 0 {
		e.zeros++
		return
	}
	e.flush()
	e.buf = binary.AppendUvarint(e.buf, v)
}

func (e *rle) flush() {
	if e.zeros > 0 {
		e.buf = append(e.buf, 0)
		e.buf = binary.AppendUvarint(e.buf, e.zeros)
		e.zeros = 0
	}
}

// offset ends the pending run of zeros and returns the offset of the next
// token.
func (e *rle) offset() int {
	e.flush()
	return len(e.buf)
}

// decodeRLE decodes n counts from an rle stream (for tests; the script has
// its own decoder).
func decodeRLE(b []byte, n int) ([]uint64, error) {
	out := make([]uint64, 0, n)
	for len(out) < n {
		if len(b) == 0 {
			return out, errors.New("rle: stream ends early")
		}
		if b[0] == 0 {
			k, m := binary.Uvarint(b[1:])
			if m <= 0 || k == 0 || k > uint64(n-len(out)) {
				return out, errors.New("rle: bad zero run")
			}
			for ; k > 0; k-- {
				out = append(out, 0)
			}
			b = b[1+m:]
			continue
		}
		v, m := binary.Uvarint(b)
		if m <= 0 {
			return out, errors.New("rle: bad count")
		}
		out = append(out, v)
		b = b[m:]
	}
	if len(b) != 0 {
		return out, errors.New("rle: trailing bytes")
	}
	return out, nil
}

// cellData encodes every cell of the grid, column after column, rows in
// order, and the offset of the first token of every ChunkSeconds columns.
func (g *Grid) cellData() (data []byte, index []int) {
	var e rle
	for c := 0; c < g.Cols; c++ {
		if c%ChunkSeconds == 0 {
			index = append(index, e.offset())
		}
		col := g.Column(c)
		if col == nil {
			e.zeros += uint64(g.Rows)
			continue
		}
		for _, v := range col {
			e.put(uint64(v))
		}
	}
	e.flush()
	return e.buf, index
}

// AppendData appends the grid's cells as the script reads them: fields of
// a JavaScript object literal, numbers and base64 text only, so that no
// input text reaches the script: rows, first (the second of column 0),
// cols, max, cells (base64 of the run-length encoded counts, column after
// column: a count n >= 1 is its unsigned varint, a run of k empty cells is
// a 0 byte and the varint of k) and index (the byte offset in cells of
// every ChunkSeconds-th column).
func (g *Grid) AppendData(dst []byte) []byte {
	data, index := g.cellData()
	dst = append(dst, "rows: "...)
	dst = strconv.AppendInt(dst, int64(g.Rows), 10)
	dst = append(dst, ", first: "...)
	dst = strconv.AppendInt(dst, g.First, 10)
	dst = append(dst, ", cols: "...)
	dst = strconv.AppendInt(dst, int64(g.Cols), 10)
	dst = append(dst, ", max: "...)
	dst = strconv.AppendUint(dst, uint64(g.Max), 10)
	dst = append(dst, ",\nindex: "...)
	dst = appendInts(dst, index)
	dst = append(dst, ",\ncells: \""...)
	dst = base64.StdEncoding.AppendEncode(dst, data)
	return append(dst, '"')
}

func appendInts(dst []byte, v []int) []byte {
	dst = append(dst, '[')
	for i, x := range v {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = strconv.AppendInt(dst, int64(x), 10)
	}
	return append(dst, ']')
}

func appendInt(dst []byte, v int64) []byte { return strconv.AppendInt(dst, v, 10) }

func appendBase64(dst, data []byte) []byte { return base64.StdEncoding.AppendEncode(dst, data) }
